// Demo mode shows the whole alerts loop: the agency's mail goes to the embedded simulator's mail
// catcher (SMTP_URL unset), the relay frames the simulator's back office at /demo/back-office, and
// the demo site's /alerts.html puts the search (its "Get alerts" form) beside it, linked from the
// home page. In Chromium with axe at a phone's and a desktop's width.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWidgetBundle, launchChromium } from '../support/browser.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

let relay: TestRelay;
let widgetDir: string;

beforeAll(async () => {
  widgetDir = await buildWidgetBundle();
  relay = await startTestRelay({ SIM_LISTINGS: '8', PHOTO_WIDTHS: '240' }, { app: { widgetDir } });
}, 180_000);
afterAll(async () => {
  await relay?.close();
  if (widgetDir) rmSync(widgetDir, { recursive: true, force: true });
});

describe('demo: property alerts, step by step', () => {
  it("sends the agency's mail through the simulator's catcher, under the demo agency's name", async () => {
    expect(relay.simulator!.mailUrl).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    expect(relay.mailer?.describe).toBe(relay.simulator!.mailUrl);
    await relay.mailer!.send({
      to: 'newcomer@buyer.example',
      subject: 'Confirm your property alerts',
      text: `Follow ${relay.url}/listings/buy to confirm.`,
    });
    const mail = await until(async () => {
      const listed = (await (await fetch(`${relay.simulator!.origin}/__sim/mail`)).json()) as { items: Array<{ subject: string; from: string }> };
      return listed.items.find((item) => item.subject === 'Confirm your property alerts');
    });
    expect(mail.from).toBe('Harbour & Yarra Property <alerts@agency.example>');
  });

  it('frames the back office from its own origin, its links opening over the whole page', async () => {
    const response = await fetch(`${relay.url}/demo/back-office`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toContain('Confirm your property alerts');
    expect(html).toContain(`<a href="${relay.url}/listings/buy" target="_top">`);
    expect(html).toMatch(/Holding area: enquiries received through the API/);
  });

  it('the home page links to /alerts.html, which holds the search and the framed back office', async () => {
    expect(await (await fetch(`${relay.url}/`)).text()).toContain('<a href="/alerts.html">Property alerts, step by step</a>');
    const page = await fetch(`${relay.url}/alerts.html`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<estate-listings[^>]*\sfilters/);
    expect(html).toMatch(/<iframe[^>]*src="\/demo\/back-office"/);
  });

  it('in Chromium: the frame shows the mail under the relay CSP, axe clean, no wider than the screen at 390 and 1280 px', async () => {
    const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const shots = process.env.SCREENSHOT_DIR;
    if (shots) mkdirSync(shots, { recursive: true });
    const browser = await launchChromium();
    try {
      for (const width of [390, 1280]) {
        const page = await browser.newPage({ viewport: { width, height: 1000 } });
        const problems: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        await page.goto(`${relay.url}/alerts.html`);
        const frame = page.frameLocator('iframe.back-office');
        await frame.getByRole('heading', { name: 'Confirm your property alerts' }).waitFor({ timeout: 30_000 });
        await page
          .locator('estate-listings')
          .getByRole('button', { name: /Get alerts/ })
          .waitFor({ timeout: 30_000 });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        // Through the debugger, not a <script>: the relay's CSP (script-src 'self') stays as it is.
        await page.evaluate(axeSource);
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe?: { run(context: unknown): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }).axe;
          if (!axe) return ['axe could not be loaded'];
          const result = await axe.run({ exclude: [['iframe']] });
          return result.violations.map((violation) => `${violation.id} (${violation.nodes.length})`);
        });
        expect(violations).toEqual([]);
        if (shots) await page.screenshot({ path: join(shots, `demo-alerts-${width}.png`), fullPage: true });
        expect(problems.filter((problem) => /Content Security Policy|frame/i.test(problem))).toEqual([]);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
