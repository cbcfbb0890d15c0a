import { randomUUID } from 'node:crypto';
import { readReloadResult, RELOAD_SIGNAL, requestReload } from '../compose/reload-request.ts';
import type { ReloadReport } from '../compose/agency-set.ts';
import { runningRelay } from './instance.ts';

export type ReloadOutcome = { outcome: 'no relay' } | { outcome: 'no answer'; pid: number } | { outcome: 'answered'; pid: number; report: ReloadReport };

/**
 * Asks the relay running on DATA_DIR to re-read AGENCIES_FILE (a request id, then SIGHUP) and
 * waits for its answer naming that id: what it added, changed and removed, or why it refused the file.
 */
export async function askRelayToReload(dataDir: string, timeoutSeconds: number): Promise<ReloadOutcome> {
  const relay = runningRelay(dataDir);
  if (!relay) return { outcome: 'no relay' };
  const id = randomUUID();
  requestReload(dataDir, id);
  process.kill(relay.pid, RELOAD_SIGNAL);
  const deadline = Date.now() + timeoutSeconds * 1000;
  while (Date.now() < deadline) {
    const result = readReloadResult(dataDir);
    if (result?.id === id) return { outcome: 'answered', pid: relay.pid, report: result.report };
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return { outcome: 'no answer', pid: relay.pid };
}

/** The answer as the operator reads it. */
export function describeReload(outcome: Extract<ReloadOutcome, { outcome: 'answered' }>): string {
  const { report } = outcome;
  if (!report.ok) return `The relay refused the file and keeps serving what it had:\n${(report.problems ?? []).map((problem) => `  - ${problem}`).join('\n')}`;
  const list = (slugs: string[]) => (slugs.length ? slugs.join(', ') : 'none');
  return `Reloaded (pid ${outcome.pid}): added ${list(report.added)}; changed ${list(report.changed)}; removed ${list(report.removed)}.`;
}
