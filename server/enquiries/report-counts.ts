import type { Store } from '../store/store.ts';
import { queriesOf } from '../store/tables.ts';

/** The kinds of lead a listing receives (appraisals are about the visitor's own home, never a listing). */
export type ListingLeadKind = 'enquiry' | 'open-home' | 'inspection';

/** One day's leads for a listing, by kind. */
export interface ListingLeadDay {
  day: string;
  enquiry: number;
  'open-home': number;
  inspection: number;
}

/** Registrations for one of the listing's open homes (its times as the registration found them). */
export interface OpenHomeRegistrations {
  openHomeId: number;
  start: string | null;
  end: string | null;
  registrations: number;
}

export interface ListingLeadCounts {
  /** Days with any lead, oldest first. */
  days: ListingLeadDay[];
  openHomes: OpenHomeRegistrations[];
  /** Leads whose details were erased after delivery (ENQUIRY_ERASE_AFTER_DAYS): counted, their kind no longer known. */
  erased: Array<{ day: string; leads: number }>;
}

interface OutboxCountRow {
  listing_id: number | null;
  accepted_at: number;
  status: string;
  spam_reason: string | null;
  payload: string | null;
}

/**
 * The leads one listing received from `since` to `until` (days in `timeZone`, both included), for
 * the seller's report: every accepted lead whatever became of its delivery, except those the relay
 * took for spam (quarantined, a repeat registration, a form sent faster than a person types). Read
 * from the enquiry outbox (its only reader outside this module's repository is this function); no
 * personal data leaves it, only kinds, days and open-home ids.
 */
export async function listingLeadCounts(
  store: Store,
  listingId: number,
  range: { since: string; until: string },
  timeZone: string,
): Promise<ListingLeadCounts> {
  const db = queriesOf(store).db.withTables<{ enquiry_outbox: OutboxCountRow }>();
  // A day either side of the range in UTC, whatever the zone's offset; the exact days are chosen below.
  const from = Date.parse(`${range.since}T00:00:00Z`) - 86_400_000;
  const to = Date.parse(`${range.until}T00:00:00Z`) + 2 * 86_400_000;
  const rows = await db
    .selectFrom('enquiry_outbox')
    .select(['accepted_at', 'status', 'spam_reason', 'payload'])
    .where('listing_id', '=', listingId)
    .where('accepted_at', '>=', from)
    .where('accepted_at', '<', to)
    .execute();
  const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const days = new Map<string, ListingLeadDay>();
  const openHomes = new Map<number, OpenHomeRegistrations>();
  const erased = new Map<string, number>();
  for (const row of rows) {
    if (row.status === 'spam' || row.spam_reason !== null) continue;
    const day = dayFormat.format(Number(row.accepted_at));
    if (day < range.since || day > range.until) continue;
    const lead = row.payload === null ? null : (JSON.parse(row.payload) as { kind?: string; openHomeId?: number; openHome?: { start: string; end: string } });
    if (lead === null) {
      erased.set(day, (erased.get(day) ?? 0) + 1);
      continue;
    }
    const kind: ListingLeadKind | undefined =
      lead.kind === undefined || lead.kind === 'enquiry' ? 'enquiry' : lead.kind === 'open-home' || lead.kind === 'inspection' ? lead.kind : undefined;
    if (!kind) continue;
    const counts = days.get(day) ?? { day, enquiry: 0, 'open-home': 0, inspection: 0 };
    counts[kind] += 1;
    days.set(day, counts);
    if (kind === 'open-home' && typeof lead.openHomeId === 'number') {
      const entry = openHomes.get(lead.openHomeId) ?? {
        openHomeId: lead.openHomeId,
        start: lead.openHome?.start ?? null,
        end: lead.openHome?.end ?? null,
        registrations: 0,
      };
      entry.registrations += 1;
      openHomes.set(lead.openHomeId, entry);
    }
  }
  const byDay = <T extends { day: string }>(list: T[]) => list.sort((a, b) => (a.day < b.day ? -1 : 1));
  return {
    days: byDay([...days.values()]),
    openHomes: [...openHomes.values()],
    erased: byDay([...erased].map(([day, leads]) => ({ day, leads }))),
  };
}
