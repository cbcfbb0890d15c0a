import { expect, inject, it } from 'vitest';
import { freshDatabase } from '../support/postgres.ts';
import { runSavedSearchChaos, type SavedSearchChaosReport } from './saved-searches.ts';

// The small version of `npm run test:chaos -- --profile saved-searches`: saved searches (a second
// one of an address sent at the same moment as its first) while the simulator fails every CRM write
// (15 % 500, 10 % 429, 10 % dropped answers) and the relay is killed with SIGKILL; short retry
// delays. Exactly one contact per address, one requirement per saved search with its fields.
function expectExactlyOnce(report: SavedSearchChaosReport, n: number): void {
  expect(report.accepted).toBe(n);
  expect(report.contacts.duplicated).toEqual([]);
  expect(report.contacts.missing).toEqual([]);
  expect(report.requirements.groupsWrong).toEqual([]);
  expect(report.requirements).toMatchObject({ expected: n, held: n, mismatched: 0 });
  expect(report.categoriesMissing).toBe(0);
  expect(report.notes).toMatchObject({ held: n, duplicates: 0 });
  expect(report.peakRequestsPerSecond).toBeLessThanOrEqual(10);
  expect(report.stores).toMatchObject({ queued: 0, dead: 0 });
  expect(report.simulator.injectedErrors + report.simulator.injected429s + report.simulator.droppedResponses).toBeGreaterThan(0);
  // With faults off: a new address costs a look-up, the contact, the requirement, the categories (read and set) and the note; a known one no contact and no category change.
  expect(report.callsPerSavedSearch.newTotal).toBe(6);
  expect(report.callsPerSavedSearch.knownTotal).toBe(4);
  expect(report.ok).toBe(true);
}

// Up to 220 s: a kill during a confirmation pass leaves its claimed e-mails to wait out the 2-minute
// mail lease (confirmation.ts) before the restarted relay sends them; this asserts exactly-once, not latency.
it('saved searches: one relay on SQLite, exactly once through 2 kill -9s and faults on every write (N = 30, 20 addresses)', { timeout: 240_000 }, async () => {
  const notes: string[] = [];
  const report = await runSavedSearchChaos({ n: 30, addresses: 20, kills: 2, settings: 'fast', timeoutMs: 220_000, note: (message) => notes.push(message) });
  if (!report.ok) console.error(notes.join('\n'));
  expect(report.kills).toBe(2);
  expectExactlyOnce(report, 30);
});

// Issue 33's goals with the relay's production retry settings and visitors arriving over time (one
// address every 2 s), faults on every write: every saved search's requirement in the CRM at
// p95 <= 30 s after its 202 and the last within 60 s of the last 202, exactly once. No kills here:
// a write in flight when the relay dies waits, by design, ENQUIRY_RECONCILE_DELAY_MS after the
// restart before it may be written again, and a restart takes 3-17 s on a loaded 2-core machine,
// so with kills only exactly-once is asserted (above; the figures with kills: bench lead-chaos).
it(
  'saved searches with production retry settings under faults on every write: p95 <= 30 s after the 202, the last within 60 s (N = 24, 16 addresses)',
  { timeout: 240_000 },
  async () => {
    const notes: string[] = [];
    const report = await runSavedSearchChaos({
      n: 24,
      addresses: 16,
      kills: 0,
      settings: 'production',
      paceMs: 2_000,
      timeoutMs: 220_000,
      note: (message) => notes.push(message),
    });
    if (!report.ok) console.error(notes.join('\n'));
    expectExactlyOnce(report, 24);
    expect(report.latency.p95).toBeLessThanOrEqual(30);
    expect(report.latency.afterLastAccepted).toBeLessThanOrEqual(60);
  },
);

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;
it.skipIf(skipped)(
  `saved searches: two relays on one PostgreSQL, the same address on both at once, relay B killed twice (N = 24, 16 addresses)${skipped ? ` (SKIPPED: ${skipped})` : ''}`,
  { timeout: 180_000 },
  async () => {
    const notes: string[] = [];
    const databaseUrl = await freshDatabase((postgres as { url: string }).url, 'estate_saved_chaos');
    const report = await runSavedSearchChaos({
      n: 24,
      addresses: 16,
      kills: 2,
      relays: 2,
      databaseUrl,
      settings: 'fast',
      timeoutMs: 160_000,
      note: (message) => notes.push(message),
    });
    if (!report.ok) console.error(notes.join('\n'));
    expect(report.kills).toBe(2);
    expectExactlyOnce(report, 24);
  },
);
