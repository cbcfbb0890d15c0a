// From the demo site's contact page to the CRM's holding area, in a real browser: the widget bundle
// as built for release, served by a whole relay (demo mode, embedded CRM simulator, real SQLite
// file, delivery worker running) under its strict Content-Security-Policy, driven by Chromium
// through playwright-core. Asserts what the simulator's holding area received.
import { rmSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildWidgetBundle, launchChromium, watchProblems } from '../support/browser.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

interface SimHoldingItem {
  originalId: string | null;
  subject: string | null;
  body: string | null;
  source: string;
  saleLifeId: number | null;
  leaseLifeId: number | null;
  personEmails: string[];
  personName: string | null;
  user: { id: number } | null;
  received: { fullName: string | null; email: string | null; mobile: string | null; userId: number | null };
}

const SARAH = { id: 450102, card: 'Sarah Nguyen', opener: 'Message Sarah' };
const TOM = { id: 450104, card: 'Tom Caruso', opener: 'Message Tom' };

const MIN_FILL_MS = 1000;

let widgetDir: string;
let relay: TestRelay;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageProblems: string[];

beforeAll(async () => {
  widgetDir = await buildWidgetBundle();

  // The page is filled by a robot, not a person: lower the "too fast to be human" bar so the
  // enquiry is forwarded, but keep it on (fillIn waits at least this long).
  relay = await startTestRelay({ ENQUIRY_MIN_FILL_MS: String(MIN_FILL_MS) }, { app: { widgetDir } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await relay?.close();
  if (widgetDir) rmSync(widgetDir, { recursive: true, force: true });
});

beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  // CSP refusals and script errors surface as console errors and page errors.
  pageProblems = watchProblems(page);
});

afterEach(async () => {
  await context?.close();
});

async function holdingArea(): Promise<SimHoldingItem[]> {
  const response = await fetch(`${relay.simulator!.origin}/__sim/enquiries`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: SimHoldingItem[] }).items;
}

async function waitForHolding(originalId: string, timeoutMs = 20_000): Promise<SimHoldingItem[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const matching = (await holdingArea()).filter((item) => item.originalId === originalId);
    if (matching.length > 0) return matching;
    if (Date.now() > deadline) throw new Error(`The holding area never received ${originalId}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resolves with the originalId of the next accepted enquiry on the page. */
function nextSuccess(): Promise<string> {
  return page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        document.addEventListener('estate-enquiry-success', (event) => resolve(event.detail.originalId), { once: true });
      }),
  );
}

/** When the contact page was last shown: the forms measure elapsedMs from about then. */
let shownAt = 0;

async function openContactPage(): Promise<void> {
  const response = await page.goto(`${relay.url}/contact`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  await page.waitForFunction(() => customElements.get('estate-enquiry') !== undefined);
  shownAt = Date.now();
}

async function openForm(agent: typeof SARAH): Promise<Locator> {
  const card = page.locator('li.agent', { hasText: agent.card });
  await card.getByText(agent.opener).click();
  const form = card.locator(`estate-enquiry[agent-id="${agent.id}"]`);
  await form.getByLabel('Full name').waitFor();
  return form;
}

const person = {
  fullName: 'Priya Raman',
  email: 'priya.raman@example.com',
  mobile: '0412 555 019',
  message: 'Hello Sarah, we are thinking of selling our townhouse in Kew next spring. Could you call me?',
};

async function fillIn(form: Locator, values: typeof person): Promise<void> {
  // The name typed key by key as a visitor would; the rest filled at once (keyboard-only use is
  // the element suite's business, and each key costs a browser round trip on a busy machine).
  await form.getByRole('textbox', { name: 'Full name' }).pressSequentially(values.fullName);
  await form.getByRole('textbox', { name: 'Email' }).fill(values.email);
  await form.getByRole('textbox', { name: /^Mobile/ }).fill(values.mobile);
  await form.getByRole('textbox', { name: 'Message', exact: true }).fill(values.message);
  await form.getByRole('checkbox', { name: /I agree/ }).check();
  // No person sends a form within a second of seeing it; the relay would file this as spam.
  const wait = MIN_FILL_MS + 250 - (Date.now() - shownAt);
  if (wait > 0) await page.waitForTimeout(wait);
}

describe('enquiry end to end: demo contact page → relay → CRM holding area', () => {
  it('delivers a contact-me enquiry from the page to the agent, once, with every field', async () => {
    await openContactPage();
    const form = await openForm(SARAH);
    await fillIn(form, person);

    const accepted = nextSuccess();
    await form.getByRole('button', { name: 'Send enquiry' }).click();
    const originalId = await accepted;
    await form.getByRole('status').filter({ hasText: 'Your enquiry has been sent' }).waitFor();

    const [held, ...duplicates] = await waitForHolding(originalId);
    expect(duplicates).toEqual([]);
    expect(held).toMatchObject({
      originalId,
      subject: 'Contact request from the website',
      body: person.message,
      source: 'OFFICEWEBSITE',
      saleLifeId: null,
      leaseLifeId: null,
      personEmails: [person.email],
      personName: person.fullName,
      user: { id: SARAH.id },
      received: { fullName: person.fullName, email: person.email, userId: SARAH.id },
    });
    expect(held!.received.mobile?.replace(/\D/g, '')).toMatch(/412555019$/);

    // The relay records the delivery once the CRM's answer is in, a moment after the CRM stored it
    // (its status route says only "accepted": its metrics say how many are still queued).
    expect(((await (await fetch(`${relay.url}/api/v1/enquiries/${originalId}`)).json()) as { status: string }).status).toBe('accepted');
    await expect
      .poll(async () => /^estate_enquiry_outbox\{status="queued"\} (\d+)$/m.exec(await (await fetch(`${relay.url}/metrics`)).text())?.[1], { timeout: 10_000 })
      .toBe('0');
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('estate-enquiry:')))).toEqual([]);
    expect(pageProblems).toEqual([]);
  }, 60_000);

  it('keeps an enquiry sent while offline and delivers it once when the page is opened again', async () => {
    await openContactPage();
    const form = await openForm(TOM);
    await fillIn(form, { ...person, message: 'Hi Tom, is the Surry Hills terrace still available?' });

    // The connection drops as the visitor presses Send.
    await context.setOffline(true);
    await form.getByRole('button', { name: 'Send enquiry' }).click();
    await form.getByRole('status').filter({ hasText: 'could not be sent yet' }).waitFor();
    const pending = await page.evaluate(() => {
      const key = Object.keys(localStorage).find((name) => name.startsWith('estate-enquiry:'));
      return key ? (JSON.parse(localStorage.getItem(key)!) as { request: { originalId: string } }) : undefined;
    });
    expect(pending?.request.originalId).toMatch(/^[0-9a-f-]{36}$/);
    const before = (await holdingArea()).filter((item) => item.received.userId === TOM.id).length;

    // The visitor closes the tab; later, back online, they open the page again. The kept
    // enquiry goes out on its own, with the same originalId.
    await page.close();
    await context.setOffline(false);
    page = await context.newPage();
    page.on('pageerror', (error) => pageProblems.push(error.message));
    await openContactPage();
    const originalId = pending!.request.originalId;
    const held = await waitForHolding(originalId);
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ body: 'Hi Tom, is the Surry Hills terrace still available?', user: { id: TOM.id } });
    expect((await holdingArea()).filter((item) => item.received.userId === TOM.id).length).toBe(before + 1);

    // The new page shows the outcome inside the (closed) contact card, and nothing is left pending.
    await page.waitForFunction(() => Object.keys(localStorage).every((key) => !key.startsWith('estate-enquiry:')));
    const reloaded = page.locator(`estate-enquiry[agent-id="${TOM.id}"] [role="status"]`);
    expect(await reloaded.textContent()).toContain('Your enquiry has been sent');
    // Offline fetch failures are logged by Chromium itself; anything else would be a fault.
    expect(pageProblems.filter((problem) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|Failed to load resource/.test(problem))).toEqual([]);
  }, 60_000);
});
