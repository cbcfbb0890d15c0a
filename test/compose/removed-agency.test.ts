import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { claimInstance } from '../../server/ops/instance.ts';
import { collectAgenciesStatus, formatAgencies } from '../../server/ops/agencies-cli.ts';
import { startAgenciesRig, until, type AgenciesRig, type AgencyFileEntry } from './rig.ts';
import { validSavedSearch } from '../saved-searches/support.ts';

/*
 * An agency taken out of AGENCIES_FILE (`agencies remove`, SIGHUP) with saved searches still
 * queued for its CRM: they are delivered as its queued enquiries are (the removed agency drains
 * both queues before its store closes), the operator sees them waiting (`agencies`: draining, or
 * after a restart removed with leads queued), and they go out when the agency comes back.
 * Three accounts of one key on the simulator, real HTTP, real SQLite, the relay's own workers.
 */

const FAST_RETRIES = { ENQUIRY_RETRY_BASE_MS: '300', ENQUIRY_RETRY_MAX_MS: '600', ENQUIRY_POLL_MS: '100', ENQUIRY_RECONCILE_DELAY_MS: '0' };
/** The CRM cannot look people up for now: a saved search waits at its first step. */
const CONTACTS_DOWN = [{ match: '/search/contacts/**', errorRate: 1, errorStatus: 503 }];

const inCrm = (account: SimulatorState, email: string) => account.contacts.byEmail(email).some((contact) => contact.requirements.length > 0);

describe('saved searches of a removed agency', () => {
  let rig: AgenciesRig | undefined;
  let release: (() => void) | undefined;
  afterEach(async () => {
    release?.();
    release = undefined;
    await rig?.close();
    rig = undefined;
  });

  async function removeWithSavedSearchQueued(): Promise<{ rig: AgenciesRig; a: AgencyFileEntry; b: AgencyFileEntry; accountB: SimulatorState; email: string }> {
    // Agent confirmation: the saved search is queued for the CRM at once (by e-mail it would wait for its owner's click).
    rig = await startAgenciesRig({ agencies: 2, listings: 4, workers: true, env: { ...FAST_RETRIES, SAVED_SEARCH_CONFIRMATION: 'agent' } });
    const [a, b] = rig.entries as [AgencyFileEntry, AgencyFileEntry];
    const accountB = rig.accounts[1]!;
    accountB.setFaults(CONTACTS_DOWN);
    const search = validSavedSearch({ email: 'removed.agency.buyer@example.com' });
    const posted = await rig.request(`/a/${b.slug}/api/v1/saved-searches`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(search),
    });
    expect(posted.status).toBe(202);
    rig.writeAgencies([a]);
    expect(await rig.relay.agencies!.reload()).toMatchObject({ ok: true, removed: [b.slug] });
    expect((await rig.request(`/a/${b.slug}/api/v1/saved-searches`, { method: 'POST' })).status).toBe(404);
    return { rig, a, b, accountB, email: search.email };
  }

  it('are delivered before its store closes, and show as queued while it drains', async () => {
    const { rig, b, accountB, email } = await removeWithSavedSearchQueued();
    // Longer than the drain's check and the requests-in-flight wait: an outbox with nothing queued alone would have let it close.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(rig.relay.agencies!.drainingAgencies().map((running) => running.entry.slug)).toEqual([b.slug]);
    const row = (await rig.relay.agencies!.statusSnapshot()).agencies.find((agency) => agency.slug === b.slug)!;
    expect(row).toMatchObject({ state: 'draining', outboxQueued: 0, savedSearches: { queued: 1, dead: 0 } });
    expect(row.savedSearches!.oldestQueuedAt).toBeLessThanOrEqual(Date.now());

    accountB.clearFaults();
    await until(() => inCrm(accountB, email), Boolean, 30_000);
    expect(accountB.contacts.byEmail(email)).toHaveLength(1);
    // Both queues empty: the store closes and the agency is gone.
    expect(
      await until(
        () => rig.relay.agencies!.drainingAgencies().length,
        (count) => count === 0,
        15_000,
      ),
    ).toBe(0);
  }, 60_000);

  it('left queued by a restart, show in `agencies` as removed, and go out when the agency is added back', async () => {
    const { rig, a, b, accountB, email } = await removeWithSavedSearchQueued();
    // A restart before the drain finished: the relay serves only what the file lists, and the saved search waits in B's store.
    await rig.restart();
    release = claimInstance(rig.dataDir);
    expect(rig.relay.agencies!.drainingAgencies()).toEqual([]);
    const status = collectAgenciesStatus(rig.file, rig.dataDir, rig.relay.config.crm.dailyLimit);
    const row = status.agencies.find((agency) => agency.slug === b.slug)!;
    expect(row).toMatchObject({ state: 'removed', outboxQueued: 0, savedSearches: { queued: 1, dead: 0 } });
    expect(row.reason).toMatch(/removed from AGENCIES_FILE: its queued leads wait in its store, delivered if it is added back/);
    const table = formatAgencies(status);
    expect(table.split('\n').find((line) => line.startsWith(`${b.slug} `))).toMatch(/ removed\s.*\s0\s+1 \(oldest \d+ s\)\s+0\s+removed from AGENCIES_FILE/);
    expect(table).toMatch(/Agencies\s+1 in AGENCIES_FILE, .*; 1 removed with leads still queued in their stores \(delivered if added back\)/);
    expect(table).toMatch(/Totals\s+\d+ listings, 0 enquiries queued, 1 saved searches queued/);

    // Back in the file: its saved search resumes where it stopped.
    accountB.clearFaults();
    rig.writeAgencies([a, b]);
    expect(await rig.relay.agencies!.reload()).toMatchObject({ ok: true, added: [b.slug] });
    await until(() => inCrm(accountB, email), Boolean, 30_000);
    expect(accountB.contacts.byEmail(email)).toHaveLength(1);
    expect(collectAgenciesStatus(rig.file, rig.dataDir, rig.relay.config.crm.dailyLimit).agencies.map((agency) => agency.slug)).toEqual([a.slug, b.slug]);
  }, 60_000);
});
