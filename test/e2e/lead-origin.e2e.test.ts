// Where leads come from (issue 22), on the demo site as `npm start` serves it: the release widget
// bundle, a whole relay in demo mode (embedded CRM simulator, delivery worker) under its strict CSP,
// Chromium through playwright-core. A visitor lands from a campaign, moves to other pages of the
// site, searches, opens a listing and sends an enquiry: the demo's pages push each step to
// window.dataLayer (never what the visitor typed), and the lead reaches the CRM's holding area with
// the page it was sent from and the landing page's campaign in its metaData.
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSiteRig, watchedPage, type DemoSiteRig } from '../support/browser.ts';
import type { TestRelay } from '../support/relay-fixture.ts';

interface HeldEnquiry {
  originalId: string | null;
  received: { metaData: Array<{ key: string; value: string }>; userId: number | null };
}

let rig: DemoSiteRig;
let relay: TestRelay;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  rig = await startDemoSiteRig();
  relay = rig.relay;
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

beforeEach(async () => {
  ({ context, page, problems } = await watchedPage(rig.browser));
  context.setDefaultTimeout(15_000);
});

afterEach(async () => {
  await context?.close();
});

const visitor = {
  fullName: 'Tamsin Achterberg',
  email: 'tamsin.achterberg@example.org',
  mobile: '0421 906 337',
  message: 'We would love a second look at the courtyard before the auction.',
};

/** Names each piece of what the visitor typed that appears in any string (or key) of the value. */
function personalDataIn(value: unknown): string[] {
  const strings: string[] = [];
  const walk = (item: unknown): void => {
    if (typeof item === 'string' || typeof item === 'number') strings.push(String(item));
    else if (Array.isArray(item)) item.forEach(walk);
    else if (item && typeof item === 'object')
      for (const [key, inner] of Object.entries(item)) {
        strings.push(key);
        walk(inner);
      }
  };
  walk(value);
  const checks: Array<[string, (text: string) => boolean]> = [
    ['name', (text) => /tamsin|achterberg/i.test(text)],
    ['e-mail', (text) => text.toLowerCase().includes('tamsin.achterberg@')],
    ['phone', (text) => text.replace(/\D/g, '').includes('421906337')],
    ['message', (text) => /courtyard|second look/i.test(text)],
  ];
  return checks.filter(([, check]) => strings.some(check)).map(([what]) => what);
}

const dataLayer = (): Promise<Array<Record<string, unknown>>> =>
  page.evaluate(() => (window as unknown as { dataLayer?: Array<Record<string, unknown>> }).dataLayer ?? []);
const eventsPushed = async () => (await dataLayer()).filter((entry) => 'event' in entry).map((entry) => entry.event);

async function waitForHolding(originalId: string): Promise<HeldEnquiry> {
  for (const deadline = Date.now() + 20_000; ;) {
    const items = ((await (await fetch(`${relay.simulator!.origin}/__sim/enquiries`)).json()) as { items: HeldEnquiry[] }).items;
    const held = items.filter((item) => item.originalId === originalId);
    if (held.length > 0) {
      expect(held).toHaveLength(1);
      return held[0]!;
    }
    if (Date.now() > deadline) throw new Error(`The holding area never received ${originalId}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Fills the visible fields of a form and sends it; resolves with the lead's originalId. */
async function sendEnquiry(form: Locator): Promise<string> {
  await form.getByRole('textbox', { name: 'Full name' }).fill(visitor.fullName);
  await form.getByRole('textbox', { name: 'Email' }).fill(visitor.email);
  await form.getByRole('textbox', { name: /^Mobile/ }).fill(visitor.mobile);
  await form.getByRole('textbox', { name: 'Message', exact: true }).fill(visitor.message);
  const consent = form.getByRole('checkbox');
  if ((await consent.count()) > 0) await consent.check();
  const sent = page.evaluate(
    () => new Promise<string>((resolve) => document.addEventListener('estate-lead-sent', (event) => resolve(event.detail.originalId), { once: true })),
  );
  await form.getByRole('button', { name: 'Send enquiry' }).click();
  return sent;
}

const metaValue = (held: HeldEnquiry, key: string) => held.received.metaData.find((entry) => entry.key === key)?.value;

describe('where leads come from, on the demo site', () => {
  it('lands from a campaign, searches, views a listing and enquires: dataLayer in order, the lead with its page and campaign', async () => {
    // The landing page: a newsletter link to the home page.
    await page.goto(`${relay.url}/?utm_source=newsletter&utm_medium=email&utm_campaign=spring-open-homes&utm_content=hero`);
    await page.locator('estate-listings').locator('[part~="card-link"]').first().waitFor();

    // Another page of the site: the buy page, with its filter bar. A search.
    await page.goto(`${relay.url}/buy`);
    const grid = page.locator('estate-listings');
    await grid.locator('[part~="card-link"]').first().waitFor();
    await grid.getByLabel('Bedrooms').selectOption('2');
    await grid.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(eventsPushed).toEqual(['search']);
    expect((await dataLayer())[0]).toMatchObject({ event: 'search', search_term: 'type: sale, minBeds: 2, sort: newest' });

    // A listing, on its own page (rendered by the relay, then by the elements).
    const card = grid.locator('[part~="card-link"]').first();
    const listingId = Number(await card.getAttribute('data-id'));
    await card.click();
    await page.waitForURL(/\/listings\/\d+\//);
    const listingPage = new URL(page.url());
    await expect.poll(eventsPushed).toEqual(['view_item']);
    const viewed = (await dataLayer()).find((entry) => entry.event === 'view_item')!;
    expect(viewed).toMatchObject({ ecommerce: { items: [{ item_id: String(listingId), item_category: 'sale' }] } });

    // The enquiry on that listing.
    const form = page.locator('estate-listing').locator('estate-enquiry');
    const originalId = await sendEnquiry(form);
    await expect.poll(eventsPushed).toEqual(['view_item', 'generate_lead']);
    const pushed = await dataLayer();
    expect(pushed.find((entry) => entry.event === 'generate_lead')).toMatchObject({ lead_type: 'enquiry', lead_id: originalId, listing_id: listingId });
    expect(personalDataIn(pushed), 'what the visitor typed, in window.dataLayer').toEqual([]);

    // The CRM's holding area: the lead names the listing page and the campaign the visit began with.
    const held = await waitForHolding(originalId);
    expect(metaValue(held, 'page')).toBe(`${listingPage.origin}${listingPage.pathname}`);
    expect(metaValue(held, 'utm_source')).toBe('newsletter');
    expect(metaValue(held, 'utm_medium')).toBe('email');
    expect(metaValue(held, 'utm_campaign')).toBe('spring-open-homes');
    expect(metaValue(held, 'utm_content')).toBe('hero');
    expect(metaValue(held, 'utm_term')).toBeUndefined();
    expect(problems).toEqual([]);
  }, 90_000);

  it('a contact-me lead from the contact page, reached through the site menu, keeps the first campaign of the visit', async () => {
    await page.goto(`${relay.url}/listings/rent?utm_source=google&utm_medium=cpc&utm_campaign=rentals&utm_term=kew%20rentals`);
    // The campaign is kept once the elements' code runs on the page (a visitor leaving before that leaves no campaign).
    await page.waitForFunction(() => (document.querySelector('estate-listings') as (HTMLElement & { hasUpdated?: boolean }) | null)?.hasUpdated === true);
    // Another campaign's link later in the visit does not replace the first.
    await page.goto(`${relay.url}/?utm_source=facebook`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contact' }).click();
    await page.waitForURL(/\/contact$/);
    const card = page.locator('li.agent').first();
    await card.locator('summary').click();
    const form = card.locator('estate-enquiry');
    const agentId = Number(await form.getAttribute('agent-id'));
    const originalId = await sendEnquiry(form);
    await expect.poll(eventsPushed).toEqual(['generate_lead']);
    const pushed = await dataLayer();
    expect(pushed[0]).toMatchObject({ event: 'generate_lead', lead_type: 'enquiry', lead_id: originalId, agent_id: agentId });
    expect(personalDataIn(pushed)).toEqual([]);

    const held = await waitForHolding(originalId);
    expect(held.received.userId).toBe(agentId);
    expect(metaValue(held, 'page')).toBe(`${relay.url}/contact`);
    expect(held.received.metaData.filter((entry) => entry.key.startsWith('utm_'))).toEqual([
      { key: 'utm_source', value: 'google' },
      { key: 'utm_medium', value: 'cpc' },
      { key: 'utm_campaign', value: 'rentals' },
      { key: 'utm_term', value: 'kew rentals' },
    ]);
    expect(problems).toEqual([]);
  }, 90_000);
});
