import { expect, it } from 'vitest';
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
