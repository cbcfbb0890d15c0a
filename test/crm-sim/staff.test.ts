import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseCrmWebhook } from '../../server/crm/events.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, control, manualClock, startWebhookReceiver, type WebhookReceiver } from './helpers.ts';

/** The demo's simulator: the default seed and listing count, two agencies on the key. */
const clock = manualClock('2026-03-02T03:00:00Z');
let sim: RunningSimulator;
let call: ReturnType<typeof apiClient>;
let receiver: WebhookReceiver | undefined;

beforeAll(async () => {
  sim = await startSimulator({ listings: 40, seed: 1, now: clock.now, requestsPerSecond: 10_000, agencies: 2 });
  call = apiClient(sim);
});
afterAll(() => sim.close());
afterEach(async () => {
  await control(sim, '/reset', { method: 'POST' });
  sim.state.webhooks.configure({ url: null });
  receiver?.close();
  receiver = undefined;
});

interface User {
  id: number;
  firstName: string;
  lastName: string;
  position: string | null;
  showOnWeb: boolean;
  profile: string | null;
  photo: { original: string; thumb_360: string } | null;
  phoneNumbers: { number: string; typeCode: string }[];
  hideMobileFromPortal: boolean;
}

async function usersOf(token?: string): Promise<User[]> {
  const page = await call<{ items: User[] }>('/account/users?pagesize=100', token ? { token } : {});
  expect(page.status).toBe(200);
  return page.body.items;
}

/** The user ids a listing list names in contactStaff, over every page. */
async function staffNamed(path: string, token?: string): Promise<Set<number>> {
  const named = new Set<number>();
  for (let page = 1; ; page++) {
    const answer = await call<{ items: { contactStaff: { id: number }[] }[]; totalPages: number }>(`${path}?pagesize=100&page=${page}`, token ? { token } : {});
    for (const item of answer.body.items) for (const staff of item.contactStaff) named.add(staff.id);
    if (page >= answer.body.totalPages) return named;
  }
}

const LISTS = [
  '/properties/residential/sale',
  '/properties/residential/lease',
  '/properties/commercial/sale',
  '/properties/commercial/lease',
  '/properties/land/sale',
  '/properties/rural/sale',
];

async function everyNamedStaff(token?: string): Promise<Set<number>> {
  const all = new Set<number>();
  for (const list of LISTS) for (const id of await staffNamed(list, token)) all.add(id);
  return all;
}

describe('CRM simulator: staff as a real account has them', () => {
  it('gives every public agent a real position and a profile as agencies type them: editor HTML, pasted HTML with a script, plain text, none', async () => {
    const users = await usersOf();
    const publicUsers = users.filter((user) => user.showOnWeb);
    expect(publicUsers.length).toBeGreaterThanOrEqual(9);
    for (const user of publicUsers) {
      expect(user.position, `${user.firstName}'s position`).toMatch(/^[A-Z][A-Za-z&,' ]{4,}$/);
      expect(user.photo, `${user.firstName}'s photo`).not.toBeNull();
    }
    const profiles = publicUsers.map((user) => user.profile);
    const html = profiles.filter((text): text is string => text !== null && /<[a-z][^>]*>/i.test(text));
    const plain = profiles.filter((text): text is string => text !== null && !/<[a-z][^>]*>/i.test(text));
    expect(html.some((text) => /<ul>.*<li>/s.test(text) && /<p>/.test(text))).toBe(true);
    expect(html.some((text) => /<script>/.test(text) && /style="/.test(text))).toBe(true);
    expect(html.some((text) => /&amp;|&#39;|&nbsp;/.test(text))).toBe(true);
    expect(plain.some((text) => /\r\n/.test(text))).toBe(true);
    expect(plain.some((text) => /&#x2022;/.test(text))).toBe(true);
    expect(profiles).toContain(null);
    // Filled in per agency: no template word left, no placeholder text.
    for (const text of [...html, ...plain]) expect(text).not.toMatch(/\{(first|agency|domain)\}|lorem|placeholder|TODO/i);
  });

  it('has a public agent with no listings, a hidden agent with listings, and back-office users; every public lister is on a listing', async () => {
    const users = await usersOf();
    const named = await everyNamedStaff();
    const publicWithout = users.filter((user) => user.showOnWeb && !named.has(user.id));
    expect(publicWithout.map((user) => user.position)).toEqual(expect.arrayContaining(['Auctioneer']));
    expect(users.some((user) => !user.showOnWeb && named.has(user.id))).toBe(true);
    const backOffice = users.filter((user) => !user.showOnWeb && !named.has(user.id));
    expect(backOffice.map((user) => user.position)).toEqual(expect.arrayContaining(['Office Administrator']));
    // The public listers of the demo: each has a current listing.
    const current = new Set<number>();
    for (const list of LISTS) for (const id of await staffNamed(`${list}/available`)) current.add(id);
    for (const user of users.filter((each) => each.showOnWeb && named.has(each.id)))
      expect(current.has(user.id), `${user.firstName} has a current listing`).toBe(true);
  });

  it('shows a sold or leased result for the agents the seed allows: the principal co-listed a sale', async () => {
    const sold = await call<{ items: { contactStaff: { id: number }[] }[] }>('/properties/residential/sale/sold?pagesize=100');
    const leased = await call<{ items: { contactStaff: { id: number }[] }[] }>('/properties/residential/lease?status=management&pagesize=100');
    const withResults = new Set([...sold.body.items, ...leased.body.items].flatMap((item) => item.contactStaff.map((staff) => staff.id)));
    const users = await usersOf();
    const byName = (first: string) => users.find((user) => user.firstName === first)!.id;
    // Margaret Kowalski had none of her own in this seed; Daniel Fitzgerald neither (a leased home).
    expect(withResults.has(byName('Margaret'))).toBe(true);
    expect(withResults.has(byName('Daniel'))).toBe(true);
  });

  it('draws each portrait as a real JPEG of its own, with its thumbnail', async () => {
    const everyone = await usersOf();
    // Every agent on the web has a portrait (only back-office staff may have none).
    const withoutPhoto = everyone.filter((user) => user.showOnWeb && !user.photo).map((user) => user.firstName);
    expect(withoutPhoto, 'agents shown on the web without a portrait').toEqual([]);
    const users = everyone.filter((user) => user.photo);
    expect(users.length, 'staff with a portrait').toBeGreaterThan(0);
    const hashes = new Set<string>();
    for (const user of users) {
      const original = await fetch(user.photo!.original);
      expect(original.headers.get('content-type')).toBe('image/jpeg');
      const bytes = Buffer.from(await original.arrayBuffer());
      expect(await sharp(bytes).metadata()).toMatchObject({ format: 'jpeg', width: 600, height: 800 });
      const thumb = Buffer.from(await (await fetch(user.photo!.thumb_360)).arrayBuffer());
      expect((await sharp(thumb).metadata()).width).toBe(360);
      hashes.add(bytes.toString('base64').slice(200, 600));
    }
    expect(hashes.size).toBe(users.length);
  });

  it('gives the second agency people of its own, with the same variety', async () => {
    const [, second] = sim.key.accounts;
    const first = await usersOf();
    const others = await usersOf(second!.options.accessToken);
    expect(others).toHaveLength(first.length);
    const names = new Set(first.map((user) => `${user.firstName} ${user.lastName}`));
    for (const user of others) expect(names.has(`${user.firstName} ${user.lastName}`)).toBe(false);
    expect(new Set(others.map((user) => user.photo?.original.split('/').pop())).size).toBe(others.length);
    const profiles = others.filter((user) => user.showOnWeb).map((user) => user.profile);
    expect(profiles.some((text) => text !== null && /<script>/.test(text))).toBe(true);
    expect(profiles.some((text) => text !== null && /\r\n/.test(text) && !/</.test(text))).toBe(true);
    expect(profiles.some((text) => text?.includes(second!.agency.name))).toBe(true);
    for (const user of others.filter((each) => each.profile)) {
      expect(user.profile).not.toMatch(/\{(first|agency|domain)\}/);
      expect(user.profile).not.toContain('Harbour & Yarra');
    }
  });
});

describe('CRM simulator: a staff member leaves (DELETE /__sim/users/:id)', () => {
  it('takes them off the account, keeps them on their listings, and announces user.delete', async () => {
    receiver = await startWebhookReceiver();
    sim.state.webhooks.configure({ url: receiver.url });
    const users = await usersOf();
    const james = users.find((user) => user.firstName === 'James')!;
    const before = await call<{ items: { id: number; modified: string; contactStaff: { id: number; firstName?: string }[] }[] }>(
      '/properties/residential/sale?pagesize=100',
    );
    const his = before.body.items.filter((item) => item.contactStaff.some((staff) => staff.id === james.id));
    expect(his.length).toBeGreaterThan(0);

    const removed = await control<{ ok: boolean; removed: number; stillNamedBy: number[] }>(sim, `/users/${james.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ ok: true, removed: james.id });
    expect(removed.body.stillNamedBy).toEqual(expect.arrayContaining(his.map((item) => item.id)));

    expect((await usersOf()).map((user) => user.id)).not.toContain(james.id);
    expect((await call(`/account/users/${james.id}`)).status).toBe(404);
    // Their listings still name them, unchanged (their full record, as on homes), and their portrait still loads.
    const after = await call<{ items: { id: number; modified: string; contactStaff: { id: number; firstName?: string }[] }[] }>(
      '/properties/residential/sale?pagesize=100',
    );
    for (const listing of his) {
      const now = after.body.items.find((item) => item.id === listing.id)!;
      expect(now.modified).toBe(listing.modified);
      expect(now.contactStaff.find((staff) => staff.id === james.id)).toMatchObject({ firstName: 'James' });
    }
    expect((await fetch(james.photo!.original)).status).toBe(200);
    // An enquiry to them is refused as for an unknown user.
    const enquiry = await call('/enquiries', {
      method: 'POST',
      body: { fullName: 'Ann Buyer', email: 'ann@example.org', userId: james.id, source: 'OFFICEWEBSITE' },
    });
    expect(enquiry.status).toBe(400);

    const events = await call<{ items: { type: string; action: string; data: { id: number } }[] }>('/eventStream?eventsSince=2026-03-01T00:00:00Z');
    expect(events.body.items.at(-1)).toMatchObject({ type: 'user', action: 'delete', data: { id: james.id } });
    await sim.state.webhooks.settled();
    const delivered = receiver.received.map((post) => JSON.parse(post.body.toString('utf8')) as { event: string; data: { id: number }; itemBodies: unknown[] });
    expect(delivered.at(-1)).toMatchObject({ event: 'user.delete', data: { id: james.id }, itemBodies: [] });
    // The relay reads it as a staff change.
    expect(parseCrmWebhook(receiver.received.at(-1)!.body, clock.now().getTime())).toMatchObject({ kind: 'staff', name: 'user.delete', id: james.id });

    // Again, or an unknown id: 404 naming why; reset brings them back.
    const again = await control<{ error: string }>(sim, `/users/${james.id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.body.error).toMatch(/already left/);
    expect((await control(sim, '/users/999', { method: 'DELETE' })).status).toBe(404);
    expect((await control(sim, '/users/abc', { method: 'DELETE' })).status).toBe(404);
    await control(sim, '/reset', { method: 'POST' });
    expect((await usersOf()).map((user) => user.id)).toContain(james.id);
  });

  it('removes from the account named by ?account=, not the first', async () => {
    const [first, second] = sim.key.accounts;
    const theirs = second!.users[0]!;
    expect((await control(sim, `/users/${theirs.id}?account=${second!.accountId}`, { method: 'DELETE' })).status).toBe(200);
    expect(second!.user(theirs.id)).toBeUndefined();
    expect(first!.users).toHaveLength(13);
    expect((await control(sim, `/users/${first!.users[0]!.id}?account=${second!.accountId}`, { method: 'DELETE' })).status).toBe(404);
  });
});
