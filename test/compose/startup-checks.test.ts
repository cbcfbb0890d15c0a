import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agency } from '../../server/compose/agency.ts';
import { CrmAccess } from '../../server/crm/access.ts';
import { crmListingSource } from '../../server/crm/listing-source.ts';
import { AgencyAccount } from '../../server/listings/account.ts';
import { ChangeStore } from '../../server/listings/event-store.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { ALL_SCOPES, SCOPES } from '../../crm-sim/state.ts';
import { startAgenciesRig, until, type AgenciesRig } from './rig.ts';

/*
 * What a restart costs: each agency proves what its token allows (GET /scopes and one call per
 * capability) and learns its account id (GET /account). Kept in the agency's store, a check that
 * proved everything less than a day ago stands at the next start: 20 agencies restart without a
 * request to the CRM but the key's one usage read, instead of five requests each. The account a
 * token names is not asked again at all with the same token. A refusal (401/403) of a later call
 * brings the check forward.
 */

const agenciesOf = (rig: AgenciesRig): Agency[] => rig.relay.agencies!.list().map((running) => running.agency);

/** Waits until the simulator has seen no request for `quietMs` (at least that long). */
async function quiet(rig: AgenciesRig, quietMs = 1_000): Promise<void> {
  let last = -1;
  let since = Date.now();
  for (;;) {
    const seen = rig.sim.key.getCounters().totalRequests;
    if (seen !== last) [last, since] = [seen, Date.now()];
    else if (Date.now() - since >= quietMs) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the start-up checks of every agency (the access check and the account look-up, nothing else) and counts their requests once they are done. */
async function runStartupChecks(rig: AgenciesRig): Promise<number> {
  rig.sim.key.resetCounters();
  const agencies = agenciesOf(rig);
  for (const agency of agencies) {
    agency.access.start();
    agency.listings.account.start();
  }
  await until(
    () => agencies.every((agency) => agency.access.current().checkedAt !== null && agency.listings.account.id !== undefined),
    (done) => done,
    60_000,
  );
  await quiet(rig);
  // stop() waits for what the workers started (a look-up in flight, the usage read).
  await Promise.all(agencies.flatMap((agency) => [agency.access.stop(), agency.listings.account.stop()]));
  return agencyRequests(rig);
}

/** Requests the simulator counted since its counters were reset, but the key's usage reads (one per key and interval, whatever the number of agencies). */
function agencyRequests(rig: AgenciesRig): number {
  const { requestsByEndpoint, totalRequests } = rig.sim.key.getCounters();
  expect(requestsByEndpoint['GET /integrator/usage'] ?? 0).toBeLessThanOrEqual(1);
  return totalRequests - (requestsByEndpoint['GET /integrator/usage'] ?? 0);
}

describe('the start-up checks of 20 agencies', () => {
  let rig: AgenciesRig;
  beforeAll(async () => {
    rig = await startAgenciesRig({ agencies: 20, listings: 1 });
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it("cost five requests an agency at the first start, and none at a restart within the day (the key's usage read aside)", async () => {
    const first = await runStartupChecks(rig);
    // GET /scopes, three proofs and GET /account per agency.
    expect(first).toBe(20 * 5);
    const counters = rig.sim.key.getCounters().requestsByEndpoint;
    expect(
      Object.entries(counters)
        .filter(([endpoint]) => /scopes/.test(endpoint))
        .reduce((sum, [, count]) => sum + count, 0),
    ).toBe(20);

    await rig.restart();
    const restart = await runStartupChecks(rig);
    expect(restart, 'a restart proves nothing again').toBe(0);
    for (const agency of agenciesOf(rig)) {
      // The stored answer still serves /readyz and the status; the next check is due within the day, not all at once.
      expect(agency.access.missing()).toEqual([]);
      const due = agency.access.checkDueInMs();
      expect(due).toBeGreaterThan(11 * 3600_000);
      expect(due).toBeLessThanOrEqual(24 * 3600_000);
    }
    const dues = agenciesOf(rig).map((agency) => Math.round(agency.access.checkDueInMs() / 60_000));
    expect(new Set(dues).size, 'the re-checks are spread over the day').toBeGreaterThan(10);
  }, 120_000);

  it('a restart more than a day later spreads the checks over the next hour instead of making them all at start, and does not look the accounts up again', async () => {
    // The workers of each agency as a start two days on would make them (their clock moved, the same stores).
    const later = () => Date.now() + 2 * 24 * 3600_000;
    let turn = 0;
    const spread = () => ((turn++ % 20) + 1) / 21;
    const workers = agenciesOf(rig).map((agency) => ({
      access: new CrmAccess({
        client: agency.crm,
        store: agency.store,
        log: silentLogger,
        listingClass: 'residential',
        usageCheckMinutes: 60,
        now: later,
        spread,
      }),
      account: new AgencyAccount({
        store: new ChangeStore(agency.store),
        source: crmListingSource({ client: agency.crm, config: agency.config }),
        log: silentLogger,
        now: later,
      }),
    }));
    rig.sim.key.resetCounters();
    for (const worker of workers) {
      worker.access.start();
      worker.account.start();
    }
    await quiet(rig);
    try {
      expect(agencyRequests(rig), 'nothing at start').toBe(0);
      // The same token names the same account: it stays known, with no look-up planned.
      expect(workers.every((worker, index) => worker.account.id === agenciesOf(rig)[index]!.listings.account.id)).toBe(true);
      const delays = workers.map((worker) => worker.access.scheduledCheckInMs()!);
      expect(
        delays.every((delay) => delay >= 0 && delay < 3600_000),
        'all within the hour',
      ).toBe(true);
      expect(new Set(delays).size, 'at different times').toBeGreaterThan(10);
    } finally {
      await Promise.all(workers.flatMap((worker) => [worker.access.stop(), worker.account.stop()]));
    }
  });

  it('checks again an agency whose token changed: what was proven with the old token is not trusted', async () => {
    const account = rig.accounts[1]!;
    const token = account.addToken(ALL_SCOPES).token;
    rig.writeAgencies(rig.entries.map((entry) => (entry.slug === 'agency-b' ? { ...entry, accessToken: token } : entry)));
    expect((await rig.relay.agencies!.reload()).changed).toEqual(['agency-b']);
    // The new composition (same store) proves its token and looks its account up again; the others stand.
    expect(await runStartupChecks(rig)).toBe(5);
    expect(rig.relay.agencies!.get('agency-b')!.agency.listings.account.id).toBe(String(account.accountId));
  }, 60_000);

  it('checks again when a later call is refused (401/403): the missing capability is named without waiting a day', async () => {
    const [agency] = agenciesOf(rig) as [Agency];
    const account = rig.accounts[0]!;
    agency.access.start();
    try {
      await quiet(rig);
      expect(agency.access.missing()).toEqual([]);
      account.setScopes(ALL_SCOPES.filter((scope) => scope !== SCOPES.enquiriesRead));
      await expect(agency.crm.listEnquiries({ page: 1, pageSize: 1 })).rejects.toMatchObject({ status: 403 });
      const missing = await until(
        () => agency.access.missing(),
        (gaps) => gaps.length > 0,
      );
      expect(missing.map((gap) => gap.capability)).toEqual(['enquiries']);
    } finally {
      account.setScopes(ALL_SCOPES);
      await agency.access.stop();
    }
  });
});
