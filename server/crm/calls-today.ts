import type { Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';

/*
 * Requests one agency's client sent, per UTC day, in that agency's store (the key's total is the
 * daily budget in DATA_DIR's store): the operator view's "CRM calls today" survives a restart.
 * One row of crm_access per day, the last week kept.
 */

const PREFIX = 'crm-calls:';
const KEEP_DAYS = 7;

/** Requests counted on `day` (YYYY-MM-DD, UTC); 0 when none, or the store is older than the table. */
export function callsOn(store: Store, day: string): number {
  if (!hasTable(store, 'crm_access')) return 0;
  const value = tablesOf(store).prepare('SELECT value FROM crm_access WHERE key = ?').pluck().get(`${PREFIX}${day}`) as string | undefined;
  const calls = Number(value ?? 0);
  return Number.isSafeInteger(calls) && calls > 0 ? calls : 0;
}

/** Counts one request on `day`; the first of a day drops the days older than a week. Returns the day's count. */
export function countCall(store: Store, day: string): number {
  const db = tablesOf(store);
  return db.transaction(() => {
    const calls = callsOn(store, day) + 1;
    db.prepare('INSERT INTO crm_access (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(`${PREFIX}${day}`, String(calls));
    if (calls === 1) {
      const oldest = new Date(Date.parse(`${day}T00:00:00Z`) - KEEP_DAYS * 86_400_000).toISOString().slice(0, 10);
      db.prepare("DELETE FROM crm_access WHERE key LIKE 'crm-calls:%' AND key < ?").run(`${PREFIX}${oldest}`);
    }
    return calls;
  }).immediate();
}
