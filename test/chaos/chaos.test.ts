import { expect, inject, it } from 'vitest';
import { freshDatabase } from '../support/postgres.ts';
import { runChaos } from './chaos.ts';
import { runTwoRelayChaos } from './two-relays.ts';

// The small version of `npm run test:chaos`: a separate relay process killed with SIGKILL twice
// (once while accepting, once while delivering) while the simulator injects 5xx, 429, latency past
// the relay's timeout and dropped responses. Every accepted enquiry must reach the CRM exactly once.
it('delivers every accepted enquiry exactly once through kill -9s and CRM faults (N = 60, 2 kills)', { timeout: 120_000 }, async () => {
  const notes: string[] = [];
  const report = await runChaos({ n: 60, kills: 2, timeoutMs: 100_000, note: (message) => notes.push(message) });
  if (!report.ok) console.error(notes.join('\n'));
  expect(report.accepted).toBe(60);
  expect(report.kills).toBe(2);
  expect(report.missing).toEqual([]);
  expect(report.duplicates).toEqual([]);
  expect(report.strays).toBe(0);
  expect(report.outbox).toMatchObject({ queued: 0, dead: 0, delivered: 60 });
  // The faults really happened.
  expect(report.simulator.injectedErrors + report.simulator.injected429s + report.simulator.droppedResponses).toBeGreaterThan(0);
  expect(report.ok).toBe(true);
});

// Issue 33's goals under the review's faults (15 % 500, 10 % 429 with Retry-After, 10 % dropped
// answers, 5 % answered after 4 s) with the relay's production retry settings: p95 <= 30 s after
// the 202 and the last within 60 s of the last 202. No kills: a POST in flight when the relay dies
// waits, by design, ENQUIRY_RECONCILE_DELAY_MS after the restart before it may be sent again, and a
// restart takes 3-17 s on a loaded 2-core machine; with kills the suites above assert exactly once
// (the figures with kills: bench lead-chaos).
it('under the review faults with production retry settings: p95 <= 30 s after the 202, the last within 60 s (N = 60)', { timeout: 150_000 }, async () => {
  const notes: string[] = [];
  const report = await runChaos({ n: 60, kills: 0, profile: 'issue9', timeoutMs: 130_000, note: (message) => notes.push(message) });
  if (!report.ok) console.error(notes.join('\n'));
  expect(report.accepted).toBe(60);
  expect(report.missing).toEqual([]);
  expect(report.duplicates).toEqual([]);
  expect(report.outbox).toMatchObject({ queued: 0, dead: 0, delivered: 60 });
  expect(report.simulator.injectedErrors + report.simulator.injected429s + report.simulator.droppedResponses).toBeGreaterThan(0);
  expect(report.peakRequestsPerSecond).toBeLessThanOrEqual(10);
  expect(report.latency.p95).toBeLessThanOrEqual(30);
  expect(report.latency.afterLastAccepted).toBeLessThanOrEqual(60);
  expect(report.ok).toBe(true);
});

// Every kind of lead (issue 22): questions, appraisal requests, open-home registrations (some of
// them repeats, which must never reach the CRM) and inspection requests through the same kill -9s
// and CRM faults; each accepted lead in the CRM exactly once, with its kind and fields. With the
// funnel's paths of issue 28 mixed in: too-fast leads (delivered, marked), honeypot leads (listed
// and partly released with the relay CLI, one release while the relay is down), resends under a new
// originalId (one lead per intent) and shortlist batches (each home once).
it(
  'delivers every kind of lead exactly once through kill -9s and CRM faults; repeats never; flagged, quarantined, released and batched leads as issue 28 says (N = 48, 2 kills)',
  { timeout: 120_000 },
  async () => {
    const notes: string[] = [];
    const report = await runChaos({ n: 48, kills: 2, leads: true, issue28: true, timeoutMs: 100_000, note: (message) => notes.push(message) }).catch(
      (error: unknown) => {
        console.error(notes.join('\n'));
        throw error;
      },
    );
    if (!report.ok) console.error(notes.join('\n'));
    // Of the 48 sends: indexes 14, 30 and 46 repeat registrations and 9, 19, 29, 39 resend an earlier
    // lead (answered 202, never sent); 7, 17, 27, 37, 47 fill the honeypot (quarantined); 1, 11, 21,
    // 31, 41 are batches of 3 homes; 3, 13, 23, 33, 43 are sent too fast. Accepted to arrive: 26
    // plain, 5 too fast, 15 batch homes; then 2 of the 5 quarantined released.
    expect(report.accepted).toBe(46);
    expect(report.issue28).toMatchObject({
      flagged: 5,
      quarantined: 5,
      listed: 5,
      released: 2,
      unreleased: 3,
      intentRepeats: 4,
      intentRepeatsStored: 4,
      batches: 5,
      batchHomes: 15,
      notListed: [],
      quarantineLeaks: [],
      wrongMarks: [],
      releaseFailures: [],
    });
    // At least one release while the relay was killed.
    expect(report.issue28!.releasedWhileDown).toBeGreaterThan(0);
    expect(report.kills).toBe(2);
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(report.strays).toBe(0);
    expect(report.repeatsSent).toEqual([]);
    expect(report.wrongFields).toEqual([]);
    expect(report.outbox).toMatchObject({ queued: 0, dead: 0, delivered: 48, spam: 3, quarantined: 3 });
    expect(report.simulator.injectedErrors + report.simulator.injected429s + report.simulator.droppedResponses).toBeGreaterThan(0);
    expect(report.ok).toBe(true);
  },
);

// The same with the outbox in PostgreSQL (DATABASE_URL): the restarted relay takes its own claims
// back, reconciles what may have landed, and delivers the rest exactly once.
const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;
it.skipIf(skipped)(
  `with the outbox in PostgreSQL: every accepted enquiry exactly once through kill -9s (N = 40, 2 kills)${skipped ? ` (SKIPPED: ${skipped})` : ''}`,
  { timeout: 120_000 },
  async () => {
    const notes: string[] = [];
    const databaseUrl = await freshDatabase((postgres as { url: string }).url, 'estate_chaos');
    const report = await runChaos({ n: 40, kills: 2, timeoutMs: 100_000, databaseUrl, note: (message) => notes.push(message) });
    if (!report.ok) console.error(notes.join('\n'));
    expect(report.accepted).toBe(40);
    expect(report.kills).toBe(2);
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(report.outbox).toMatchObject({ queued: 0, dead: 0, delivered: 40 });
    expect(report.ok).toBe(true);
  },
);

// Two relays on one PostgreSQL database (the small version of `npm run test:chaos -- --relays 2`):
// enquiries spread over both, relay B killed with SIGKILL twice, CRM faults on. What remains
// unproven: the takeover of a dead relay's sync (the listing cache is still per relay).
it.skipIf(skipped)(
  `two relays on one PostgreSQL: exactly once, at most 10 CRM requests a second, claims taken over within the lease (N = 40, 2 kills)${skipped ? ` (SKIPPED: ${skipped})` : ''}`,
  { timeout: 150_000 },
  async () => {
    const notes: string[] = [];
    const databaseUrl = await freshDatabase((postgres as { url: string }).url, 'estate_chaos2');
    const report = await runTwoRelayChaos({ n: 40, kills: 2, databaseUrl, timeoutMs: 130_000, note: (message) => notes.push(message) });
    if (!report.ok) console.error(notes.join('\n'));
    expect(report.accepted).toBe(40);
    expect(report.acceptedBy[0]).toBeGreaterThan(0);
    expect(report.acceptedBy[1]).toBeGreaterThan(0);
    expect(report.kills).toBe(2);
    expect(report.missing).toEqual([]);
    expect(report.duplicates).toEqual([]);
    expect(report.strays).toBe(0);
    expect(report.outbox).toMatchObject({ queued: 0, dead: 0, delivered: 40 });
    expect(report.peakRequestsPerSecond).toBeGreaterThan(0);
    expect(report.peakRequestsPerSecond).toBeLessThanOrEqual(10);
    for (const takeover of report.takeovers) {
      expect(takeover.ms).toBeGreaterThanOrEqual(0);
      expect(takeover.ms).toBeLessThanOrEqual(report.takeoverBoundMs);
    }
    expect(report.takeovers.length).toBe(2);
    // At least one kill caught relay B holding enquiries, so a takeover really happened.
    expect(report.takeovers.some((takeover) => takeover.held > 0)).toBe(true);
    expect(report.listingRequests).toBeGreaterThan(0);
    expect(report.listingFailures).toBe(0);
    expect(report.syncLagsMs.every((lag) => lag >= 0)).toBe(true);
    // Each kill killed the agency's sync holder, and relay A took the sync over within the bound.
    expect(report.syncTakeovers.map((takeover) => takeover.heldByB)).toEqual([true, true]);
    for (const takeover of report.syncTakeovers) {
      expect(takeover.ms).toBeGreaterThanOrEqual(0);
      expect(takeover.ms).toBeLessThanOrEqual(report.syncTakeoverBoundMs);
    }
    expect(report.ok).toBe(true);
  },
);
