import { expect, inject, it } from 'vitest';
import { freshDatabase } from '../support/postgres.ts';
import { runChaos } from './chaos.ts';

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
