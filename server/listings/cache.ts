import type { ListingStatus, ListingType } from '../../contract/relay-api.ts';
import type { Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';
import type { LeadDestination } from '../enquiries/sink.ts';
import type { AgentTarget, ListingTarget } from '../enquiries/targets.ts';
import { writeRebuildable } from '../photos/rebuildable.ts';
import { agentRowProblem, listingRowProblem } from './public-schema.ts';
import type { AgentFields, ListingFacts, MappedAgent, MappedListing, OpenHome, PublicListingFields } from './source.ts';
import type { ListingPlacements } from './placement.ts';
import { shownPriceCents } from './price-range.ts';
import { searchText } from './keywords.ts';

/**
 * The cache's tables, parents first: what relays on one database copy from the agency's sync holder
 * (cluster/replica.ts). A copied listing or agent must carry public JSON of the API's shape, nothing
 * past the allow-list (public-schema.ts): a row edited in PostgreSQL is set aside, not served.
 */
export const LISTING_CACHE_TABLES = [
  { name: 'listings', check: listingRowProblem },
  'listing_agents',
  { name: 'agents', check: agentRowProblem },
  'open_homes',
  'listing_sync_state',
] as const;

/** A cached listing as the API reads it. */
export interface CachedListing {
  id: number;
  type: ListingType;
  status: ListingStatus;
  fields: PublicListingFields;
  agentIds: number[];
}

/** A listing's fields a map pin shows (ListingCache.findMapRows). */
export interface MapRow {
  id: number;
  type: ListingType;
  status: ListingStatus;
  addressDisplay: string | null;
  heading: string | null;
  displayPrice: string | null;
  bed: number | null;
  bath: number | null;
  cars: number | null;
}

export interface CachedAgent {
  id: number;
  fields: AgentFields;
  /** The source gives them a public-facing role (MappedAgent.publicRole). */
  publicRole: boolean;
}

export type OpenHomeRow = OpenHome;

/** Sync bookkeeping kept in listing_sync_state: each field is a row, keyed by its name. */
export interface SyncState {
  /** When the last successful sync (of either kind) started: the cache is at least this fresh. */
  lastSuccessAt: number | null;
  /** Start of the last successful full sweep. */
  lastFullSweepAt: number | null;
  /** modifiedSince for the next incremental sync. */
  modifiedSince: number | null;
  /** Number of the last full sweep started (listings.seen_sweep refers to it). */
  sweep: number;
  lastError: string | null;
  lastErrorAt: number | null;
}

/**
 * The listing cache in SQLite: what the public API answers from, and what the sync writes. After
 * every write the sync calls `changed()`, which lets the API drop its rendered responses.
 */
export class ListingCache {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly store: Store,
    /** Told of every listing written or removed, to put it on the map (server/places/). */
    private readonly placements?: ListingPlacements,
  ) {}

  /** Whether the store is taking writes (store.ts): a sync waits while another process holds the lock. */
  get writes() {
    return this.store.writes;
  }

  private get db() {
    return tablesOf(this.store);
  }

  /** Called after every change (the API clears its response cache). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** The tables were written from outside this cache (another relay's sync, copied here): forget what is kept in memory. */
  reloaded(): void {
    this.state = undefined;
    this.changed();
  }

  /** The CRM's `modified` of each cached listing: what decides whether a record changed. */
  modifiedMarkers(): Map<number, { modified: string | null; source: string }> {
    const rows = this.db.prepare('SELECT id, crm_modified AS modified, source FROM listings').all() as Array<{
      id: number;
      modified: string | null;
      source: string;
    }>;
    return new Map(rows.map((row) => [row.id, { modified: row.modified, source: row.source }]));
  }

  /** The cached listings of one CRM property (one per sale or lease life) and where each came from, to fetch them again. */
  placementsOfProperty(propertyId: number): Array<{ id: number; source: string; type: ListingType; status: ListingStatus }> {
    return this.db.prepare('SELECT id, source, type, status FROM listings WHERE property_id = ? ORDER BY id').all(propertyId) as Array<{
      id: number;
      source: string;
      type: ListingType;
      status: ListingStatus;
    }>;
  }

  /**
   * The listing an id names: a listing id, else (links and enquiry forms made before listings had
   * ids of their own carry the CRM property id) the property's current listing, for sale first.
   */
  private resolveId(id: number): number | undefined {
    return this.db
      .prepare(
        `SELECT id FROM listings WHERE id = @id
         UNION ALL
         SELECT * FROM (SELECT id FROM listings WHERE property_id = @id
           ORDER BY status = 'available' DESC, type = 'sale' DESC, modified_at DESC LIMIT 1)
         LIMIT 1`,
      )
      .pluck()
      .get({ id }) as number | undefined;
  }

  /** Writes one listing (facts, public fields, agents). `sweep` marks it seen by that full sweep. */
  upsertListing(mapped: MappedListing, sweep: number | null, now: number): void {
    const { facts } = mapped;
    let fields = mapped.fields;
    if (!mapped.hasHighlights) {
      // List items may lack the highlights a single-record fetch brought: keep those rather than blank them.
      const previous = this.db.prepare('SELECT public_json FROM listings WHERE id = ?').pluck().get(facts.id) as string | undefined;
      if (previous) fields = { ...fields, features: (JSON.parse(previous) as PublicListingFields).features };
    }
    const agentIds = mapped.staff.filter((member) => !member.agent || member.agent.showOnWeb).map((member) => member.id);
    writeRebuildable(this.db, () => {
      this.db
        .prepare(
          `INSERT INTO listings (id, property_id, source, type, status, lead_destination, reference, crm_modified, inserted_at, modified_at,
             suburb, property_type, price_low_cents, price_high_cents, shown_price_cents, bed, bath, cars, land_area_sqm, search_text, public_json,
             seen_sweep, synced_at)
           VALUES (@id, @propertyId, @source, @type, @status, @leadDestination, @reference, @crmModified, @insertedAt, @modifiedAt,
             @suburb, @propertyType, @priceLowCents, @priceHighCents, @shownPriceCents, @bed, @bath, @cars, @landAreaSqm, @searchText, @publicJson,
             COALESCE(@sweep, 0), @now)
           ON CONFLICT (id) DO UPDATE SET
             property_id = excluded.property_id, source = excluded.source, type = excluded.type, status = excluded.status,
             lead_destination = excluded.lead_destination, reference = excluded.reference, crm_modified = excluded.crm_modified,
             inserted_at = excluded.inserted_at, modified_at = excluded.modified_at, suburb = excluded.suburb,
             property_type = excluded.property_type, price_low_cents = excluded.price_low_cents, price_high_cents = excluded.price_high_cents,
             shown_price_cents = excluded.shown_price_cents, search_text = excluded.search_text, bed = excluded.bed, bath = excluded.bath,
             cars = excluded.cars, land_area_sqm = excluded.land_area_sqm, public_json = excluded.public_json,
             seen_sweep = COALESCE(@sweep, listings.seen_sweep), synced_at = excluded.synced_at`,
        )
        .run({
          ...facts,
          // Both from the public fields only: the sort and the keyword filter can tell nothing the listing's page does not.
          shownPriceCents: shownPriceCents(fields.displayPrice),
          searchText: searchText(fields.heading, fields.description, ...(fields.features ?? [])),
          publicJson: JSON.stringify(fields),
          sweep,
          now,
        } satisfies ListingFacts & Record<string, unknown>);
      this.db.prepare('DELETE FROM listing_agents WHERE listing_id = ?').run(facts.id);
      const link = this.db.prepare('INSERT OR IGNORE INTO listing_agents (listing_id, agent_id, position) VALUES (?, ?, ?)');
      agentIds.forEach((agentId, position) => link.run(facts.id, agentId, position));
      // Staff records on residential lists are complete: keep them, so agents show before the next user sweep.
      for (const member of mapped.staff) {
        if (member.agent) this.writeAgent(member.agent, now);
      }
    });
    this.placements?.written([{ id: facts.id, place: mapped.place }]);
  }

  /** Marks listings (unchanged, so not rewritten) as seen by a full sweep. */
  markSeen(ids: readonly number[], sweep: number): void {
    const mark = this.db.prepare('UPDATE listings SET seen_sweep = ? WHERE id = ?');
    writeRebuildable(this.db, () => ids.forEach((id) => mark.run(sweep, id)));
  }

  /** Listings of `source` the sweep did not see: they left the CRM's list. */
  unseen(source: string, sweep: number): number[] {
    return this.db.prepare('SELECT id FROM listings WHERE source = ? AND seen_sweep <> ?').pluck().all(source, sweep) as number[];
  }

  removeListings(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const remove = this.db.prepare('DELETE FROM listings WHERE id = ?');
    const removeOpenHomes = this.db.prepare('DELETE FROM open_homes WHERE listing_id = ?');
    writeRebuildable(this.db, () => {
      for (const id of ids) {
        remove.run(id);
        removeOpenHomes.run(id);
      }
    });
    this.placements?.removed(ids);
  }

  /** Agents from the source's staff list (authoritative) or from a listing's staff. */
  upsertAgents(agents: readonly MappedAgent[], now: number): void {
    writeRebuildable(this.db, () => agents.forEach((agent) => this.writeAgent(agent, now)));
  }

  private writeAgent(mapped: MappedAgent, now: number): void {
    this.db
      .prepare(
        `INSERT INTO agents (id, show_on_web, public_role, lead_destination, public_json, synced_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET show_on_web = excluded.show_on_web, public_role = excluded.public_role,
           lead_destination = excluded.lead_destination, public_json = excluded.public_json, synced_at = excluded.synced_at`,
      )
      .run(mapped.id, mapped.showOnWeb ? 1 : 0, mapped.publicRole ? 1 : 0, mapped.leadDestination, JSON.stringify(mapped.fields), now);
  }

  /** Agents no longer in the account (after a complete user list). */
  removeAgentsExcept(ids: readonly number[]): number[] {
    const keep = new Set(ids);
    const gone = (this.db.prepare('SELECT id FROM agents').pluck().all() as number[]).filter((id) => !keep.has(id));
    const remove = this.db.prepare('DELETE FROM agents WHERE id = ?');
    writeRebuildable(this.db, () => gone.forEach((id) => remove.run(id)));
    return gone;
  }

  /** Replaces every upcoming open home (after a complete open-home list). */
  replaceOpenHomes(rows: readonly OpenHomeRow[]): void {
    const insert = this.db.prepare('INSERT OR REPLACE INTO open_homes (id, listing_id, starts_at, ends_at) VALUES (?, ?, ?, ?)');
    writeRebuildable(this.db, () => {
      this.db.prepare('DELETE FROM open_homes').run();
      for (const row of rows) insert.run(row.id, row.listingId, row.start, row.end);
    });
  }

  /** Open homes cached, for the budget planner. */
  countOpenHomes(): number {
    return this.db.prepare('SELECT COUNT(*) FROM open_homes').pluck().get() as number;
  }

  counts(): { available: number; sold: number; leased: number; agents: number } {
    const byStatus = Object.fromEntries(
      (this.db.prepare('SELECT status, COUNT(*) AS n FROM listings GROUP BY status').all() as Array<{ status: string; n: number }>).map((row) => [
        row.status,
        row.n,
      ]),
    );
    const agents = this.db.prepare('SELECT COUNT(*) FROM agents WHERE show_on_web = 1').pluck().get() as number;
    return { available: byStatus.available ?? 0, sold: byStatus.sold ?? 0, leased: byStatus.leased ?? 0, agents };
  }

  /** Listing count per CRM list, for the budget planner's page estimate. */
  countsBySource(): Map<string, number> {
    const rows = this.db.prepare('SELECT source, COUNT(*) AS n FROM listings GROUP BY source').all() as Array<{ source: string; n: number }>;
    return new Map(rows.map((row) => [row.source, row.n]));
  }

  /** Read on every API answer (the cache's age): kept in memory, refreshed by writeState. */
  private state: SyncState | undefined;

  readState(): SyncState {
    return (this.state ??= this.loadState());
  }

  private loadState(): SyncState {
    return readSyncState(this.store);
  }

  writeState(patch: Partial<SyncState>): void {
    this.state = undefined;
    const upsert = this.db.prepare('INSERT INTO listing_sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    const remove = this.db.prepare('DELETE FROM listing_sync_state WHERE key = ?');
    writeRebuildable(this.db, () => {
      for (const [field, value] of Object.entries(patch) as Array<[keyof SyncState, unknown]>) {
        if (value === null || value === undefined) remove.run(SYNC_STATE_KEYS[field]);
        else upsert.run(SYNC_STATE_KEYS[field], String(value));
      }
    });
  }

  /** These listings count as changed and the next sync is a full sweep (refetchListings), in this running cache. */
  refetch(listingIds: Iterable<number>): void {
    refetchListings(this.store, listingIds);
    this.state = undefined;
  }

  // Reads for the API -------------------------------------------------------------------------

  /** A listing by its id (or, for old links, by its CRM property id: see resolveId). */
  getListing(id: number): CachedListing | undefined {
    const resolved = this.resolveId(id);
    if (resolved === undefined) return undefined;
    const row = this.db.prepare('SELECT id, type, status, public_json FROM listings WHERE id = ?').get(resolved) as ListingRow | undefined;
    return row ? this.toCached([row])[0] : undefined;
  }

  /**
   * Every distinct low and high price edge in the cache (whole cents, ascending): the only values
   * at which a price filter's answer can change (query.ts, snapPriceFilters).
   */
  priceEdges(): { lows: number[]; highs: number[] } {
    const column = (name: 'price_low_cents' | 'price_high_cents') =>
      this.db.prepare(`SELECT DISTINCT ${name} FROM listings WHERE ${name} IS NOT NULL ORDER BY ${name}`).pluck().all() as number[];
    return { lows: column('price_low_cents'), highs: column('price_high_cents') };
  }

  /** Runs a prepared listing query (see query.ts) and returns the page with the total. */
  findListings(where: string, params: unknown[], orderBy: string, limit: number, offset: number): { rows: CachedListing[]; total: number } {
    const total = this.db
      .prepare(`SELECT COUNT(*) FROM listings WHERE ${where}`)
      .pluck()
      .get(...params) as number;
    const rows = this.db
      .prepare(`SELECT id, type, status, public_json FROM listings WHERE ${where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as ListingRow[];
    return { rows: this.toCached(rows), total };
  }

  /** The ids of every listing `where` selects, in `orderBy` (the map's index: its listings' public fields are read only for the pins it shows). */
  findIds(where: string, params: unknown[], orderBy: string): number[] {
    return this.db
      .prepare(`SELECT id FROM listings WHERE ${where} ORDER BY ${orderBy}`)
      .pluck()
      .all(...params) as number[];
  }

  /**
   * The few public fields a map pin shows, for these listings (those still cached; in no order):
   * the counts from their columns (the same numbers as the public fields), the texts by SQLite's
   * json_extract rather than parsing each listing's whole public JSON (its description) here.
   */
  findMapRows(ids: readonly number[]): MapRow[] {
    if (ids.length === 0) return [];
    // One json_extract with three paths parses each listing's JSON once (an array of the three comes back).
    const rows = this.db
      .prepare(
        `SELECT id, type, status, bed, bath, cars,
                json_extract(public_json, '$.address.display', '$.heading', '$.displayPrice') AS texts
         FROM listings WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids)) as Array<Omit<MapRow, 'addressDisplay' | 'heading' | 'displayPrice'> & { texts: string }>;
    return rows.map(({ texts, ...row }) => {
      const [addressDisplay, heading, displayPrice] = JSON.parse(texts) as [string | null, string | null, string | null];
      return { ...row, addressDisplay, heading, displayPrice };
    });
  }

  private toCached(rows: ListingRow[]): CachedListing[] {
    if (rows.length === 0) return [];
    const links = this.db
      .prepare(
        `SELECT listing_id AS listingId, agent_id AS agentId FROM listing_agents
         WHERE listing_id IN (SELECT value FROM json_each(?)) ORDER BY listing_id, position`,
      )
      .all(JSON.stringify(rows.map((row) => row.id))) as Array<{ listingId: number; agentId: number }>;
    const agentsOf = new Map<number, number[]>();
    for (const link of links) agentsOf.set(link.listingId, [...(agentsOf.get(link.listingId) ?? []), link.agentId]);
    return rows.map((row) => ({
      id: row.id,
      type: row.type,
      status: row.status,
      fields: JSON.parse(row.public_json) as PublicListingFields,
      agentIds: agentsOf.get(row.id) ?? [],
    }));
  }

  /** Agents shown on the web, by id (those not shown are never returned). */
  visibleAgents(ids?: readonly number[]): CachedAgent[] {
    const rows = (
      ids === undefined
        ? this.db.prepare('SELECT id, public_role, public_json FROM agents WHERE show_on_web = 1 ORDER BY id').all()
        : this.db
            .prepare('SELECT id, public_role, public_json FROM agents WHERE show_on_web = 1 AND id IN (SELECT value FROM json_each(?))')
            .all(JSON.stringify(ids))
    ) as Array<{ id: number; public_role: number; public_json: string }>;
    return rows.map((row) => ({ id: row.id, fields: JSON.parse(row.public_json) as AgentFields, publicRole: row.public_role === 1 }));
  }

  /** Per agent named on a cached listing: how many of those listings are current (for sale or lease) and how many in all. */
  listingCountsByAgent(): Map<number, { current: number; all: number }> {
    const rows = this.db
      .prepare(
        `SELECT a.agent_id AS agentId, SUM(l.status = 'available') AS current, COUNT(*) AS total
         FROM listing_agents a JOIN listings l ON l.id = a.listing_id GROUP BY a.agent_id`,
      )
      .all() as Array<{ agentId: number; current: number; total: number }>;
    return new Map(rows.map((row) => [row.agentId, { current: row.current, all: row.total }]));
  }

  /**
   * The cached listings naming this agent: `current` the available ones, newest first; `results`
   * the sold and leased ones (the showcase window), most recently changed (sold, leased) first.
   */
  listingsOfAgent(agentId: number): { current: CachedListing[]; results: CachedListing[] } {
    const select = (statuses: string, orderBy: string) =>
      this.db
        .prepare(
          `SELECT l.id, l.type, l.status, l.public_json FROM listings l JOIN listing_agents a ON a.listing_id = l.id
           WHERE a.agent_id = ? AND l.status IN (SELECT value FROM json_each(?)) ORDER BY ${orderBy}`,
        )
        .all(agentId, statuses) as ListingRow[];
    return {
      current: this.toCached(select('["available"]', 'l.inserted_at IS NULL, l.inserted_at DESC, l.id DESC')),
      results: this.toCached(select('["sold","leased"]', 'l.modified_at IS NULL, l.modified_at DESC, l.id DESC')),
    };
  }

  openHomesOf(listingId: number, after: string): OpenHomeRow[] {
    return this.db
      .prepare('SELECT id, listing_id AS listingId, starts_at AS start, ends_at AS end FROM open_homes WHERE listing_id = ? AND ends_at > ? ORDER BY starts_at')
      .all(listingId, after) as OpenHomeRow[];
  }

  /**
   * For the enquiry relay: where an enquiry about this listing goes, as the source's adapter said
   * (its token, never read here).
   */
  listingTarget(id: number): ListingTarget | undefined {
    const resolved = this.resolveId(id);
    if (resolved === undefined) return undefined;
    const row = this.db.prepare('SELECT lead_destination AS destination FROM listings WHERE id = ?').get(resolved) as
      { destination: string | null } | undefined;
    return row && { destination: row.destination as LeadDestination | null };
  }

  /** For the enquiry relay: one open home of a listing while it is on the listing's list (a cancelled one leaves it at the next sync). */
  openHome(listingId: number, openHomeId: number): { start: string; end: string } | undefined {
    const resolved = this.resolveId(listingId);
    if (resolved === undefined) return undefined;
    return this.db.prepare('SELECT starts_at AS start, ends_at AS end FROM open_homes WHERE id = ? AND listing_id = ?').get(openHomeId, resolved) as
      { start: string; end: string } | undefined;
  }

  /** The suburbs of the agency's listings (any status), A–Z, each with the postcode and state most of its listings give. */
  suburbs(): Array<{ name: string; postcode: string | null; state: string | null }> {
    return this.db
      .prepare(
        `SELECT name, postcode, state FROM (
           SELECT name, postcode, state,
             ROW_NUMBER() OVER (PARTITION BY lower(name) ORDER BY COUNT(*) DESC, postcode) AS rank
           FROM (SELECT json_extract(public_json, '$.address.suburb') AS name, json_extract(public_json, '$.address.postcode') AS postcode,
               json_extract(public_json, '$.address.state') AS state FROM listings)
           WHERE name IS NOT NULL AND name != ''
           GROUP BY lower(name), postcode, state)
         WHERE rank = 1 ORDER BY name COLLATE NOCASE`,
      )
      .all() as Array<{ name: string; postcode: string | null; state: string | null }>;
  }

  /** For the enquiry relay: where a "contact me" enquiry to this agent goes, if shown on the web. */
  agentTarget(id: number): AgentTarget | undefined {
    const found = this.db.prepare('SELECT lead_destination FROM agents WHERE id = ? AND show_on_web = 1').pluck().get(id) as string | null | undefined;
    // A row without one (never, since migration 100 and the adapter fill it) has nowhere to go: unknown.
    return found == null ? undefined : { destination: found as LeadDestination };
  }
}

interface ListingRow {
  id: number;
  type: ListingType;
  status: ListingStatus;
  public_json: string;
}

/** The keys of listing_sync_state: SyncState's fields. */
export const SYNC_STATE_KEYS = {
  lastSuccessAt: 'lastSuccessAt',
  lastFullSweepAt: 'lastFullSweepAt',
  modifiedSince: 'modifiedSince',
  sweep: 'sweep',
  lastError: 'lastError',
  lastErrorAt: 'lastErrorAt',
} as const satisfies { [Key in keyof SyncState]: Key };

/** The sync bookkeeping, read from any store (the running relay's, or read-only by the operator CLI). */
export function readSyncState(store: Store): SyncState {
  const rows = hasTable(store, 'listing_sync_state')
    ? (tablesOf(store).prepare('SELECT key, value FROM listing_sync_state').all() as Array<{ key: string; value: string }>)
    : [];
  const map = new Map(rows.map((row) => [row.key, row.value]));
  const number = (key: string) => (map.has(key) ? Number(map.get(key)) : null);
  return {
    lastSuccessAt: number(SYNC_STATE_KEYS.lastSuccessAt),
    lastFullSweepAt: number(SYNC_STATE_KEYS.lastFullSweepAt),
    modifiedSince: number(SYNC_STATE_KEYS.modifiedSince),
    sweep: number(SYNC_STATE_KEYS.sweep) ?? 0,
    lastError: map.get(SYNC_STATE_KEYS.lastError) ?? null,
    lastErrorAt: number(SYNC_STATE_KEYS.lastErrorAt),
  };
}

/** The cache's figures for `npm run relay -- status`: listings by type, then status; agents shown on the web. */
export function listingStatus(store: Store): { byType: Record<string, Record<string, number>>; total: number; agents: number } {
  const byType: Record<string, Record<string, number>> = {};
  let total = 0;
  if (!hasTable(store, 'listings')) return { byType, total, agents: 0 };
  const db = tablesOf(store);
  for (const row of db.prepare('SELECT type, status, COUNT(*) AS n FROM listings GROUP BY type, status ORDER BY type, status').all() as Array<{
    type: string;
    status: string;
    n: number;
  }>) {
    (byType[row.type] ??= {})[row.status] = row.n;
    total += row.n;
  }
  const agents = db.prepare('SELECT COUNT(*) FROM agents WHERE show_on_web = 1').pluck().get() as number;
  return { byType, total, agents };
}

/** Listings cached (0 before the table exists): sampled by the sync progress display, counted in a backup. */
export function countListings(store: Store): number {
  return hasTable(store, 'listings') ? (tablesOf(store).prepare('SELECT COUNT(*) FROM listings').pluck().get() as number) : 0;
}

/**
 * After a restore whose photo files are missing: these listings count as changed, and the next
 * sync is a full sweep (an incremental one reads only what the CRM changed lately), so it fetches
 * their photos again.
 */
export function refetchListings(store: Store, listingIds: Iterable<number>): void {
  const db = tablesOf(store);
  const mark = db.prepare('UPDATE listings SET crm_modified = NULL WHERE id = ?');
  for (const id of listingIds) mark.run(id);
  const forget = db.prepare('DELETE FROM listing_sync_state WHERE key = ?');
  forget.run(SYNC_STATE_KEYS.lastFullSweepAt);
  forget.run(SYNC_STATE_KEYS.modifiedSince);
}
