import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../server/runtime/log.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { startAgenciesRig, until, type AgenciesRig, type AgencyFileEntry } from './rig.ts';
import { memoryLogger } from '../crm/support.ts';
import { validEnquiry } from '../enquiries/support.ts';

/*
 * AGENCIES_FILE changed while the relay runs (SIGHUP and `agencies reload` call reload()): an
 * agency added starts, one changed takes its new token and origins, one removed is a 404 at once
 * while the enquiries it had queued are still delivered, and no enquiry is lost on the way.
 */

const enquiry = (listingId: number) => validEnquiry({ listingId });

const saleIdOf = (account: SimulatorState) =>
  account.listings.find(
    (listing) =>
      listing.propertyClass === 'residential' &&
      listing.publishedToWeb !== null &&
      listing.market === 'sale' &&
      ['listing', 'conditional'].includes(listing.status),
  )!.lifeId * 2;

describe('reloading the agencies without a restart', () => {
  let rig: AgenciesRig;
  let a: AgencyFileEntry;
  let b: AgencyFileEntry;
  let c: AgencyFileEntry;

  beforeAll(async () => {
    rig = await startAgenciesRig({
      agencies: 3,
      listings: 10,
      workers: true,
      env: { ENQUIRY_RETRY_BASE_MS: '100', ENQUIRY_RETRY_MAX_MS: '300', ENQUIRY_POLL_MS: '100', ENQUIRY_RECONCILE_DELAY_MS: '0' },
    });
    [a, b, c] = rig.entries as [AgencyFileEntry, AgencyFileEntry, AgencyFileEntry];
    const ready = () => Promise.all(rig.entries.map(async (entry) => (await rig.request(`/a/${entry.slug}/readyz`)).status));
    expect(await until(ready, (statuses) => statuses.every((status) => status === 200), 30_000)).toEqual([200, 200, 200]);
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  const post = (slug: string, body: ReturnType<typeof enquiry>, origin?: string) =>
    rig.request(`/a/${slug}/api/v1/enquiries`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(origin ? { Origin: origin } : {}) },
      body: JSON.stringify(body),
    });
  const delivered = (account: SimulatorState, originalId: string) => account.postedEnquiries().some((posted) => posted.originalId === originalId);

  it('adds, changes and removes agencies at once, and delivers every enquiry queued across the reload', async () => {
    const [accountA, accountB, accountC] = rig.accounts as [SimulatorState, SimulatorState, SimulatorState];
    // B and C cannot take leads for now: their enquiries wait in their outboxes.
    accountB.setFaults([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 503 }]);
    accountC.setFaults([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 503 }]);
    const toB = enquiry(saleIdOf(accountB));
    const toC = enquiry(saleIdOf(accountC));
    expect((await post(b.slug, toB)).status).toBe(202);
    expect((await post(c.slug, toC)).status).toBe(202);

    // The file now: A as it was, B gone, C with another token of its account and another origin, D new.
    const accountD = rig.sim.key.addAccount({ listings: 8 });
    const newTokenOfC = accountC.addToken([...accountC.tokens.get(c.accessToken)!.scopes]).token;
    const changedC = { ...c, accessToken: newTokenOfC, allowedOrigins: ['https://new.agency-c.example'] };
    const d = { slug: 'agency-d', name: accountD.agency.name, accessToken: accountD.options.accessToken, allowedOrigins: ['https://agency-d.example'] };
    const oldC = rig.relay.agencies!.get(c.slug)!;
    rig.writeAgencies([a, changedC, d]);
    const report = await rig.relay.agencies!.reload();
    expect(report).toEqual({ ok: true, added: ['agency-d'], changed: [c.slug], removed: [b.slug] });

    // Removed: a 404 at once, its cached answers no longer replayed.
    expect((await rig.request(`/a/${b.slug}/api/v1/listings`)).status).toBe(404);
    expect((await post(b.slug, enquiry(saleIdOf(accountB)))).status).toBe(404);
    // Changed: the new origin is let in, the old one refused; served by a new composition with the new token.
    expect((await rig.request(`/a/${c.slug}/api/v1/listings`, { headers: { Origin: 'https://new.agency-c.example' } })).status).toBe(200);
    expect((await rig.request(`/a/${c.slug}/api/v1/listings`, { headers: { Origin: c.allowedOrigins![0]! } })).status).toBe(403);
    expect(rig.relay.agencies!.get(c.slug)).not.toBe(oldC);
    // Added: D syncs and serves its own listings.
    expect(
      await until(
        async () => (await rig.request('/a/agency-d/readyz')).status,
        (status) => status === 200,
        20_000,
      ),
    ).toBe(200);
    const listingsOfD = (await rig.request('/a/agency-d/api/v1/listings?pageSize=100')).body.items as Array<{ id: number }>;
    expect(listingsOfD.map((item) => item.id)).toContain(saleIdOf(accountD));
    // The plan was made again for the three agencies served now.
    expect(rig.relay.agencies!.plan!.agencies.map((line) => line.slug)).toEqual([a.slug, c.slug, 'agency-d']);
    // B is still delivering: it is draining, not gone.
    expect(rig.relay.agencies!.drainingAgencies().map((running) => running.entry.slug)).toEqual([b.slug]);

    // An enquiry to the changed agency right after the reload joins the same outbox.
    const toCAfter = enquiry(saleIdOf(accountC));
    expect((await post(c.slug, toCAfter, 'https://new.agency-c.example')).status).toBe(202);

    // The CRM takes leads again: every queued enquiry arrives, each at its own account.
    accountB.clearFaults();
    accountC.clearFaults();
    await until(() => delivered(accountB, toB.originalId) && delivered(accountC, toC.originalId) && delivered(accountC, toCAfter.originalId), Boolean, 20_000);
    expect(delivered(accountB, toB.originalId)).toBe(true);
    expect(delivered(accountC, toC.originalId)).toBe(true);
    expect(delivered(accountC, toCAfter.originalId)).toBe(true);
    expect(delivered(accountA, toB.originalId) || delivered(accountA, toC.originalId)).toBe(false);
    // Each once.
    expect(accountC.postedEnquiries().filter((posted) => posted.originalId === toC.originalId)).toHaveLength(1);
    // B's outbox delivered, its store is closed and it is no longer draining.
    expect(
      await until(
        () => rig.relay.agencies!.drainingAgencies().length,
        (count) => count === 0,
        10_000,
      ),
    ).toBe(0);
  }, 60_000);

  it('a bad file on reload is refused and logged; the agencies running keep serving', async () => {
    const before = rig.relay.agencies!.list().map((running) => running.entry.slug);
    rig.writeAgencies([{ ...a, slug: 'Not A Slug' }]);
    const report = await rig.relay.agencies!.reload();
    expect(report.ok).toBe(false);
    expect(report.problems!.join('\n')).toMatch(/agencies\[0\]: slug: must be 1 to 40 characters/);
    expect(rig.relay.agencies!.list().map((running) => running.entry.slug)).toEqual(before);
    expect((await rig.request(`/a/${a.slug}/api/v1/listings`)).status).toBe(200);
  });
});

describe('a reload whose plan does not fit', () => {
  let rig: AgenciesRig;
  let relay: RunningRelay | undefined;
  let dataDir: string;
  afterAll(async () => {
    await relay?.close();
    await rig?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is refused, saying how many agencies would fit, and the agencies running keep serving', async () => {
    rig = await startAgenciesRig({ agencies: 3, listings: 4, env: { CRM_USAGE_CHECK_MINUTES: '1440' } });
    // What one agency's daily sweep and access check cost before its first sync: the budget is then set so two fit and three do not.
    const plan = rig.relay.agencies!.plan!;
    const sweep = plan.agencies[0]!.sweepRequests + plan.agencies[0]!.accessRequests;
    expect(plan.agencies.every((line) => line.sweepRequests + line.accessRequests === sweep)).toBe(true);
    const allowed = plan.keyRequests + 2 * sweep;
    dataDir = mkdtempSync(join(tmpdir(), 'estate-agencies-tight-'));
    const file = join(dataDir, 'agencies.json');
    const write = (entries: AgencyFileEntry[]) => {
      writeFileSync(file, JSON.stringify({ agencies: entries }), { mode: 0o600 });
      chmodSync(file, 0o600);
    };
    write(rig.entries.slice(0, 2));
    relay = await startRelay(
      { ...rig.relay.config, dataDir, agenciesFile: file, crm: { ...rig.relay.config.crm, dailyLimit: allowed * 2 } },
      { log: silentLogger, workers: false, app: { demoDir: null } },
    );
    expect(relay.agencies!.plan).toMatchObject({ fits: true, allowed });

    write(rig.entries);
    const report = await relay.agencies!.reload();
    expect(report.ok).toBe(false);
    expect(report.problems!.join('\n')).toMatch(
      new RegExp(
        `AGENCIES_FILE: 3 agencies need at least ${plan.keyRequests + 3 * sweep} CRM requests a day .* more than the ${allowed} allowed .*; 2 of them would fit`,
      ),
    );
    expect(relay.agencies!.list().map((running) => running.entry.slug)).toEqual(['agency-a', 'agency-b']);
    expect(relay.agencies!.get('agency-c')).toBeUndefined();
    expect((await fetch(`${relay.url}/a/agency-c/api/v1/listings`)).status).toBe(404);
    expect((await fetch(`${relay.url}/a/agency-a/readyz`)).status).toBe(503); // served (never synced here), not a 404
  }, 60_000);
});

describe('a removed agency whose store fails to close', () => {
  let rig: AgenciesRig;
  const memory = memoryLogger();
  afterAll(async () => {
    await rig?.close();
  });

  it('is logged, and the relay keeps serving the others (no unhandled rejection)', async () => {
    rig = await startAgenciesRig({ agencies: 2, listings: 4, log: memory.log });
    const [a, b] = rig.entries as [AgencyFileEntry, AgencyFileEntry];
    // A fault put into the real agency: its store refuses to close, as a failing disk would.
    const removed = rig.relay.agencies!.get(b.slug)!;
    const close = removed.agency.close.bind(removed.agency);
    removed.agency.close = async () => {
      await close();
      throw new Error('the store would not close');
    };
    rig.writeAgencies([a]);
    expect(await rig.relay.agencies!.reload()).toMatchObject({ ok: true, removed: [b.slug] });
    expect(
      await until(
        () => memory.text(),
        (text) => text.includes('draining its outbox failed'),
        10_000,
      ),
    ).toMatch(/"agency":"agency-b".*the store would not close/);
    expect((await rig.request(`/a/${a.slug}/readyz`)).status).not.toBe(404);
  }, 60_000);
});
