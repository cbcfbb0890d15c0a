import type { ChangedKind, ChangeNotice, PushedRecord } from './source.ts';
import type { Store } from '../store/store.ts';
import { hasTable, tablesOf, type Db } from '../store/tables.ts';

/** The push's tables: copied, like the cache, from the agency's sync holder to the other relays on one database. */
export const CHANGE_TABLES = ['crm_webhook_digests', 'crm_change_queue', 'crm_change_applied', 'crm_stream_seen', 'crm_event_stream_state'] as const;

/** A stored notice waiting to be applied. */
export interface QueuedChange {
  seq: number;
  origin: 'webhook' | 'stream';
  kind: ChangedKind;
  id: number;
  name: string;
  changedAt: number;
  records: PushedRecord[];
  attempts: number;
}

const ACCOUNT_KEY = 'account';

export interface AccountChecks {
  checkedAt: number;
  dueAt: number;
  credentials: string;
}

/** The account id a relay's store remembers, for the status report (null: never learned, or a store older than the table). */
export function readOwnAccount(store: Store): string | null {
  if (!hasTable(store, 'crm_event_stream_state')) return null;
  return (tablesOf(store).prepare('SELECT value FROM crm_event_stream_state WHERE key = ?').pluck().get(ACCOUNT_KEY) as string | undefined) ?? null;
}

/**
 * The tables of the CRM's push (migration 060): replay guard, durable change queue, what was
 * applied when, and the event stream's position. Every write is one synchronous SQLite
 * transaction (the store runs synchronous=FULL), so "stored" means on disk.
 */
export class ChangeStore {
  private readonly db: Db;

  constructor(store: Store) {
    this.db = tablesOf(store);
  }

  /**
   * Records a verified webhook: its digest (refused if seen before) and, when it names something
   * the relay uses, its notice. Returns 'duplicate' without storing anything for a replay.
   */
  acceptWebhook(digest: string, expiresAt: number, notice: ChangeNotice, now: number): 'stored' | 'duplicate' {
    return this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM crm_webhook_digests WHERE expires_at < ?').run(now);
        const inserted = this.db.prepare('INSERT OR IGNORE INTO crm_webhook_digests (digest, expires_at) VALUES (?, ?)').run(digest, expiresAt);
        if (inserted.changes === 0) return 'duplicate' as const;
        if (notice.kind && notice.id !== undefined) this.insert('webhook', notice, now);
        return 'stored' as const;
      })
      .immediate();
  }

  /** Queues notices read from the event stream, and moves the stream's position, in one transaction. */
  acceptStream(notices: readonly ChangeNotice[], position: { cursor: string | undefined; readAt: number }): number {
    return this.db
      .transaction(() => {
        let queued = 0;
        const seen = this.db.prepare(
          `INSERT INTO crm_stream_seen (kind, object_id, seen_at, events) VALUES (?, ?, ?, 1)
         ON CONFLICT (kind, object_id) DO UPDATE SET
           events = CASE WHEN excluded.seen_at > seen_at THEN 1 WHEN excluded.seen_at = seen_at THEN events + 1 ELSE events END,
           seen_at = max(seen_at, excluded.seen_at)
         RETURNING seen_at AS at, events`,
        );
        for (const notice of notices) {
          if (!notice.kind || notice.id === undefined) continue;
          // The CRM dates events to the second: two changes of one property (its sale and its lease,
          // say) in one second are told apart by count. The k-th event the stream names at a time is
          // already applied only when k notices at that time were (a webhook's, usually).
          const named = seen.get(notice.kind, notice.id, notice.at) as { at: number; events: number };
          const applied = this.applied(notice.kind, notice.id);
          if (applied && applied.at > notice.at) continue;
          if (applied && applied.at === notice.at && named.at === notice.at && named.events <= applied.events) continue;
          this.insert('stream', notice, position.readAt);
          queued++;
        }
        this.setState('cursor', position.cursor);
        this.setState('lastReadAt', String(position.readAt));
        return queued;
      })
      .immediate();
  }

  private insert(origin: 'webhook' | 'stream', notice: ChangeNotice, now: number): void {
    this.db
      .prepare('INSERT INTO crm_change_queue (origin, kind, object_id, name, changed_at, received_at, records) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(origin, notice.kind!, notice.id!, notice.name, notice.at, now, notice.records.length ? JSON.stringify(notice.records) : null);
  }

  /** Notices due now, oldest first. */
  due(now: number, limit = 100): QueuedChange[] {
    const rows = this.db
      .prepare('SELECT seq, origin, kind, object_id, name, changed_at, records, attempts FROM crm_change_queue WHERE next_attempt_at <= ? ORDER BY seq LIMIT ?')
      .all(now, limit) as Array<{
      seq: number;
      origin: 'webhook' | 'stream';
      kind: ChangedKind;
      object_id: number;
      name: string;
      changed_at: number;
      records: string | null;
      attempts: number;
    }>;
    return rows.map((row) => ({
      seq: row.seq,
      origin: row.origin,
      kind: row.kind,
      id: row.object_id,
      name: row.name,
      changedAt: row.changed_at,
      records: row.records ? (JSON.parse(row.records) as PushedRecord[]) : [],
      attempts: row.attempts,
    }));
  }

  /**
   * Applied: the notices leave the queue (with the records they carried) and each record is marked
   * up to date as of its latest change applied, in the CRM's own clock (the event times), so a
   * skew between the CRM's clock and ours never hides a later change from the stream.
   */
  done(changes: readonly QueuedChange[]): void {
    this.db
      .transaction(() => {
        const remove = this.db.prepare('DELETE FROM crm_change_queue WHERE seq = ?');
        // A later time starts the count again; the same time adds one (SET reads the row as it was).
        const mark = this.db.prepare(
          `INSERT INTO crm_change_applied (kind, object_id, applied_at, events) VALUES (?, ?, ?, 1)
         ON CONFLICT (kind, object_id) DO UPDATE SET
           events = CASE WHEN excluded.applied_at > applied_at THEN 1 WHEN excluded.applied_at = applied_at THEN events + 1 ELSE events END,
           applied_at = max(applied_at, excluded.applied_at)`,
        );
        for (const change of changes) {
          remove.run(change.seq);
          mark.run(change.kind, change.id, change.changedAt);
        }
      })
      .immediate();
  }

  /** Dropped without applying (given up, or left to the next read): out of the queue, not marked. */
  drop(changes: readonly QueuedChange[]): void {
    const remove = this.db.prepare('DELETE FROM crm_change_queue WHERE seq = ?');
    this.db
      .transaction(() => {
        for (const change of changes) remove.run(change.seq);
      })
      .immediate();
  }

  retryLater(changes: readonly QueuedChange[], at: number): void {
    const update = this.db.prepare('UPDATE crm_change_queue SET attempts = attempts + 1, next_attempt_at = ? WHERE seq = ?');
    this.db
      .transaction(() => {
        for (const change of changes) update.run(at, change.seq);
      })
      .immediate();
  }

  pending(): number {
    return this.db.prepare('SELECT COUNT(*) FROM crm_change_queue').pluck().get() as number;
  }

  /** When the oldest notice still waiting was received (undefined: none waits): how far the push lags. */
  oldestReceivedAt(): number | undefined {
    return (this.db.prepare('SELECT MIN(received_at) FROM crm_change_queue').pluck().get() as number | null) ?? undefined;
  }

  appliedAt(kind: ChangedKind, id: number): number | undefined {
    return this.applied(kind, id)?.at;
  }

  /** The time of the record's latest change applied, and how many notices at that time were. */
  private applied(kind: ChangedKind, id: number): { at: number; events: number } | undefined {
    return this.db.prepare('SELECT applied_at AS at, events FROM crm_change_applied WHERE kind = ? AND object_id = ?').get(kind, id) as
      { at: number; events: number } | undefined;
  }

  /** Marks older than the stream keeps events are of no more use. */
  pruneApplied(before: number): void {
    this.db.prepare('DELETE FROM crm_change_applied WHERE applied_at < ?').run(before);
    this.db.prepare('DELETE FROM crm_stream_seen WHERE seen_at < ?').run(before);
  }

  streamPosition(): { cursor: string | undefined; lastReadAt: number | undefined } {
    const cursor = this.getState('cursor');
    const lastReadAt = this.getState('lastReadAt');
    return { cursor, lastReadAt: lastReadAt === undefined ? undefined : Number(lastReadAt) };
  }

  forgetCursor(): void {
    this.setState('cursor', undefined);
  }

  /** CRM requests spent on webhook notices today (UTC), for the daily cap. */
  webhookRequests(day: string): number {
    return this.getState('webhookDay') === day ? Number(this.getState('webhookRequests') ?? 0) : 0;
  }

  addWebhookRequests(day: string, requests: number): void {
    const total = this.webhookRequests(day) + requests;
    this.db
      .transaction(() => {
        this.setState('webhookDay', day);
        this.setState('webhookRequests', String(total));
      })
      .immediate();
  }

  /** The agency's account id at the source, as last learned (undefined: never learned). */
  ownAccount(): string | undefined {
    return this.getState(ACCOUNT_KEY);
  }

  /** `checks`: when the source last confirmed it, when to ask again (ms since the epoch), and with which credentials (a digest). */
  rememberAccount(account: string, checks?: AccountChecks): void {
    this.db
      .transaction(() => {
        this.setState(ACCOUNT_KEY, account);
        this.setState('accountChecks', checks ? JSON.stringify(checks) : undefined);
      })
      .immediate();
  }

  /** When the source last confirmed the remembered account id, and when to ask again (undefined: never recorded). */
  accountChecks(): AccountChecks | undefined {
    try {
      const checks = JSON.parse(this.getState('accountChecks') ?? 'null') as Partial<AccountChecks> | null;
      const valid = checks && Number.isFinite(checks.checkedAt) && Number.isFinite(checks.dueAt) && typeof checks.credentials === 'string';
      return valid ? (checks as AccountChecks) : undefined;
    } catch {
      return undefined;
    }
  }

  private getState(key: string): string | undefined {
    return (this.db.prepare('SELECT value FROM crm_event_stream_state WHERE key = ?').pluck().get(key) as string | undefined) ?? undefined;
  }

  private setState(key: string, value: string | undefined): void {
    if (value === undefined) this.db.prepare('DELETE FROM crm_event_stream_state WHERE key = ?').run(key);
    else
      this.db.prepare('INSERT INTO crm_event_stream_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }
}
