// The simulator's mail catcher (a real SMTP server on loopback: smtp-server, mailparser), its
// GET /__sim/mail, and the back office at GET /__sim/ (mail, contacts, holding area), in Chromium
// with axe at a phone's and a desktop's width.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { launchChromium } from '../support/browser.ts';
import { startMailCatcher } from '../support/smtp.ts';
import { apiClient, manualClock } from './helpers.ts';

const clock = manualClock('2025-03-14T02:00:00.000Z');
let sim: RunningSimulator;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  sim = await startSimulator({ listings: 20, seed: 11, now: clock.now, requestsPerSecond: 10_000 });
  call = apiClient(sim);
});
afterAll(() => sim.close());

function send(url: string, message: SendMailOptions) {
  const transport = nodemailer.createTransport({ url, auth: { user: 'anyone', pass: 'anything' } } as never);
  return transport.sendMail({ from: 'Harbour & Yarra Property <alerts@agency.example>', ...message }).finally(() => transport.close());
}

describe('mail catcher', () => {
  it('receives a nodemailer message over SMTP (any login) and keeps it parsed: from, envelope recipients, subject, text, html, links', async () => {
    expect(sim.mail.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    await send(sim.mail.url, {
      to: 'casey@buyer.example',
      subject: 'Confirm your alerts: Kew, 3+ bedrooms',
      text: 'Confirm here: https://relay.example/saved-searches/confirm?token=abc&x=1\nIgnore this if it was not you.',
      html: '<p><a href="https://relay.example/saved-searches/confirm?token=abc&amp;x=1">Confirm</a></p>',
    });
    const mail = await sim.mail.waitFor((caught) => caught.to.includes('casey@buyer.example'), 10_000);
    expect(mail).toMatchObject({
      id: expect.any(Number),
      receivedAt: '2025-03-14T02:00:00.000Z',
      from: 'Harbour & Yarra Property <alerts@agency.example>',
      to: ['casey@buyer.example'],
      subject: 'Confirm your alerts: Kew, 3+ bedrooms',
      text: expect.stringContaining('Ignore this if it was not you.'),
      html: expect.stringContaining('<a href='),
      links: ['https://relay.example/saved-searches/confirm?token=abc&x=1'],
    });
    const listed = await fetch(`${sim.origin}/__sim/mail`).then((response) => response.json());
    expect(listed.url).toBe(sim.mail.url);
    expect(listed.items.at(-1)).toEqual(mail);
  });

  it('refuses a message over its size cap (552) and keeps only the newest few', async () => {
    const small = await startMailCatcher({ maxBytes: 2_000, keep: 2 });
    try {
      const refused = await send(small.url, { to: 'a@buyer.example', subject: 'big', text: 'x'.repeat(10_000) }).catch((error: unknown) => error);
      expect((refused as { responseCode?: number }).responseCode).toBe(552);
      for (const subject of ['one', 'two', 'three']) await send(small.url, { to: 'a@buyer.example', subject, text: subject });
      expect(small.messages().map((mail) => mail.subject)).toEqual(['two', 'three']);
      await expect(small.waitFor((mail) => mail.subject === 'never', 200)).rejects.toThrow(/no matching mail within 200 ms/);
    } finally {
      await small.close();
    }
  });
});

describe('back office (GET /__sim/)', () => {
  let html = '';
  beforeAll(async () => {
    await send(sim.mail.url, {
      to: 'robin@buyer.example',
      subject: 'Please confirm <your> alerts',
      text: 'Follow https://relay.example/confirm/robin to start your alerts.',
    });
    await sim.mail.waitFor((mail) => mail.to.includes('robin@buyer.example'), 10_000);
    const { body: contact } = await call('/contacts', {
      method: 'POST',
      body: { firstName: 'Robin', lastName: 'Buyer', emails: ['robin@buyer.example'], unsubscribe: { email: false, sms: true, letters: true } },
    });
    const listing = sim.state.listings.find((candidate) => candidate.market === 'sale' && candidate.propertyClass === 'residential')!;
    const suburb = (listing.fields as { address: { suburb: { id: number; name: string } } }).address.suburb;
    await call(`/contacts/${contact.id}/requirements`, {
      method: 'POST',
      body: { type: 'sale', suburbs: [{ id: suburb.id }], minimumBed: 3, maximumPrice: 1_500_000 },
    });
    await call('/enquiries', {
      method: 'POST',
      body: {
        enquiryDate: '2025-03-14T12:30:00+11:00',
        subject: 'New alert subscriber: Robin Buyer',
        body: 'Confirm this contact for alerts.',
        originalId: '6f1c2a4e-0d7b-4f7e-9a7e-1b2c3d4e5f61',
        source: 'OFFICEWEBSITE',
        fullName: 'Robin Buyer',
        email: 'robin@buyer.example',
      },
    });
    const response = await fetch(`${sim.origin}/__sim/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    html = await response.text();
  });

  it('shows the mail (newest first, escaped, its links clickable), the contact with its flags and requirement, and the holding area', () => {
    expect(html).toContain('<h2 id="mail-heading">Mail received (');
    expect(html).toContain('Please confirm &lt;your&gt; alerts');
    expect(html).not.toContain('<your>');
    expect(html).toContain('<a href="https://relay.example/confirm/robin">https://relay.example/confirm/robin</a>');
    expect(html.indexOf('Please confirm &lt;your&gt; alerts')).toBeLessThan(html.indexOf('Confirm your alerts: Kew'));
    expect(html).toMatch(/<h4>Robin Buyer<\/h4>[\s\S]*robin@buyer\.example[\s\S]*Unsubscribed from<\/dt><dd>sms, letters/);
    expect(html).toMatch(/Requirements \(1\)[\s\S]*sale · [A-Za-z ]+ · up to \$1,500,000 · 3\+ bed/);
    expect(html).toMatch(/Holding area: enquiries received through the API \(1\)[\s\S]*New alert subscriber: Robin Buyer/);
    expect(html).toContain(`Account ${sim.state.accountId}: `);
  });

  it('in the demo frame (?embed=1) its links open over the whole page', async () => {
    const embedded = await fetch(`${sim.origin}/__sim/?embed=1`).then((response) => response.text());
    expect(embedded).toContain('<a href="https://relay.example/confirm/robin" target="_top">');
  });

  it('is axe clean and readable at 390 and 1280 px in Chromium, with no script', async () => {
    const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const browser = await launchChromium();
    const shots = process.env.SCREENSHOT_DIR;
    if (shots) mkdirSync(shots, { recursive: true });
    try {
      for (const width of [390, 1280]) {
        const page = await browser.newPage({ viewport: { width, height: 900 }, javaScriptEnabled: true });
        await page.goto(`${sim.origin}/__sim/`);
        expect(await page.locator('script').count()).toBe(0);
        // Nothing wider than the screen: the page scrolls down only.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await page.addScriptTag({ content: axeSource });
        const violations = await page.evaluate(async () => {
          const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }).axe.run();
          return result.violations.map((violation) => `${violation.id} (${violation.nodes.length})`);
        });
        expect(violations).toEqual([]);
        if (shots) await page.screenshot({ path: join(shots, `sim-back-office-${width}.png`), fullPage: true });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});
