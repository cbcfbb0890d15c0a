import type { AgentProfileText, ListingDetail, ListingStatus, ListingType } from '../../contract/relay-api.ts';
import type { LeadDestination } from '../enquiries/sink.ts';
import type { SourcePhoto } from '../photos/mirror.ts';

/*
 * The listing source: what the listings feature needs from the agency's CRM, in the relay's terms.
 * server/crm/listing-source.ts implements it for this CRM (its paths, paging, ids, field names,
 * webhook format and event stream); a second CRM brings its own. Where an enquiry about a listing
 * or an agent goes is the adapter's opaque LeadDestination, never the CRM's ids. The sync decides
 * what to write, remove and when; the source says what is there, already mapped to what the cache
 * stores.
 */

/** The public fields of a listing that come from its source record (photos, agents and open homes are joined in later). */
export type PublicListingFields = Omit<ListingDetail, 'photo' | 'photoCount' | 'photos' | 'floorplans' | 'agents' | 'openHomes' | 'position' | 'office'>;

/**
 * Where a listing is, as far as the agency lets it be known: what the places module (server/places/)
 * puts it on a map from. The street and the source's coordinates are there only when the agency
 * shows the full address; otherwise the listing is placed at its suburb and its street is never
 * sent anywhere.
 */
export interface ListingPlace {
  /** "3/12 Example Street"; null when the street is withheld or unknown. */
  street: string | null;
  suburb: string | null;
  state: string | null;
  postcode: string | null;
  /** ISO 3166-1 alpha-2 country code ("AU"); null when the record does not say. */
  country: string | null;
  /** The source's own coordinates; null when absent or when the full address is withheld. */
  coordinates: { lat: number; lng: number } | null;
}

/** What the cache keeps beside the public fields, for lookups, filters and sorting. Never published as is. */
export interface ListingFacts {
  /** The public listing id, as the source gives it: stable while the listing lasts (from available to sold or leased). */
  id: number;
  /** The CRM property: its photos, webhooks and links made before listings had ids of their own name it. */
  propertyId: number;
  source: string;
  type: ListingType;
  status: ListingStatus;
  /**
   * Where an enquiry about this listing goes: a token the source's adapter makes and its lead sink
   * reads (enquiries/sink.ts), stored as is; null when the record names nowhere to deliver to.
   */
  leadDestination: LeadDestination | null;
  /** The agency's own reference for the listing. */
  reference: string | null;
  /** The source's change marker: a record seen again with the same marker in the same list is not written again. */
  crmModified: string | null;
  insertedAt: number | null;
  modifiedAt: number | null;
  suburb: string | null;
  propertyType: string | null;
  /** Internal only, for price filters and sorting: the search price, or its band when the price is withheld (cents). */
  priceLowCents: number | null;
  /** Inclusive; null with a price: the open top band. */
  priceHighCents: number | null;
  bed: number | null;
  bath: number | null;
  cars: number | null;
  landAreaSqm: number | null;
}

/**
 * What the cache keeps of a staff member for the public side (agents.public_json). Both ways of
 * reaching them are kept, and which one an answer shows is chosen when answering, from the agency's
 * setting (AGENT_DIRECT_CONTACT, listings/team.ts): a changed setting takes effect at a restart,
 * with no new read of the source.
 */
export interface AgentFields {
  id: number;
  name: string;
  position: string | null;
  /** Their line at the office (not a mobile): the number shown by default. */
  officePhone: string | null;
  /** Their own mobile, null where they hide it from portals: shown only with AGENT_DIRECT_CONTACT. */
  mobile: string | null;
  /** Their own e-mail address: shown only with AGENT_DIRECT_CONTACT. */
  email: string | null;
  /** Their profile, cleaned by the adapter (HTML to a small safe set of tags, else plain text). */
  profile: AgentProfileText | null;
}

/** A staff member, public part only. Callers publish only those with showOnWeb true. */
export interface MappedAgent {
  id: number;
  showOnWeb: boolean;
  /**
   * Whether the source gives them a public-facing role (a sales or leasing agent): with showOnWeb,
   * enough to be on the team without listings of their own. The role itself never leaves the adapter.
   */
  publicRole: boolean;
  /** Where a contact-me enquiry to this person goes: the adapter's token, like a listing's. */
  leadDestination: LeadDestination;
  fields: AgentFields;
  photo: SourcePhoto | null;
}

/** A staff member named on a listing: the whole record when the listing carried it, else only the id. */
export interface ListingStaff {
  id: number;
  /** null: only the id came (commercial and land lists), which cannot say whether to show the person. */
  agent: MappedAgent | null;
}

export interface MappedListing {
  facts: ListingFacts;
  fields: PublicListingFields;
  /** Published photos and floorplans, in the source's order. */
  photos: SourcePhoto[];
  /** Staff on the listing (only those shown on the web are kept by the cache). */
  staff: ListingStaff[];
  /** Whether the record carried `highlights` (single records do, list items may not). */
  hasHighlights: boolean;
  /** Where it is, for the map (server/places/). */
  place: ListingPlace;
}

/** One list the sync reads, and what its records are on the public side. */
export interface SourceList {
  /** Also the `source` column of cached listings: removals are decided per list. */
  source: string;
  /** The lists a listing moves between as its status changes share a group (e.g. the CRM's property class). */
  group: string;
  type: ListingType;
  status: ListingStatus;
  /** Only records changed since then (the sold showcase window), whatever the kind of run. */
  windowStart?(now: number): number;
}

/** A record as a list gives it: enough to tell whether it changed, and how to read it whole. */
export interface ListedRecord {
  /** The public listing id. */
  id: number;
  /** The source's change marker (compared with the cached one). */
  modified: string | null;
  /** The listing as the cache stores it; reads its photos when the list left them out (one more request). */
  load(signal: AbortSignal): Promise<MappedListing>;
}

export interface SourcePage<T> {
  items: T[];
  /** Records in the whole list, as the source counted it when this page was read. */
  total: number;
  totalPages: number;
}

/** An upcoming open home, on its listing. */
export interface OpenHome {
  id: number;
  listingId: number;
  start: string;
  end: string;
}

/** A record pushed with a change notice, as the source reads it. */
export interface PushedListing {
  id: number;
  type: ListingType;
  /** The record's list group; undefined when the record does not say. */
  group: string | undefined;
  /** The status list it belongs in now; undefined: in none (withdrawn, or sold without a showcase). */
  status: ListingStatus | undefined;
  load(list: SourceList, signal: AbortSignal): Promise<MappedListing>;
}

/** A record a notice carried, stored with it until applied: only its source reads it. */
export type PushedRecord = Readonly<Record<string, unknown>>;

/** What changed: `listing` (every listing of one property), `staff` (one staff member). */
export type ChangedKind = 'listing' | 'staff';

export interface ChangeNotice {
  /** undefined: something the relay does not use (acknowledged, counted, ignored). */
  kind: ChangedKind | undefined;
  /** The source's event name, e.g. `property.update` (for logs and counts). */
  name: string;
  id: number | undefined;
  /** When the change happened (ms since the epoch, to the whole second). */
  at: number;
  /** Records the notice carried, checked like any answer of the source. */
  records: PushedRecord[];
  /** Records that named the relay's model but failed its checks (the change is then read from the source). */
  invalidRecords: number;
  /**
   * The source account (agency) the change belongs to, when the notice says: one webhook URL gets
   * every account's changes. Undefined: it does not say (the stream's are this token's own).
   */
  account?: string;
}

export type SignatureCheck =
  | { ok: true; timestampMs: number; /** The verified digest: the key replays are refused by. */ digest: string }
  | { ok: false; reason: 'missing' | 'malformed' | 'mismatch' | 'stale' };

/** A pushed notice whose body is not in the source's format; `field` names the part. */
export class MalformedPushError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'MalformedPushError';
  }
}

/** The change stream refused a saved position (too old): read again from a time. */
export class ExpiredCursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpiredCursorError';
  }
}

export interface ChangeRead {
  notices: ChangeNotice[];
  /** Where to go on next time; undefined when the source gave none. */
  cursor: string | undefined;
  /** Requests spent. */
  pages: number;
}

/** Signed change notices the source pushes (webhooks), and the change stream that catches the lost ones. */
export interface ChangeFeed {
  /** False when the source cannot sign (no key): the webhook is then not offered. */
  readonly canVerify: boolean;
  /** The setting that enables verification, for the answer when it is missing. */
  readonly keySetting: string;
  readonly signatureHeader: string;
  /** The header's form, for a refusal's message. */
  readonly signatureForm: string;
  /** Checks the signature on the raw bytes, before anything parses them. */
  verify(header: string | undefined, rawBody: Buffer, nowMs: number, toleranceMs: number): SignatureCheck;
  /** Reads a verified body. Throws MalformedPushError (naming the field) for a body not in the source's shape. */
  parse(rawBody: Buffer, receivedAt: number): ChangeNotice;
  /** Changes older than this are gone from the stream. */
  readonly retentionMs: number;
  /** Reads the stream from a saved position (ExpiredCursorError when refused) or from a time. */
  read(from: { cursor: string } | { since: Date }, options: { signal?: AbortSignal; now?: number }): Promise<ChangeRead>;
}

export interface ListingSource {
  /** The lists the sync reads, for these settings. */
  readonly lists: readonly SourceList[];
  /** Records per page of a list (the budget planner counts pages with it). */
  readonly pageSize: number;
  /** Reads one list, page after page; only records changed since `changedSince` when given. */
  readList(list: SourceList, options: { changedSince?: Date; signal: AbortSignal; pageSize?: number }): AsyncIterable<SourcePage<ListedRecord>>;
  /**
   * The property's current listing of `list.type` (sale or lease): its id and whether it changed
   * at or after a time; 'gone' when the source no longer has it. One request.
   */
  currentListing(list: SourceList, propertyId: number, signal: AbortSignal): Promise<'gone' | { id: number; changedSince(since: Date): boolean }>;
  /** Every staff member, page after page. */
  staff(signal: AbortSignal): AsyncIterable<SourcePage<MappedAgent>>;
  /** Open homes starting within the window, page after page. */
  openHomes(window: { from: Date; to: Date }, signal: AbortSignal): AsyncIterable<SourcePage<OpenHome>>;
  /** Reads a record a notice carried; undefined when it says neither sale nor lease. */
  pushedListing(record: PushedRecord): PushedListing | undefined;
  /** This agency's account id at the source, as its notices name it (one request). */
  accountId(signal: AbortSignal): Promise<string>;
  /** A digest naming the credentials the source uses (never them): an account id learned with others is looked up again. */
  readonly credentialsId: string;
  /** Requests spent so far (the shared budget counter), to report what a run cost. */
  requestsSpent(): number;
  /** A failure in the source's words, with the setting to check when it names one; undefined for an error not its own. */
  describeError(error: unknown): string | undefined;
  readonly changes: ChangeFeed;
}
