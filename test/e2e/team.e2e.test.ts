// Issue #31 in Chromium at a phone's and a desktop's width: the demo's Our team page, an agent's
// page reached from it, and a listing page with its similar homes and the homes this browser viewed
// lately (in step across two tabs). The demo as `npm start` serves it: a whole relay in demo mode
// (its simulator's staff and 40 listings), the release widget bundle, its strict CSP. Each page is
// axe clean, shows what the relay's API says, cuts no name, position or price short, and is
// screenshotted (SCREENSHOT_DIR, else a temp folder, printed).
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProfile, ListingDetail, ListingSummary, Page as ListingsPage, SimilarListings, Team } from '../../contract/relay-api.ts';
import { startDemoSiteRig, watchedPage, type DemoSiteRig } from '../support/browser.ts';

const WIDTHS = [390, 1280] as const;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'estate-team-shots-'));
mkdirSync(shots, { recursive: true });

let rig: DemoSiteRig;
let team: Team;
/** The agent whose page is visited: the first of the team with current listings and results, a phone line, a photo and a profile. */
let agent: AgentProfile;
/** Names of the simulator's staff not shown on the web (the back office, the agent hidden from it): never on a page. */
let offWeb: string[];
/** Three current homes for sale: the first has similar homes, the second is one of them and has similar homes too. */
let first: ListingDetail;
let second: ListingDetail;
let third: ListingSummary;

async function json<T>(path: string): Promise<T> {
  const response = await fetch(`${rig.relay.url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  rig = await startDemoSiteRig({ relayEnv: { SIM_LISTINGS: '40', ENQUIRY_MIN_FILL_MS: '0' } });
  team = await json<Team>('/api/v1/team');
  expect(team.items.length).toBeGreaterThan(3);
  const profiles = await Promise.all(team.items.map((member) => json<AgentProfile>(`/api/v1/agents/${member.id}`)));
  // Every public agent of the simulator has a photo and a position; most an office line and a profile.
  agent = profiles.find(
    (profile) => profile.current.length > 0 && profile.results.length > 0 && profile.phone !== null && profile.profile !== null && profile.photo !== null,
  )!;
  expect(agent, 'an agent with current listings, results, a phone line, a photo and a profile').toBeDefined();

  // The simulator's own staff list, read as the relay reads it (GET /account/users with the relay's key and token).
  const { baseUrl } = rig.relay.simulator!;
  const { apiKey, accessToken } = rig.relay.config.crm;
  const users = await fetch(`${baseUrl}/account/users?pagesize=100`, {
    headers: { 'X-Api-Key': apiKey!, Authorization: `Bearer ${accessToken!}`, Accept: 'application/json' },
  });
  expect(users.status, 'GET /account/users').toBe(200);
  const staff = ((await users.json()) as { items: Array<{ firstName: string; lastName: string; showOnWeb: boolean }> }).items;
  offWeb = staff.filter((user) => user.showOnWeb !== true).map((user) => `${user.firstName} ${user.lastName}`);
  expect(offWeb.length, 'staff of the simulator not shown on the web (its back office, an agent hidden from it)').toBeGreaterThan(0);

  const forSale = await json<ListingsPage<ListingSummary>>('/api/v1/listings?type=sale&pageSize=100');
  // A home with similar homes, one of which has similar homes of its own (the second's list is checked too).
  find: for (const item of forSale.items) {
    const similar = await json<SimilarListings>(`/api/v1/listings/${item.id}/similar`);
    for (const next of similar.items) {
      if ((await json<SimilarListings>(`/api/v1/listings/${next.id}/similar`)).items.length === 0) continue;
      first = await json<ListingDetail>(`/api/v1/listings/${item.id}`);
      second = await json<ListingDetail>(`/api/v1/listings/${next.id}`);
      break find;
    }
  }
  expect(first, 'a home for sale with a similar home that has similar homes too').toBeDefined();
  third = forSale.items.find((item) => item.id !== first.id && item.id !== second.id)!;
  console.log(`team e2e screenshots: ${shots}`);
}, 300_000);

afterAll(async () => {
  await rig?.close();
});

/** Every link inside an element's shadow root (and the shadow roots within it), as `pathname + search`. */
function linksIn(element: Locator): Promise<string[]> {
  return element.evaluate((host) => {
    const hrefs: string[] = [];
    const walk = (root: ParentNode) => {
      for (const node of root.querySelectorAll('*')) {
        if (node instanceof HTMLAnchorElement && node.href) hrefs.push(new URL(node.href).pathname + new URL(node.href).search);
        if (node.shadowRoot) walk(node.shadowRoot);
      }
    };
    if (host.shadowRoot) walk(host.shadowRoot);
    return hrefs;
  });
}

/** The text an element shows, its shadow roots included. */
function shownText(element: Locator): Promise<string> {
  return element.evaluate((host) => {
    const parts: string[] = [];
    const walk = (root: Node) => {
      for (const node of root.childNodes) {
        if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent ?? '');
        else if (node instanceof HTMLElement && node.tagName !== 'SCRIPT' && node.tagName !== 'STYLE') {
          if (node.shadowRoot) walk(node.shadowRoot);
          walk(node);
        }
      }
    };
    walk(host.shadowRoot ?? host);
    return parts.join(' ').replace(/\s+/g, ' ');
  });
}

/** Listing ids of the cards an element links to (`/listings/<id>/<slug>`), in order, once each. */
async function listingIdsIn(element: Locator): Promise<number[]> {
  const ids = (await linksIn(element)).map((href) => /^\/listings\/(\d+)\//.exec(href)?.[1]).filter((id): id is string => id !== undefined);
  return [...new Set(ids.map(Number))];
}

/**
 * Names, positions, prices, titles and addresses no narrower than their text: any element of the
 * page's shadow roots whose part says it holds one, laid out as a box, must not scroll sideways.
 */
function cutOffText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const offenders: string[] = [];
    const walk = (root: Document | ShadowRoot) => {
      for (const node of root.querySelectorAll<HTMLElement>('*')) {
        if (node.shadowRoot) walk(node.shadowRoot);
        const part = node.getAttribute('part') ?? '';
        if (!/(^|\s|-)(name|position|price|title|address|heading)(\s|-|$)/.test(part)) continue;
        const style = getComputedStyle(node);
        if (style.display === 'inline' || style.display === 'none' || node.clientWidth === 0) continue;
        if (node.scrollWidth > node.clientWidth + 1) offenders.push(`${part}: "${node.textContent?.trim()}" ${node.scrollWidth} > ${node.clientWidth}`);
      }
    };
    walk(document);
    // A phone number is read, and dialled, whole: never broken over two lines.
    const phones = (root: Document | ShadowRoot): HTMLAnchorElement[] => [
      ...root.querySelectorAll<HTMLAnchorElement>('a[href^="tel:"]'),
      ...[...root.querySelectorAll('*')].flatMap((node) => (node.shadowRoot ? phones(node.shadowRoot) : [])),
    ];
    for (const link of phones(document)) {
      // The text a sighted visitor sees (not words kept for screen readers in a 1 px box), by the lines it sits on.
      const lines = new Set<number>();
      const walker = document.createTreeWalker(link, NodeFilter.SHOW_TEXT);
      for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const parent = text.parentElement!;
        if (!text.textContent?.trim() || parent.getBoundingClientRect().width <= 1) continue;
        const range = document.createRange();
        range.selectNodeContents(text);
        for (const rect of range.getClientRects()) if (rect.width > 0) lines.add(Math.round(rect.bottom));
      }
      if (lines.size > 1) offenders.push(`phone "${link.textContent?.trim()}" on ${lines.size} lines`);
    }
    return offenders;
  });
}

/** axe on the whole page, shadow roots included (run through the debugger: the relay's CSP stays as it is). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const result = await axe.run();
    return result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
  });
}

/** What every page must be: axe clean, nothing wider than the screen, no text cut off; then a screenshot. */
async function checkPage(page: Page, width: number, name: string): Promise<void> {
  // Lazily loaded images and sections below the fold: scroll through once so they are there for the checks.
  await page.evaluate(async () => {
    for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight / 2) {
      window.scrollTo(0, y);
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
    }
    window.scrollTo(0, 0);
  });
  await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name}: no sideways scroll`).toBeLessThanOrEqual(width);
  expect(await cutOffText(page), `${name}: text cut off`).toEqual([]);
  expect(await axeViolations(page), `${name}: axe`).toEqual([]);
}

describe.each(WIDTHS)('at %i px', (width) => {
  const viewport = { width, height: width < 600 ? 844 : 900 };

  it("the team page lists the agency's public people in its order, each linking to their page", async () => {
    const { context, page, problems } = await watchedPage(rig.browser, { viewport });
    await page.goto(`${rig.relay.url}/team`);
    const element = page.locator('estate-team');
    await expect.poll(() => linksIn(element), { timeout: 20_000 }).toEqual(expect.arrayContaining(team.items.map((member) => `/agent?id=${member.id}`)));
    const links = (await linksIn(element)).filter((href) => href.startsWith('/agent?id='));
    // Each person once, in the team's order (a card may link twice: its photo and its name): the
    // demo agency's principal and director first (demo mode's TEAM_ORDER), then by name.
    expect([...new Set(links)]).toEqual(team.items.map((member) => `/agent?id=${member.id}`));
    expect(team.items.slice(0, 2).map((member) => member.position)).toEqual(['Principal & Licensed Estate Agent', 'Director of Sales, Surry Hills']);
    const text = await shownText(element);
    for (const member of team.items) {
      expect(text).toContain(member.name);
      // Every public agent of the simulator has a position.
      expect(member.position, `${member.name}'s position`).toBeTruthy();
      expect(text).toContain(member.position);
    }
    // The simulator's back office and the agent hidden from the web are not on it.
    for (const name of offWeb) expect(text).not.toContain(name);
    expect(await page.locator('nav[aria-label="Main"] a[aria-current="page"]').textContent()).toBe('Our team');
    await checkPage(page, width, 'team');
    expect(problems).toEqual([]);
    await context.close();
  });

  it("an agent's page, from their card: photo, position, phone, profile, current listings and results, a form to them", async () => {
    const { context, page, problems } = await watchedPage(rig.browser, { viewport });
    await page.goto(`${rig.relay.url}/team`);
    const card = page.locator('estate-team').getByRole('link', { name: agent.name }).first();
    await card.click();
    await page.waitForURL(`${rig.relay.url}/agent?id=${agent.id}`);
    const element = page.locator('estate-agent');
    // The page's one h1 is the agent's name.
    await element.getByRole('heading', { name: agent.name, level: 1 }).waitFor({ timeout: 20_000 });
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    const text = await shownText(element);
    expect(agent.position, 'the agent has a position').toBeTruthy();
    expect(text).toContain(agent.position);
    // Click to call: a tel: link to the number the relay gives (its last eight digits, whatever the prefix).
    const calls = await element.evaluate((host) => [...host.shadowRoot!.querySelectorAll('a[href^="tel:"]')].map((link) => link.getAttribute('href')!));
    expect(agent.phone, 'the agent has a phone line').not.toBeNull();
    expect(calls.map((href) => href.replace(/\D/g, '').slice(-8))).toContain(agent.phone!.replace(/\D/g, '').slice(-8));
    expect(agent.photo, 'the agent has a photo').not.toBeNull();
    const photo = element.locator('img').first();
    await photo.evaluate((img: HTMLImageElement) =>
      img.complete ? undefined : new Promise((resolve) => img.addEventListener('load', resolve, { once: true })),
    );
    expect(await photo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
    const profile = agent.profile;
    expect(profile, 'the agent has a profile').not.toBeNull();
    // A text profile's first line is shown; an HTML one is inserted without a script.
    if (profile!.format === 'text') expect(text).toContain(profile!.text.split('\n')[0]!.trim());
    else expect(await element.evaluate((host) => host.shadowRoot!.querySelector('script'))).toBeNull();
    // Their homes and results: exactly those the relay lists for them, as cards.
    await expect.poll(() => listingIdsIn(element), { timeout: 20_000 }).toEqual([...agent.current, ...agent.results].map((item) => item.id));
    // A message to them: the contact form, loaded with the page.
    await element.locator('estate-enquiry').first().waitFor({ timeout: 20_000 });
    await checkPage(page, width, 'agent');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a profile as the CRM gave it: plain text in its paragraphs, pasted Word HTML without its styles or script, none at all', async () => {
    const profiles = await Promise.all(team.items.map((member) => json<AgentProfile>(`/api/v1/agents/${member.id}`)));
    const plain = profiles.find((profile) => profile.profile?.format === 'text' && profile.profile.text.includes('\n\n'))!;
    const pasted = profiles.find((profile) => profile.position?.startsWith('Director'))!;
    const none = profiles.find((profile) => profile.profile === null)!;
    for (const [profile, name] of [
      [plain, 'agent-text'],
      [pasted, 'agent-pasted'],
      [none, 'agent-no-profile'],
    ] as const) {
      expect(profile, name).toBeDefined();
      const { context, page, problems } = await watchedPage(rig.browser, { viewport });
      await page.goto(`${rig.relay.url}/agent?id=${profile.id}`);
      const element = page.locator('estate-agent');
      await element.getByRole('heading', { name: profile.name, level: 1 }).waitFor({ timeout: 20_000 });
      const text = await shownText(element);
      if (profile.profile?.format === 'text') {
        // Each paragraph of the text shown, apart: its blank lines make paragraphs, not one run-on block.
        const paragraphs = profile.profile.text.split(/\n\n+/);
        for (const paragraph of paragraphs) expect(text).toContain(paragraph.split('\n')[0]!.trim());
        const tops = await element.evaluate(
          (host, firsts) =>
            firsts.map((words) => {
              const walker = document.createTreeWalker(host.shadowRoot!, NodeFilter.SHOW_TEXT);
              for (let node = walker.nextNode(); node; node = walker.nextNode())
                if (node.textContent?.includes(words)) return node.parentElement!.getBoundingClientRect().top;
              return null;
            }),
          paragraphs.map((paragraph) => paragraph.slice(0, 30)),
        );
        expect(new Set(tops).size, 'paragraphs on lines of their own').toBe(paragraphs.length);
      }
      if (profile === pasted) {
        const pastedMarkup = await element.evaluate((host) => {
          const about = [...host.shadowRoot!.querySelectorAll('*')].filter((node) => node.matches('[style], script, .MsoNormal, [onclick]'));
          return about.map((node) => node.outerHTML.slice(0, 80));
        });
        expect(pastedMarkup, 'the pasted styles and script left behind').toEqual([]);
        expect(text).toContain('leads the Surry Hills office');
      }
      await checkPage(page, width, name);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('a listing shows similar homes and the homes viewed before it, in step in a second tab', async () => {
    const { context, page, problems } = await watchedPage(rig.browser, { viewport });
    const listingPage = (id: number) => `${rig.relay.url}/listing?id=${id}`;
    const title = (on: Page) => on.locator('estate-listing [part~="title"]');

    await page.goto(listingPage(first.id));
    await expect(title(page).textContent({ timeout: 20_000 })).resolves.toBe(first.address.display);
    // A second tab, on a third home: it shows the first as viewed.
    const tab = await context.newPage();
    await tab.setViewportSize(viewport);
    const tabProblems: string[] = [];
    tab.on('pageerror', (error) => tabProblems.push(error.message));
    await tab.goto(listingPage(third.id));
    await expect(title(tab).textContent({ timeout: 20_000 })).resolves.toBe(third.address.display);
    // Both lists below a listing load once near the viewport (widget.js): scrolled to, as a visitor would.
    await tab.locator('estate-recently-viewed').scrollIntoViewIfNeeded();
    await expect.poll(() => listingIdsIn(tab.locator('estate-recently-viewed')), { timeout: 20_000 }).toEqual([first.id]);

    // The first tab moves on to one of the first's similar homes.
    await page.goto(listingPage(second.id));
    await expect(title(page).textContent({ timeout: 20_000 })).resolves.toBe(second.address.display);
    const similar = await json<SimilarListings>(`/api/v1/listings/${second.id}/similar`);
    expect(similar.items.length, `similar homes of ${second.id}`).toBeGreaterThan(0);
    const similarElement = page.locator('estate-similar-listings');
    await similarElement.scrollIntoViewIfNeeded();
    await expect.poll(() => listingIdsIn(similarElement), { timeout: 20_000 }).toEqual(similar.items.map((item) => item.id));
    expect(await listingIdsIn(similarElement)).not.toContain(second.id);
    // Viewed before it, newest first: the third (in the other tab) and the first; the listing shown is left out.
    await page.locator('estate-recently-viewed').scrollIntoViewIfNeeded();
    await expect.poll(() => listingIdsIn(page.locator('estate-recently-viewed')), { timeout: 20_000 }).toEqual([third.id, first.id]);
    // The other tab follows without a reload: the second, then the first (the third is the one it shows).
    await expect.poll(() => listingIdsIn(tab.locator('estate-recently-viewed')), { timeout: 20_000 }).toEqual([second.id, first.id]);
    expect(await shownText(page.locator('estate-recently-viewed'))).toContain(first.address.display);

    await checkPage(page, width, 'listing-similar');
    await checkPage(tab, width, 'listing-recent');
    expect(problems).toEqual([]);
    expect(tabProblems).toEqual([]);
    await context.close();
    // Two tabs, three listing pages and four lists loaded near the viewport: past 30 s on a busy machine (CI).
  }, 90_000);
});
