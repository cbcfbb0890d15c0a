import { sql, type Generated } from 'kysely';
import type { Logger } from '../runtime/log.ts';
import { CLOCK_OFFSET_WARN_MS, DB_NOW, type SharedDatabase } from '../store/shared-database.ts';
import { queriesOf } from '../store/tables.ts';
import type { ChangedKind, ChangeNotice, PushedRecord } from '../listings/source.ts';
import type { InboxNotice, WebhookInbox } from '../listings/inbox.ts';

/** The channel every relay listens on; the payload is the agency's schema (one channel for all agencies). */
export const WEBHOOK_INBOX_CHANNEL = 'webhook_inbox';
/** Taken digests are kept until they leave the signature tolerance; deleted at most this often. */
const PRUNE_EVERY_MS = 60_000;

/** crm_webhook_inbox as the query builder sees it (pg-migrations 020). */
interface InboxTable {
  id: Generated<number>;
  digest: string;
  expires_at: number;
  /** The notice as JSON; null for one the relay does not use (kept for its digest only). */
  notice: string | null;
  received_at: number;
  taken_at: number | null;
}

export interface SharedWebhookInboxOptions {
  /** The agency's store, attached to its PostgreSQL schema (SharedDatabase.attach). */
  store: object;
  /** The relay's one database: its LISTEN connection tells of notices stored by any relay. */
  database: Pick<SharedDatabase, 'listen'>;
  /** The agency's schema (agencySchema(slug)): the payload of its notices on the shared channel. */
  schema: string;
  log: Logger;
  /** This relay's clock: received and taken times, and how often to prune. Expiry is judged on the database's. */
  now?: () => number;
}

/**
 * Verified CRM webhooks for one agency, in PostgreSQL (DATABASE_URL): the CRM posts to whichever
 * relay the load balancer picks, but only the agency's sync holder may write its change queue. Any
 * relay stores the notice here before its 2xx; the holder takes it into its own queue and applies
 * it. The digest is unique across relays, so a replay to any of them is refused.
 */
export class SharedWebhookInbox implements WebhookInbox {
  private readonly now: () => number;
  private prunedAt = 0;

  constructor(private readonly options: SharedWebhookInboxOptions) {
    this.now = options.now ?? Date.now;
  }

  private get db() {
    return queriesOf(this.options.store).db.withTables<{ crm_webhook_inbox: InboxTable }>();
  }

  /**
   * Stores a verified notice unless its digest was seen by any relay ('duplicate'). A notice the
   * relay does not use keeps only its digest (born taken). One statement: the insert and, when it
   * stored something to apply, the NOTIFY that wakes the holder (sent at commit, so never for a
   * notice not stored, and never missing for one that was).
   */
  async accept(digest: string, expiresAt: number, notice: ChangeNotice, now: number): Promise<'stored' | 'duplicate'> {
    const used = notice.kind !== undefined && notice.id !== undefined;
    const { rows } = await sql<{ id: number }>`
      WITH stored AS (
        INSERT INTO crm_webhook_inbox (digest, expires_at, notice, received_at, taken_at)
        VALUES (${digest}, ${expiresAt}, ${used ? JSON.stringify(notice) : null}, ${now}, ${used ? null : now})
        ON CONFLICT (digest) DO NOTHING
        RETURNING id, taken_at
      )
      SELECT stored.id, CASE WHEN stored.taken_at IS NULL THEN pg_notify(${WEBHOOK_INBOX_CHANNEL}, ${this.options.schema}) END AS told FROM stored
    `.execute(this.db);
    return rows.length === 0 ? 'duplicate' : 'stored';
  }

  /** Notices not yet taken, oldest first; now and then forgets the digests that can no longer be replayed. */
  async take(limit: number): Promise<InboxNotice[]> {
    await this.pruneNowAndThen();
    const rows = await this.db
      .selectFrom('crm_webhook_inbox')
      .select(['id', 'digest', 'expires_at', 'notice', 'received_at'])
      .where('taken_at', 'is', null)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ id: row.id, digest: row.digest, expiresAt: row.expires_at, notice: readNotice(row.notice), receivedAt: row.received_at }));
  }

  /** Taken into the holder's change queue: no longer waiting (the digest stays, refusing replays). */
  async markTaken(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('crm_webhook_inbox')
      .set({ taken_at: this.now() })
      .where('id', 'in', [...ids])
      .where('taken_at', 'is', null)
      .execute();
  }

  /** Notices waiting (for status and tests). */
  async waiting(): Promise<number> {
    const row = await this.db
      .selectFrom('crm_webhook_inbox')
      .select((eb) => eb.fn.countAll<number>().as('waiting'))
      .where('taken_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.waiting);
  }

  /**
   * Calls `handler` whenever any relay stores a notice for this agency, and after the relay's
   * LISTEN connection was lost and restored (notices sent meanwhile were not heard). Returns the
   * unsubscribe.
   */
  onArrival(handler: () => void): Promise<() => void> {
    const { schema } = this.options;
    return this.options.database.listen(WEBHOOK_INBOX_CHANNEL, (payload) => payload === schema && handler(), handler);
  }

  /**
   * Digests past their expiry were refused as stale anyway; those of notices never taken stay (no
   * relay held the sync meanwhile: the next holder still applies them). Taken by the holder only,
   * once a minute at most, so the webhook's own path stays one statement. Expiry is judged on the
   * database's clock, plus the clock offset a relay may have before it warns: a holder whose clock
   * is ahead must not forget a digest that a relay on time would still accept a replay of.
   */
  private async pruneNowAndThen(): Promise<void> {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    try {
      await this.db
        .deleteFrom('crm_webhook_inbox')
        .where('expires_at', '<', sql<number>`${sql.raw(DB_NOW)} - ${CLOCK_OFFSET_WARN_MS}`)
        .where('taken_at', 'is not', null)
        .execute();
    } catch (error) {
      this.options.log.warn({ error: error instanceof Error ? error.message : String(error) }, 'could not prune expired webhook digests; trying again later');
    }
  }
}

const KINDS: ReadonlySet<ChangedKind> = new Set<ChangedKind>(['listing', 'staff']);

/** The stored JSON back as a notice, or undefined when it is not one (never throws). */
function readNotice(json: string | null): ChangeNotice | undefined {
  if (json === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const notice = value as Record<string, unknown>;
  const kind = notice.kind as ChangedKind;
  if (!KINDS.has(kind) || !Number.isSafeInteger(notice.id) || typeof notice.name !== 'string' || !Number.isFinite(notice.at) || !Array.isArray(notice.records))
    return undefined;
  return {
    kind,
    name: notice.name,
    id: notice.id as number,
    at: notice.at as number,
    records: notice.records as PushedRecord[],
    invalidRecords: Number.isSafeInteger(notice.invalidRecords) ? (notice.invalidRecords as number) : 0,
    ...(typeof notice.account === 'string' ? { account: notice.account } : {}),
  };
}
