// Issue #13: the pages' settings fail fast naming the variable, and the agency's wrapper page is
// fetched over real HTTP, kept, refreshed, and never breaks a page when the site is down or wrong.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { configProblems } from '../support/config-problems.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { createLogger } from '../../server/runtime/log.ts';
import { WRAPPER_MARKER, WrapperCache } from '../../server/pages/wrapper.ts';

const problemsOf = configProblems;

describe('settings', () => {
  it('names each bad SITE_* variable and what it must be', () => {
    const problems = problemsOf({
      SITE_URL: 'agency.example',
      SITE_LISTING_PATH: 'listings/',
      SITE_WRAPPER_URL: 'ftp://agency.example/shell',
      SITE_TIME_ZONE: 'Mars/Olympus',
      SITE_WRAPPER_MINUTES: '0',
    });
    expect(problems.find((line) => line.startsWith('SITE_URL:'))).toMatch(/http\(s\) URL/);
    expect(problems.find((line) => line.startsWith('SITE_LISTING_PATH:'))).toMatch(/a path such as \/listings/);
    expect(problems.find((line) => line.startsWith('SITE_WRAPPER_URL:'))).toMatch(/http\(s\) URL/);
    expect(problems.find((line) => line.startsWith('SITE_TIME_ZONE:'))).toMatch(/IANA time zone/);
    expect(problems.some((line) => line.startsWith('SITE_WRAPPER_MINUTES:'))).toBe(true);
  });

  it('takes good ones, trimming the site URL', () => {
    const config = loadConfig({
      SITE_URL: 'https://agency.example/',
      SITE_LISTING_PATH: '/property',
      SITE_TIME_ZONE: 'Pacific/Auckland',
      SITE_NAME: ' Kiwi Homes ',
    });
    expect(config.site).toMatchObject({ url: 'https://agency.example', listingPath: '/property', timeZone: 'Pacific/Auckland', name: 'Kiwi Homes' });
  });
});

describe('the wrapper page', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function site(answer: () => { status: number; body: string }): Promise<string> {
    server = createServer((_req, res) => {
      const { status, body } = answer();
      res.writeHead(status, { 'Content-Type': 'text/html' }).end(body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/shell`;
  }

  function capturedLog(): { lines: string[]; log: ReturnType<typeof createLogger> } {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    return { lines, log: createLogger({ level: 'warn' }, sink) };
  }

  const page = (header: string) =>
    `<!doctype html><html><head><title>Site</title><meta property="og:image" content="x.jpg"></head><body><header>${header}</header>${WRAPPER_MARKER}<footer>f</footer></body></html>`;

  it('splits the page at the marker without its own title and share tags, keeps it, and refreshes it when old', async () => {
    let header = 'one';
    let clock = 0;
    const url = await site(() => ({ status: 200, body: page(header) }));
    const wrapper = new WrapperCache({ url, refreshMinutes: 15 }, capturedLog().log, () => clock);
    const first = await wrapper.get();
    expect(first.head).not.toContain('<title>');
    expect(first.head).not.toContain('og:image');
    expect(first.beforeContent).toContain('<header>one</header>');
    expect(first.afterContent).toBe('<footer>f</footer></body></html>');
    header = 'two';
    clock = 10 * 60_000;
    expect((await wrapper.get()).beforeContent).toContain('one');
    clock = 16 * 60_000;
    await wrapper.get(); // starts the refresh in the background
    await wrapper.refresh();
    const second = await wrapper.get();
    expect(second.beforeContent).toContain('<header>two</header>');
    expect(second.version).toBeGreaterThan(first.version);
  });

  it('keeps the last good copy while the site fails, and uses a plain shell (logging why) for a page without the marker', async () => {
    let status = 200;
    let body = page('good');
    let clock = 0;
    const url = await site(() => ({ status, body }));
    const { lines, log } = capturedLog();
    const wrapper = new WrapperCache({ url, refreshMinutes: 1 }, log, () => clock);
    expect((await wrapper.get()).beforeContent).toContain('good');
    status = 503;
    clock = 2 * 60_000;
    await wrapper.refresh();
    expect((await wrapper.get()).beforeContent).toContain('good');
    expect(lines.join('')).toContain('SITE_WRAPPER_URL could not be fetched');

    const { lines: markerLines, log: markerLog } = capturedLog();
    status = 200;
    body = '<html><head></head><body>no marker here</body></html>';
    const plain = await new WrapperCache({ url, refreshMinutes: 1 }, markerLog).get();
    expect(plain.beforeContent).toContain('<main id="main">');
    expect(markerLines.join('')).toContain('has no <!-- estate-embed -->');
  });

  it("takes the demo's shell from its listing page: the site's header and footer, the listing content in place of what its <main> holds", async () => {
    const { lines, log } = capturedLog();
    const shell = await new WrapperCache({ file: join(import.meta.dirname, '../../demo/listing.html') }, log).get();
    expect(lines.join('')).toBe('');
    expect(shell.loadsWidget).toBe(true);
    expect(shell.head).not.toContain('<title>');
    expect(shell.beforeContent).toContain('<header class="site-header">');
    expect(shell.beforeContent).toMatch(/<main id="main" class="wrap">\s*$/);
    expect(shell.afterContent).toMatch(/^\s*<\/main>/);
    expect(shell.afterContent).toContain('<footer class="site-footer">');
    expect(shell.beforeContent + shell.afterContent).not.toContain('<estate-listing');
  });
});
