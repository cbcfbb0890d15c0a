import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../store/store.ts';
import { hasTable, queriesOf, tablesOf } from '../store/tables.ts';

/** How long a new link works unless the agent says otherwise (`reports link --days N`). */
export const DEFAULT_LINK_DAYS = 120;
/** The longest a link may be made for: a campaign, not a standing door into the agency's figures. */
export const MAX_LINK_DAYS = 366;
const DAY_MS = 24 * 60 * 60_000;

/** A token as links carry it: 32 random bytes (256 bits) in base64url, 43 characters. */
export const REPORT_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** One listing's link as the agent's list shows it: never its token, which is shown once, when made. */
export interface ReportLink {
  listingId: number;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

interface ReportLinksTable {
  listing_id: number;
  token_digest: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** What the store keeps of a token: its SHA-256 digest, so a copy of the store (a backup) opens no report. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The report_links table (migrations 250 and pg 140): the only file that reads or writes it. One
 * row per listing; a new link replaces the row, so the listing's previous token stops working.
 */
export class ReportLinks {
  constructor(private readonly store: Store) {}

  private get queries() {
    const { db } = queriesOf(this.store);
    return db.withTables<{ report_links: ReportLinksTable }>();
  }

  /** Makes the listing's link (replacing any it had) and returns its token: the only time the token is seen. */
  async create(listingId: number, options: { now: number; days?: number }): Promise<{ token: string; link: ReportLink }> {
    const days = options.days ?? DEFAULT_LINK_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > MAX_LINK_DAYS) throw new RangeError(`days must be a whole number from 1 to ${MAX_LINK_DAYS}`);
    const token = randomBytes(32).toString('base64url');
    const row: ReportLinksTable = {
      listing_id: listingId,
      token_digest: tokenDigest(token),
      created_at: options.now,
      expires_at: options.now + days * DAY_MS,
      revoked_at: null,
    };
    await this.queries
      .insertInto('report_links')
      .values(row)
      .onConflict((conflict) =>
        conflict.column('listing_id').doUpdateSet({
          token_digest: row.token_digest,
          created_at: row.created_at,
          expires_at: row.expires_at,
          revoked_at: null,
        }),
      )
      .execute();
    return { token, link: fromRow(row) };
  }

  /** Stops the listing's link at once; false when it had none that still worked. */
  async revoke(listingId: number, now: number): Promise<boolean> {
    const result = await this.queries
      .updateTable('report_links')
      .set({ revoked_at: now })
      .where('listing_id', '=', listingId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The listing a token opens now: undefined for a token never made, replaced, revoked or expired. */
  async listingOf(token: string, now: number): Promise<number | undefined> {
    if (!REPORT_TOKEN_PATTERN.test(token)) return undefined;
    const row = await this.queries
      .selectFrom('report_links')
      .select('listing_id')
      .where('token_digest', '=', tokenDigest(token))
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? Number(row.listing_id) : undefined;
  }

  /** Every listing's link, live or not, newest first. */
  async list(): Promise<ReportLink[]> {
    const rows = await this.queries.selectFrom('report_links').selectAll().orderBy('created_at', 'desc').execute();
    return rows.map(fromRow);
  }
}

/**
 * How many links work now, read from an agency's SQLite store without opening it for writing (the
 * operator's `agencies` view); 0 for a store older than the table.
 */
export function liveReportLinkCount(store: Store, now: number): number {
  if (!hasTable(store, 'report_links')) return 0;
  return tablesOf(store).prepare('SELECT COUNT(*) FROM report_links WHERE revoked_at IS NULL AND expires_at > ?').pluck().get(now) as number;
}

function fromRow(row: ReportLinksTable): ReportLink {
  return {
    listingId: Number(row.listing_id),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}
