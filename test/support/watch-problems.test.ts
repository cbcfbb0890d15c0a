// The browser suites' problem watcher: it must still catch what a page does wrong, and let pass only
// what the test itself cut short by moving to another page.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchProblems } from './browser.ts';

let browser: Browser;
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/slow.png') return; // never answers: the photo is still loading when the test leaves
    if (request.url === '/hang-up') return void request.socket.destroy(); // closes the connection unanswered: a failed request
    if (request.url === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    if (request.url === '/missing.png') {
      response.writeHead(404).end();
      return;
    }
    const pages: Record<string, string> = {
      '/loading': '<!doctype html><title>a</title><img src="/slow.png" alt="">',
      '/other': '<!doctype html><title>b</title>',
      '/broken': '<!doctype html><title>c</title><img src="/missing.png" alt="">',
      // The page itself gives up on a fetch (an answer it no longer wants), and asks for one the server hangs up on.
      '/gives-up': `<!doctype html><title>d</title><script>
        const controller = new AbortController();
        fetch('/slow.png', { signal: controller.signal }).catch(() => {});
        setTimeout(() => controller.abort(), 100);
        setTimeout(() => fetch('/hang-up').catch(() => {}), 200);
      </script>`,
    };
    const page = pages[request.url ?? ''];
    response.writeHead(page ? 200 : 404, { 'content-type': 'text/html' }).end(page ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

describe('watchProblems', () => {
  it('lets pass a request the test cut short by going to another page, and counts the page’s own faults', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${origin}/loading`, { waitUntil: 'domcontentloaded' });
    await page.goto(`${origin}/other`);
    expect(problems).toEqual([]);

    await page.goto(`${origin}/broken`);
    await expect.poll(() => problems).toContain(`404 ${origin}/missing.png`);
    expect(problems.filter((problem) => problem.startsWith('failed:'))).toEqual([]);
    await page.close();
  });

  it('lets pass a fetch the page aborted itself (superseded), and counts one that failed', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${origin}/gives-up`);
    await expect.poll(() => problems.filter((problem) => problem.startsWith(`failed: ${origin}/hang-up `)).length, { timeout: 10_000 }).toBe(1);
    expect(problems.filter((problem) => problem.includes('slow.png'))).toEqual([]);
    await page.close();
  });
});
