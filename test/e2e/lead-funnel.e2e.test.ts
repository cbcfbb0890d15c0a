// The lead funnel as people use it (issue 28), on the demo site as `npm start` serves it, with the
// relay's own "too fast to be a person" setting (ENQUIRY_MIN_FILL_MS at its default): the release
// widget bundle, a whole relay in demo mode (embedded CRM simulator, delivery worker), Chromium
// through playwright-core. A form filled by the browser's autofill and sent half a second after it
// opened, a registration sent a second after "Register", a reload and send again, a double click,
// the same lead from two tabs: each reaches the CRM's holding area exactly once, under a subject
// that names the place.
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page as ListingsPage } from '../../contract/relay-api.ts';
import { outboxStatus } from '../../server/enquiries/outbox.ts';
import { startDemoSiteRig, watchedPage, type DemoSiteRig } from '../support/browser.ts';
import type { TestRelay } from '../support/relay-fixture.ts';

interface HeldLead {
  originalId: string | null;
  subject: string | null;
  personEmails: string[];
}

const SARAH = { id: 450102, card: 'Sarah Nguyen', opener: 'Message Sarah' };

let rig: DemoSiteRig;
let relay: TestRelay;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  // The relay's defaults for what looks like a robot: nothing lowered for the test's robot.
  rig = await startDemoSiteRig({ relayEnv: {} });
  relay = rig.relay;
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

beforeEach(async () => {
  ({ context, page, problems } = await watchedPage(rig.browser, { viewport: { width: 1280, height: 900 } }));
  context.setDefaultTimeout(15_000);
});

afterEach(async () => {
  await context?.close();
});

let people = 0;
/** A person of their own for each test, so the holding area's entries can be told apart. */
function newPerson() {
  people += 1;
  return {
    fullName: `Alex Funnel${String.fromCharCode(64 + people)}`,
    email: `alex.funnel.${people}.${Date.now().toString(36)}@example.org`,
    mobile: '0412 555 019',
    message: `We would like to see the home this weekend (${people}).`,
  };
}
type Person = ReturnType<typeof newPerson>;

async function holdingArea(): Promise<HeldLead[]> {
  const response = await fetch(`${relay.simulator!.origin}/__sim/enquiries`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: HeldLead[] }).items;
}

/** Every lead in the holding area from this person's address. */
async function heldFrom(person: Person): Promise<HeldLead[]> {
  return (await holdingArea()).filter((item) => item.personEmails.some((email) => email.toLowerCase() === person.email.toLowerCase()));
}

/**
 * Waits until the relay has nothing left to send (every lead it answered 202 for is delivered or
 * set aside) and the holding area has at least one lead from this person, then returns them all:
 * a second copy would have arrived by then.
 */
async function settledLeadsFrom(person: Person): Promise<HeldLead[]> {
  let held: HeldLead[] = [];
  await expect
    .poll(
      async () => {
        held = await heldFrom(person);
        return held.length > 0 && outboxStatus(relay.store).queued === 0;
      },
      { timeout: 45_000, interval: 250 },
    )
    .toBe(true);
  return held;
}

/** The browser's autofill: every field filled at once, no key pressed. */
async function autofill(form: Locator, person: Person, withMessage = true): Promise<void> {
  await form.getByRole('textbox', { name: 'Full name' }).fill(person.fullName);
  await form.getByRole('textbox', { name: 'Email' }).fill(person.email);
  await form.getByRole('textbox', { name: /^Mobile/ }).fill(person.mobile);
  if (withMessage) await form.getByRole('textbox', { name: 'Message', exact: true }).fill(person.message);
  const consent = form.getByRole('checkbox');
  if ((await consent.count()) > 0) await consent.check();
}

async function openContactForm(target: Page = page): Promise<Locator> {
  await target.goto(`${relay.url}/contact`);
  await target.waitForFunction(() => customElements.get('estate-enquiry') !== undefined);
  const card = target.locator('li.agent', { hasText: SARAH.card });
  await card.getByText(SARAH.opener).click();
  const form = card.locator(`estate-enquiry[agent-id="${SARAH.id}"]`);
  await form.getByLabel('Full name').waitFor();
  return form;
}

/** Presses Send and resolves with the originalId the relay accepted. */
async function send(form: Locator, target: Page = page, button = 'Send enquiry'): Promise<string> {
  const accepted = target.evaluate(
    () => new Promise<string>((resolve) => document.addEventListener('estate-lead-sent', (event) => resolve(event.detail.originalId), { once: true })),
  );
  await form.getByRole('button', { name: button }).click();
  return accepted;
}

async function listingWithOpenHome(): Promise<ListingDetail> {
  const listings = (await (await fetch(`${relay.url}/api/v1/listings?pageSize=40`)).json()) as ListingsPage<ListingSummary>;
  for (const item of listings.items) {
    const listing = (await (await fetch(`${relay.url}/api/v1/listings/${item.id}`)).json()) as ListingDetail;
    if (listing.status === 'available' && listing.openHomes.some((openHome) => Date.parse(openHome.start) > Date.now())) return listing;
  }
  throw new Error('The demo has no listing with an open home still to come.');
}

describe('every lead reaches an agent, once, and reads right (demo site, default robot checks)', () => {
  it('a form filled by autofill and sent 0.5 s after it opened reaches the agent', async () => {
    const person = newPerson();
    const form = await openContactForm();
    await autofill(form, person);
    await page.waitForTimeout(500);
    const originalId = await send(form);
    const held = await settledLeadsFrom(person);
    expect(held.map((lead) => lead.originalId)).toEqual([originalId]);
    expect(problems).toEqual([]);
  }, 90_000);

  it('an open-home registration sent 1 s after "Register" reaches the agent once, its subject naming the address, day and time', async () => {
    const listing = await listingWithOpenHome();
    const person = newPerson();
    await page.goto(`${relay.url}/listing?id=${listing.id}`);
    const detail = page.locator('estate-listing');
    const register = detail.locator('[part~="register-button"]').first();
    await register.click();
    const form = detail.locator('estate-open-home-registration');
    await form.getByLabel('Full name').waitFor();
    await autofill(form, person, false);
    await page.waitForTimeout(1_000);
    const originalId = await send(form, page, 'Register');
    const held = await settledLeadsFrom(person);
    expect(held.map((lead) => lead.originalId)).toEqual([originalId]);
    const subject = held[0]!.subject ?? '';
    expect(subject).toContain(listing.address.suburb!);
    expect(subject).toMatch(/(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day/);
    expect(subject).toMatch(/\d{1,2}(:\d{2})?\s?(am|pm)/i);
    expect(problems).toEqual([]);
  }, 90_000);

  it('a reload and the same enquiry sent again gives one lead', async () => {
    const person = newPerson();
    let form = await openContactForm();
    await autofill(form, person);
    const first = await send(form);
    await page.reload();
    form = await openContactForm();
    await autofill(form, person);
    await send(form);
    const held = await settledLeadsFrom(person);
    expect(held.map((lead) => lead.originalId)).toEqual([first]);
    expect(problems).toEqual([]);
  }, 90_000);

  it('a double click sends one lead', async () => {
    const person = newPerson();
    const form = await openContactForm();
    await autofill(form, person);
    const accepted = page.evaluate(
      () => new Promise<string>((resolve) => document.addEventListener('estate-lead-sent', (event) => resolve(event.detail.originalId), { once: true })),
    );
    await form.getByRole('button', { name: 'Send enquiry' }).dblclick();
    const originalId = await accepted;
    const held = await settledLeadsFrom(person);
    expect(held.map((lead) => lead.originalId)).toEqual([originalId]);
    expect(problems).toEqual([]);
  }, 90_000);

  it('the same enquiry from two tabs gives one lead', async () => {
    const person = newPerson();
    const other = await context.newPage();
    const [formA, formB] = [await openContactForm(page), await openContactForm(other)];
    await autofill(formA, person);
    await autofill(formB, person);
    const [a, b] = await Promise.all([send(formA, page), send(formB, other)]);
    const held = await settledLeadsFrom(person);
    expect(held).toHaveLength(1);
    expect([a, b]).toContain(held[0]!.originalId);
  }, 90_000);
});
