// Issue 24, item 5: the agency's wrapper page is read with a cap (never whole before its size is
// known), and redirects are followed only within SITE_WRAPPER_URL's origin. Real HTTP servers.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/runtime/log.ts';
import { MAX_WRAPPER_BYTES, WRAPPER_MARKER, WrapperCache } from '../../server/pages/wrapper.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))));
});

async function listen(handler: (path: string, res: ServerResponse) => void): Promise<{ origin: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req.url ?? '', res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function capturedLog(): { text: () => string; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  return { text: () => lines.join(''), log: createLogger({ level: 'warn' }, sink) };
}

const page = (header: string) =>
  `<!doctype html><html><head><title>Site</title></head><body><header>${header}</header>${WRAPPER_MARKER}<footer>f</footer></body></html>`;

describe('the wrapper page, fetched with a cap and same-origin redirects', () => {
  it('stops reading a page streamed past the cap without Content-Length, and keeps the last good wrapper', async () => {
    let mode: 'good' | 'flood' = 'good';
    let written = 0;
    let floodEnded!: () => void;
    const ended = new Promise<void>((resolve) => (floodEnded = resolve));
    const LIMIT = 64 * 1024 * 1024; // the host would send this much if it were read whole
    const { origin } = await listen((_path, res) => {
      if (mode === 'good') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(page('good'));
      // No Content-Length: chunked, as long as the reader keeps reading.
      res.writeHead(200, { 'Content-Type': 'text/html' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let closed = false;
      res.on('close', () => {
        closed = true;
        floodEnded();
      });
      const pump = () => {
        while (!closed && written < LIMIT) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!closed) res.end();
      };
      pump();
    });
    const { text, log } = capturedLog();
    let clock = 0;
    const wrapper = new WrapperCache({ url: `${origin}/shell`, refreshMinutes: 1 }, log, () => clock);
    expect((await wrapper.get()).beforeContent).toContain('good');

    mode = 'flood';
    clock = 2 * 60_000;
    await wrapper.refresh();
    await ended;
    // The cap plus what the sockets buffer on the way; read whole it would be LIMIT.
    expect(written).toBeLessThan(MAX_WRAPPER_BYTES + 8 * 1024 * 1024);
    expect((await wrapper.get()).beforeContent).toContain('good');
    expect(text()).toContain('SITE_WRAPPER_URL');
    expect(text()).toMatch(/larger than 1000000 bytes/);
  });

  it('refuses a redirect to another origin (never asking it), keeping the last good wrapper', async () => {
    const other = await listen((_path, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(page('elsewhere')));
    let redirect = false;
    const { origin } = await listen((_path, res) => {
      if (redirect) return void res.writeHead(302, { Location: `${other.origin}/shell` }).end();
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(page('good'));
    });
    const { text, log } = capturedLog();
    let clock = 0;
    const wrapper = new WrapperCache({ url: `${origin}/shell`, refreshMinutes: 1 }, log, () => clock);
    expect((await wrapper.get()).beforeContent).toContain('good');
    redirect = true;
    clock = 2 * 60_000;
    await wrapper.refresh();
    expect((await wrapper.get()).beforeContent).toContain('good');
    expect(other.requests).toEqual([]);
    expect(text()).toContain('SITE_WRAPPER_URL');
    expect(text()).toContain(`redirected to another origin (${other.origin})`);
  });

  it('follows a redirect within the origin, and gives up after a few hops', async () => {
    const { origin, requests } = await listen((path, res) => {
      if (path === '/shell') return void res.writeHead(302, { Location: '/site/shell' }).end();
      if (path === '/site/shell') return void res.writeHead(301, { Location: `${origin}/final` }).end();
      if (path === '/final') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(page('followed'));
      // A loop.
      res.writeHead(302, { Location: path === '/loop-a' ? '/loop-b' : '/loop-a' }).end();
    });
    const { text, log } = capturedLog();
    expect((await new WrapperCache({ url: `${origin}/shell`, refreshMinutes: 1 }, log).get()).beforeContent).toContain('followed');
    expect(requests).toEqual(['/shell', '/site/shell', '/final']);
    expect(text()).toBe('');

    const looping = await new WrapperCache({ url: `${origin}/loop-a`, refreshMinutes: 1 }, log).get();
    expect(looping.beforeContent).toContain('<main id="main">'); // the plain shell: no good copy yet
    expect(text()).toMatch(/SITE_WRAPPER_URL.*redirected more than \d+ times/);
  });
});
