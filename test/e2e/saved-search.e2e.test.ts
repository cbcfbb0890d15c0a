// "Get alerts for this search" (issue 21) on the demo's /buy page as `npm start` serves it: the
// release widget bundle (the form's code fetched through widget.js on the first click, integrity
// checked), a whole relay in demo mode (embedded CRM simulator, saved-search worker) under its
// strict CSP, Chromium through playwright-core. A visitor sets a filter, asks for alerts, and the
// CRM holds nothing until the address's owner follows the link e-mailed to them (issue 29: the
// simulator's mail catcher, a real SMTP server on loopback) and presses the page's button; then a
// contact for the address with a requirement equal to the list's filters.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoSiteRig, watchedPage, type DemoSiteRig } from '../support/browser.ts';
import type { TestRelay } from '../support/relay-fixture.ts';
import type { ListingSummary, Page as ListingsPage, PlacementSummary } from '../../contract/relay-api.ts';

interface SimContactView {
  emails: string[];
  firstName: string | null;
  lastName: string | null;
  requirements: Array<{
    type: string;
    minimumBed: number | null;
    minimumPrice: number | null;
    maximumPrice: number | null;
    suburbs: Array<{ id: number; name: string }>;
  }>;
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

async function waitForContact(email: string): Promise<SimContactView> {
  for (const deadline = Date.now() + 30_000; ;) {
    const items = ((await (await fetch(`${relay.simulator!.origin}/__sim/contacts`)).json()) as { items: SimContactView[] }).items;
    const found = items.filter((contact) => contact.emails.includes(email));
    if (found.length > 0 && found[0]!.requirements.length > 0) {
      expect(found).toHaveLength(1);
      return found[0]!;
    }
    if (Date.now() > deadline) throw new Error(`The CRM never held a contact with a requirement for ${email}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface CaughtMailView {
  to: string[];
  subject: string;
  text: string;
  links: string[];
}

/** The confirmation e-mail to `email`, as the simulator's mail catcher holds it. */
async function confirmationMailTo(email: string): Promise<CaughtMailView> {
  for (const deadline = Date.now() + 30_000; ;) {
    const items = ((await (await fetch(`${relay.simulator!.origin}/__sim/mail`)).json()) as { items: CaughtMailView[] }).items;
    const found = items.find((mail) => mail.to.includes(email));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`No confirmation e-mail reached ${email}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whether the CRM holds any contact for `email` now. */
async function contactExists(email: string): Promise<boolean> {
  const items = ((await (await fetch(`${relay.simulator!.origin}/__sim/contacts`)).json()) as { items: SimContactView[] }).items;
  return items.some((contact) => contact.emails.includes(email));
}

/**
 * What the address's owner does: opens the e-mail's link and presses "Confirm my alerts". Before
 * that, with the worker given time, the CRM holds nothing for the address.
 */
async function confirmAsOwner(email: string): Promise<void> {
  const mail = await confirmationMailTo(email);
  expect(mail.subject).toMatch(/^Confirm your property alerts from /);
  const link = mail.links.find((candidate) => candidate.includes('/alerts/confirm/'))!;
  expect(link.startsWith(relay.url)).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(await contactExists(email)).toBe(false);
  await page.goto(link);
  expect(await contactExists(email)).toBe(false);
  await page.getByRole('button', { name: 'Confirm my alerts' }).click();
  await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/Your alerts are on|your alerts are confirmed/);
}

describe('saved search end to end: demo /buy page → relay → CRM contact and requirement', () => {
  it('sets a filter, gets alerts for the search, and the CRM holds the contact and its requirement', async () => {
    await page.goto(`${relay.url}/buy`);
    const grid = page.locator('estate-listings');
    await grid.locator('[part~="card-link"]').first().waitFor();
    await grid.getByLabel('Bedrooms').selectOption('3');
    await grid.getByRole('button', { name: 'Search', exact: true }).click();

    const alerts = grid.getByRole('button', { name: 'Get alerts for this search' });
    await expect.poll(() => alerts.getAttribute('aria-expanded')).toBe('false');
    await alerts.click();
    const form = grid.locator('estate-saved-search');
    await form.getByRole('textbox', { name: 'Full name' }).waitFor();
    expect(await alerts.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => form.locator('[part~="summary"]').textContent()).toContain('3+ bedrooms');

    await form.getByRole('textbox', { name: 'Full name' }).fill('Odette Vanstone');
    await form.getByRole('textbox', { name: 'Email' }).fill('odette.vanstone@example.org');
    await form.getByRole('textbox', { name: /^Mobile/ }).fill('0421 906 338');
    await form.getByRole('checkbox').check();
    const sent = page.evaluate(
      () =>
        new Promise<{ leadType: string; originalId: string }>((resolve) =>
          document.addEventListener('estate-lead-sent', (event) => resolve(event.detail), { once: true }),
        ),
    );
    await form.getByRole('button', { name: 'Get alerts' }).click();
    const lead = await sent;
    expect(lead.leadType).toBe('saved-search');
    await expect.poll(() => form.getByRole('status').textContent()).toMatch(/inbox|e-?mail/i);

    await confirmAsOwner('odette.vanstone@example.org');
    const contact = await waitForContact('odette.vanstone@example.org');
    expect([contact.firstName, contact.lastName]).toEqual(['Odette', 'Vanstone']);
    expect(contact.requirements).toHaveLength(1);
    expect(contact.requirements[0]).toMatchObject({ type: 'sale', minimumBed: 3, minimumPrice: null, maximumPrice: null });
    expect(problems).toEqual([]);
  }, 90_000);

  it('a map area: the summary names its suburbs, the requirement holds exactly them, and an agent finds the new subscriber in the holding area', async () => {
    // Every listing placed first (demo mode geocodes the rest), so the area's suburbs stay put while the test runs.
    for (const deadline = Date.now() + 60_000; ;) {
      const placement = (await (await fetch(`${relay.url}/api/v1/listings/placement`)).json()) as PlacementSummary;
      if (placement.pending === 0) break;
      if (Date.now() > deadline) throw new Error(`listings still waiting for the geocoder: ${JSON.stringify(placement)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const placed = async (query: string) =>
      ((await (await fetch(`${relay.url}/api/v1/listings?pageSize=100&${query}`)).json()) as ListingsPage<ListingSummary>).items;
    // An area around one placed home for sale with 3+ bedrooms: a few suburbs, not the agency's all.
    const home = (await placed('type=sale&minBeds=3&bbox=-180,-90,180,90'))[0]!;
    const { lat, lng } = home.position!;
    const bbox = [lng - 0.03, lat - 0.02, lng + 0.03, lat + 0.02].map((degrees) => degrees.toFixed(5)).join(',');
    // The suburbs it covers, from the listings the relay shows in it (any status), not from the route under test.
    const expected = new Set<string>();
    for (const status of ['available', 'sold', 'leased']) {
      for (const card of await placed(`status=${status}&bbox=${bbox}`)) if (card.address.suburb) expected.add(card.address.suburb);
    }
    expect(expected.size).toBeGreaterThan(0);
    expect(expected.size).toBeLessThanOrEqual(12);

    await page.goto(`${relay.url}/buy?bbox=${bbox}&minBeds=3`);
    const grid = page.locator('estate-listings');
    await grid.locator('[part~="card-link"]').first().waitFor();
    await grid.getByRole('button', { name: 'Get alerts for this search' }).click();
    const form = grid.locator('estate-saved-search');
    await form.getByRole('textbox', { name: 'Full name' }).waitFor();
    const summary = form.locator('[part~="summary"]');
    await expect.poll(() => summary.textContent()).not.toContain('finding its suburbs');
    const said = (await summary.textContent())!;
    expect(said).toContain('3+ bedrooms');
    for (const suburb of expected) expect(said).toContain(suburb);

    await form.getByRole('textbox', { name: 'Full name' }).fill('Imogen Castellano');
    await form.getByRole('textbox', { name: 'Email' }).fill('imogen.castellano@example.org');
    await form.getByRole('checkbox').check();
    await form.getByRole('button', { name: 'Get alerts' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toMatch(/inbox|e-?mail/i);

    await confirmAsOwner('imogen.castellano@example.org');
    const contact = await waitForContact('imogen.castellano@example.org');
    expect(contact.requirements).toHaveLength(1);
    expect(contact.requirements[0]!.minimumBed).toBe(3);
    const held = contact.requirements[0]!.suburbs.map((suburb) => suburb.name.toLowerCase()).sort();
    expect(held).toEqual([...expected].map((name) => name.toLowerCase()).sort());

    // The agent's view: one holding-area entry for the new subscriber, naming them and what they follow.
    type Note = { subject: string | null; source: string; personEmails: string[] };
    let notes: Note[] = [];
    for (const deadline = Date.now() + 30_000; notes.length === 0;) {
      const items = ((await (await fetch(`${relay.simulator!.origin}/__sim/enquiries`)).json()) as { items: Note[] }).items;
      notes = items.filter((item) => item.personEmails.includes('imogen.castellano@example.org'));
      if (notes.length === 0 && Date.now() > deadline) throw new Error('no holding-area entry for the new subscriber');
      if (notes.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(notes).toHaveLength(1);
    expect(notes[0]!.subject).toMatch(/^New alert subscriber: Imogen Castellano, homes for sale in /);
    for (const suburb of expected) expect(notes[0]!.subject).toContain(suburb);
    expect(problems).toEqual([]);
  }, 120_000);
});
