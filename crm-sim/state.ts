import { ContactBook } from './contacts.ts';
import { EventLog } from './events.ts';
import { FaultInjector, type FaultRule } from './faults.ts';
import { RateLimiter, type KeyUsageSnapshot, type LimitSettings } from './limits.ts';
import type { Market, SimEnquiry, SimListing, SimPhoto, SimToken, SimUser } from './model.ts';
import { renderImage } from './photos.ts';
import { Prng } from './prng.ts';
import { buildListing, type Category, CATEGORY_SHAPE, generateSeed, type SeedData } from './seed.ts';
import { agencyIdentity, type AgencyIdentity } from './seed-data.ts';
import { SECOND, startOfUtcDay } from './time.ts';
import { WebhookSender } from './webhooks.ts';
import { ChangeDriver } from './drive.ts';

/** Scope names: the real service does not publish its vocabulary, so these are the simulator's own. */
export const SCOPES = {
  propertiesRead: 'properties:read',
  enquiriesRead: 'enquiries:read',
  enquiriesWrite: 'enquiries:write',
  usersRead: 'users:read',
  accountRead: 'account:read',
  contactsRead: 'contacts:read',
  contactsWrite: 'contacts:write',
} as const;

export const ALL_SCOPES: string[] = Object.values(SCOPES);

export interface ResolvedOptions {
  listings: number;
  seed: number;
  apiKey: string;
  accessToken: string;
  requestsPerSecond: number;
  dailyLimit: number;
  now: () => Date;
  /** Which account on the key this is (0: the first); its seed, ids and identity follow from it. */
  accountIndex?: number;
  /** Keep only the first N photos of each listing (cheap accounts for benches); default all. */
  photosPerListing?: number;
}

/** Ids of different accounts on one key live this far apart, so none collide. */
export const ACCOUNT_ID_SPACING = 10_000_000;

export interface Counters {
  /** API requests by "METHOD /path" with ids replaced by {id}, including refused ones. */
  requestsByEndpoint: Record<string, number>;
  /**
   * Final HTTP status counts by endpoint; "dropped" when an injected fault cut the connection,
   * "client-closed" when the client gave up (timed out) before the answer.
   */
  statusByEndpoint: Record<string, Record<string, number>>;
  enquiriesStored: number;
  photoDownloads: number;
  photoNotModified: number;
  injectedErrors: number;
  injected429s: number;
  droppedResponses: number;
}

export interface CountersSnapshot extends Counters {
  /** Per API key: the highest number of requests seen in any one-second window, refusals, day's use. */
  perKey: Record<string, KeyUsageSnapshot>;
  totalRequests: number;
}

export interface ListingChange {
  status?: string;
  /** false takes the listing off the web (publishedToWeb null); true publishes it now. */
  published?: boolean;
  /** API fields to overwrite, by their API names (displayPrice, heading, searchPrice...). */
  fields?: Record<string, unknown>;
}

export interface NewListing extends ListingChange {
  category?: Category;
}

export class SimulatorError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const emptyCounters = (): Counters => ({
  requestsByEndpoint: {},
  statusByEndpoint: {},
  enquiriesStored: 0,
  photoDownloads: 0,
  photoNotModified: 0,
  injectedErrors: 0,
  injected429s: 0,
  droppedResponses: 0,
});

/**
 * What the integrator's API key shares across its accounts: the key itself, the limits (one
 * per-second window and one day's quota for every account), the request counters, the webhook
 * sender (one registered URL) and the file host's origin.
 */
export class IntegratorKey {
  readonly apiKeys = new Set<string>();
  readonly limiter: RateLimiter;
  readonly webhooks = new WebhookSender();
  /** Changes listings across the accounts at a chosen rate (drive.ts; POST /__sim/drive). */
  readonly driver: ChangeDriver = new ChangeDriver(this);
  counters: Counters = emptyCounters();
  origin: string | null = null;
  /** The accounts on the key, in the order they were added; the first is the default. */
  readonly accounts: SimulatorState[] = [];
  /** What a new account is made from (the first account's options). */
  template: ResolvedOptions | null = null;
  private nextIndex = 0;

  constructor(
    apiKey: string,
    readonly limits: LimitSettings,
    /** The clock of the key's limits, in epoch milliseconds (the accounts' clock). */
    readonly now: () => number,
  ) {
    this.apiKeys.add(apiKey);
    this.limiter = new RateLimiter({ ...limits });
  }

  /** The account an access token belongs to. */
  accountOfToken(token: string): { account: SimulatorState; token: SimToken } | undefined {
    for (const account of this.accounts) {
      const entry = account.tokens.get(token);
      if (entry) return { account, token: entry };
    }
    return undefined;
  }

  accountById(id: number): SimulatorState | undefined {
    return this.accounts.find((account) => account.accountId === id);
  }

  /** Called by each account as it is built: the index the next one gets. */
  register(account: SimulatorState): void {
    this.template ??= account.options;
    this.nextIndex = Math.max(this.nextIndex, account.accountIndex + 1);
    this.accounts.push(account);
  }

  /**
   * Another agency grants the integrator access: a new account with its own seeded data and its own
   * access token (derived from the first's and the index, unless given). Indexes are never reused.
   */
  addAccount(input: { listings?: number; accessToken?: string; photosPerListing?: number } = {}): SimulatorState {
    if (!this.template) throw new SimulatorError(409, 'the key has no account to model a new one on');
    const accountIndex = this.nextIndex;
    const base = this.template.accessToken;
    const accessToken = input.accessToken ?? (/\d{6}$/.test(base) ? `${base.slice(0, -6)}${String(accountIndex).padStart(6, '0')}` : `${base}-${accountIndex}`);
    if (this.accountOfToken(accessToken)) throw new SimulatorError(409, 'that access token is already in use');
    const options: ResolvedOptions = { ...this.template, accessToken, accountIndex };
    if (input.listings !== undefined) options.listings = input.listings;
    if (input.photosPerListing !== undefined) options.photosPerListing = input.photosPerListing;
    return new SimulatorState(options, this);
  }

  /** The agency revoked access: its tokens stop working at once (401). The last account stays. */
  removeAccount(id: number): SimulatorState {
    const index = this.accounts.findIndex((account) => account.accountId === id);
    if (index < 0) throw new SimulatorError(404, `no account ${id}`);
    if (this.accounts.length === 1) throw new SimulatorError(409, 'the last account on the key cannot be removed');
    const [removed] = this.accounts.splice(index, 1);
    return removed!;
  }

  countRequest(endpoint: string): void {
    this.counters.requestsByEndpoint[endpoint] = (this.counters.requestsByEndpoint[endpoint] ?? 0) + 1;
  }

  countStatus(endpoint: string, status: number | 'dropped' | 'client-closed'): void {
    const byStatus = (this.counters.statusByEndpoint[endpoint] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }

  getCounters(): CountersSnapshot {
    const totalRequests = Object.values(this.counters.requestsByEndpoint).reduce((sum, count) => sum + count, 0);
    return { ...structuredClone(this.counters), perKey: this.limiter.snapshot(), totalRequests };
  }

  resetCounters(): void {
    this.counters = emptyCounters();
    this.limiter.resetCounters();
  }

  /** Quota, counters and limits back to the start (the accounts' data is theirs to reset). */
  resetShared(): void {
    this.counters = emptyCounters();
    this.limiter.resetAll();
    this.limiter.settings = { ...this.limits };
  }
}

/**
 * Everything one simulated CRM account (one agency) holds: data, tokens, scopes, faults, events; its
 * key's counters, limits and webhook sender are reached through it. Tests running the simulator
 * in-process use these methods directly; the /__sim/ control surface calls the same ones.
 */
export class SimulatorState {
  readonly options: ResolvedOptions;
  users: SimUser[] = [];
  /** Staff who left the account (DELETE /__sim/users/:id): gone from its users, still named by the records they were on. */
  departedUsers = new Map<number, SimUser>();
  listings: SimListing[] = [];
  enquiries: SimEnquiry[] = [];
  readonly tokens = new Map<string, SimToken>();
  readonly faults: FaultInjector;
  /** The API key this account is on, shared with its other accounts. */
  readonly key: IntegratorKey;
  readonly agency: AgencyIdentity;
  /** Every change, for GET /eventStream; each also goes out as a webhook (webhooks.ts). */
  readonly events = new EventLog(() => this.now());
  /** Contacts, their categories and requirements (contacts.ts); empty at the start: the API adds them. */
  readonly contacts: ContactBook;

  private listingById = new Map<number, SimListing>();
  private photoByFilename = new Map<string, SimPhoto>();
  private photoById = new Map<number, SimPhoto>();
  private nextIds!: SeedData['nextIds'];
  private addedCount = 0;

  /** One account; without `key`, the first on a key of its own (the single-agency simulator). */
  constructor(options: ResolvedOptions, key?: IntegratorKey) {
    this.options = options;
    this.key =
      key ?? new IntegratorKey(options.apiKey, { requestsPerSecond: options.requestsPerSecond, dailyLimit: options.dailyLimit }, () => options.now().getTime());
    this.agency = agencyIdentity(this.accountIndex);
    this.faults = new FaultInjector(this.accountSeed);
    this.contacts = new ContactBook(this.accountIndex * ACCOUNT_ID_SPACING, () => this.now());
    this.tokens.set(options.accessToken, { token: options.accessToken, scopes: [...ALL_SCOPES] });
    this.seed();
    this.events.onEvent((event) => this.webhooks.send(event, this));
    this.key.register(this);
  }

  get accountIndex(): number {
    return this.options.accountIndex ?? 0;
  }

  /** The CRM's id of this account (`accountid` in webhooks, `id` of GET /account). */
  get accountId(): number {
    return this.agency.id;
  }

  /** The first account keeps the seed as given; others derive theirs from it and their index. */
  private get accountSeed(): number {
    return this.accountIndex === 0 ? this.options.seed : (Math.imul(this.options.seed + 1, 0x9e3779b1) ^ this.accountIndex) >>> 0;
  }

  // Shared with the other accounts on the key (one limiter, one quota, one webhook URL).
  get limiter(): RateLimiter {
    return this.key.limiter;
  }
  get apiKeys(): Set<string> {
    return this.key.apiKeys;
  }
  get webhooks(): WebhookSender {
    return this.key.webhooks;
  }
  get counters(): Counters {
    return this.key.counters;
  }
  /** Set by startSimulator once listening; request handlers use the Host they were called on. */
  get origin(): string | null {
    return this.key.origin;
  }
  set origin(origin: string | null) {
    this.key.origin = origin;
  }

  /** The clock, in epoch milliseconds. */
  now(): number {
    return this.options.now().getTime();
  }

  private seed(): void {
    const data = generateSeed({
      listings: this.options.listings,
      seed: this.accountSeed,
      now: this.now(),
      idOffset: this.accountIndex * ACCOUNT_ID_SPACING,
      agency: this.agency,
      ...(this.options.photosPerListing === undefined ? {} : { photosPerListing: this.options.photosPerListing }),
    });
    this.users = data.users;
    this.departedUsers = new Map();
    this.listings = data.listings;
    this.enquiries = data.enquiries;
    this.nextIds = data.nextIds;
    this.addedCount = 0;
    this.reindex();
  }

  private reindex(): void {
    this.listingById = new Map();
    // A property for sale and for lease has two records: by id alone, the first (the sale) answers.
    for (const listing of this.listings) if (!this.listingById.has(listing.id)) this.listingById.set(listing.id, listing);
    this.photoByFilename.clear();
    this.photoById.clear();
    for (const listing of this.listings) {
      for (const photo of listing.photos) {
        this.photoByFilename.set(photo.filename, photo);
        this.photoById.set(photo.id, photo);
      }
    }
  }

  // -- Lookups ----------------------------------------------------------------------------------

  /** A property's record; for a property both for sale and for lease, give `market` to choose. */
  listing(id: number, market?: Market): SimListing | undefined {
    if (market === undefined) return this.listingById.get(id);
    return this.listings.find((listing) => listing.id === id && listing.market === market);
  }

  /** Every record of a property: its sale and its lease when it is offered both ways. */
  listingsOfProperty(id: number): SimListing[] {
    return this.listings.filter((listing) => listing.id === id);
  }

  listingByLife(market: 'sale' | 'lease', lifeId: number): SimListing | undefined {
    return this.listings.find((listing) => listing.market === market && listing.lifeId === lifeId);
  }

  user(id: number): SimUser | undefined {
    return this.users.find((user) => user.id === id);
  }

  /** Who the agency puts first on its team page: its principal, then its director (demo mode's TEAM_ORDER). */
  teamLeads(): number[] {
    // In the seed's order of staff (the principal, then the director); one who has left is off the list.
    return this.users.filter((user) => user.leadsTheTeam).map((user) => user.id);
  }

  staffMember(id: number): SimUser | undefined {
    return this.user(id) ?? this.departedUsers.get(id);
  }

  photo(id: number): SimPhoto | undefined {
    return this.photoById.get(id);
  }

  photoByFile(filename: string): SimPhoto | undefined {
    return this.photoByFilename.get(filename);
  }

  /** A departed user's portrait stays on the file host: their listings still link it. */
  userByPhotoFile(filename: string): SimUser | undefined {
    const has = (user: SimUser) => user.photo?.filename === filename;
    return this.users.find(has) ?? [...this.departedUsers.values()].find(has);
  }

  /** The enquiries that came in through POST /enquiries, oldest first. */
  postedEnquiries(): SimEnquiry[] {
    return this.enquiries.filter((enquiry) => enquiry.origin === 'api');
  }

  // -- Changes (each bumps `modified`, as the CRM does) -----------------------------------------

  /** A new modified time: now, but always later than the previous one even with a frozen clock. */
  private bump(previous: number): number {
    const now = Math.floor(this.now() / SECOND) * SECOND;
    return Math.max(now, previous + SECOND);
  }

  changeListing(id: number, change: ListingChange = {}, market?: Market): SimListing {
    const listing = this.requireListing(id, market);
    if (change.fields) {
      for (const [name, value] of Object.entries(change.fields)) {
        if (['id', 'inserted', 'modified', 'saleLifeId', 'leaseLifeId', '__proto__', 'constructor', 'prototype'].includes(name)) {
          throw new SimulatorError(400, `${name} cannot be changed`);
        }
        listing.fields[name] = value;
      }
    }
    if (change.status !== undefined) listing.status = change.status;
    if (change.published !== undefined) {
      listing.publishedToWeb = change.published ? (listing.publishedToWeb ?? Math.floor(this.now() / SECOND) * SECOND) : null;
    }
    if (!['listing', 'conditional'].includes(listing.status)) listing.openHomeSlots = [];
    listing.modified = this.bump(listing.modified);
    this.events.append('property', 'update', listing.id);
    return listing;
  }

  /** Changes a staff member: API fields by name (firstName, position, phoneNumbers...) and/or showOnWeb. */
  changeUser(id: number, change: { fields?: Record<string, unknown>; showOnWeb?: boolean }): SimUser {
    const user = this.user(id);
    if (!user) throw new SimulatorError(404, `no user ${id}`);
    for (const [name, value] of Object.entries(change.fields ?? {})) {
      if (['id', 'modified', '__proto__', 'constructor', 'prototype', 'photo'].includes(name)) throw new SimulatorError(400, `${name} cannot be changed`);
      user.fields[name] = value;
    }
    if (change.showOnWeb !== undefined) {
      user.showOnWeb = change.showOnWeb;
      user.fields.showOnWeb = change.showOnWeb;
    }
    this.events.append('user', 'update', user.id);
    return user;
  }

  /**
   * A staff member leaves the account: off GET /account/users (and /account/users/{id} answers 404),
   * while the listings, open homes and sales they were on keep naming them (contactStaff, as a
   * real CRM does until someone reassigns the listing; the listings' `modified` is not bumped).
   * Announced as a `user.delete` event and webhook, with no record in itemBodies: there is none now.
   */
  removeUser(id: number): SimUser {
    const user = this.user(id);
    if (!user) throw new SimulatorError(404, this.departedUsers.has(id) ? `user ${id} has already left the account` : `no user ${id}`);
    this.users = this.users.filter((other) => other !== user);
    this.departedUsers.set(id, user);
    this.events.append('user', 'delete', id);
    return user;
  }

  /** Takes a listing off the market: status withdrawn, no more open homes, modified bumped. */
  withdrawListing(id: number, market?: Market): SimListing {
    return this.changeListing(id, { status: 'withdrawn' }, market);
  }

  addListing(input: NewListing = {}): SimListing {
    const category = input.category ?? 'residentialSale';
    if (!Object.hasOwn(CATEGORY_SHAPE, category)) throw new SimulatorError(400, `category must be one of ${Object.keys(CATEGORY_SHAPE).join(', ')}`);
    this.addedCount++;
    const rng = new Prng(this.accountSeed * 7919 + this.addedCount);
    const listing = buildListing(rng, { category, today: startOfUtcDay(this.now()), users: this.users, ids: this.nextIds, agency: this.agency });
    const now = Math.floor(this.now() / SECOND) * SECOND;
    listing.inserted = now;
    listing.modified = now;
    listing.status = 'listing';
    listing.publishedToWeb = now;
    for (const photo of listing.photos) {
      photo.inserted = now;
      photo.modified = now;
    }
    this.listings.push(listing);
    this.reindex();
    if (input.fields || input.status !== undefined || input.published !== undefined) {
      this.changeListing(listing.id, input);
      listing.modified = now;
    } else {
      this.events.append('property', 'create', listing.id);
    }
    return listing;
  }

  /** New bytes for a photo (same URL), with its `modified` bumped; by default the listing's too. */
  async replacePhoto(photoId: number, options: { bumpListing?: boolean } = {}): Promise<SimPhoto> {
    const photo = this.photo(photoId);
    if (!photo) throw new SimulatorError(404, `no photo ${photoId}`);
    const image = { ...photo.image, revision: photo.image.revision + 1 };
    await renderImage(image);
    photo.image = image;
    photo.modified = this.bump(photo.modified);
    if (options.bumpListing !== false) {
      const listing = this.requireListing(photo.propertyId);
      listing.modified = this.bump(listing.modified);
    }
    this.events.append('property', 'update', photo.propertyId);
    return photo;
  }

  changePhoto(photoId: number, change: { published?: boolean; caption?: string | null }): SimPhoto {
    const photo = this.photo(photoId);
    if (!photo) throw new SimulatorError(404, `no photo ${photoId}`);
    if (change.published !== undefined) photo.published = change.published;
    if (change.caption !== undefined) photo.caption = change.caption;
    photo.modified = this.bump(photo.modified);
    const listing = this.requireListing(photo.propertyId);
    listing.modified = this.bump(listing.modified);
    this.events.append('property', 'update', listing.id);
    return photo;
  }

  private requireListing(id: number, market?: Market): SimListing {
    const listing = this.listing(id, market);
    if (!listing) throw new SimulatorError(404, `no listing ${id}${market ? ` for ${market}` : ''}`);
    return listing;
  }

  // -- Enquiries --------------------------------------------------------------------------------

  nextEnquiryId(): number {
    return this.nextIds.enquiry++;
  }

  storeEnquiry(enquiry: SimEnquiry): void {
    this.enquiries.push(enquiry);
    if (enquiry.origin === 'api') this.counters.enquiriesStored++;
  }

  // -- Credentials, limits, faults ---------------------------------------------------------------

  /** Another access token for the same account, e.g. one with fewer scopes. */
  addToken(scopes: string[], token = `sim-token-${new Prng(this.tokens.size + this.accountSeed).hex(24)}`): SimToken {
    if (this.key.accountOfToken(token)) throw new SimulatorError(409, 'that access token is already in use');
    const entry = { token, scopes: [...scopes] };
    this.tokens.set(token, entry);
    return entry;
  }

  /**
   * What the main access token may do: the scopes GET /scopes lists and every endpoint checks. A
   * scope left out makes its endpoints answer 403, as an agency that did not grant it would.
   */
  setScopes(scopes: string[], token = this.options.accessToken): SimToken {
    const entry = this.tokens.get(token);
    if (!entry) throw new SimulatorError(404, 'no such access token');
    entry.scopes = [...scopes];
    return entry;
  }

  /** Another tool using the same API key spends `requests` of today's quota (GET /integrator/usage shows them). */
  spendElsewhere(requests: number, apiKey = this.options.apiKey): void {
    this.limiter.spendElsewhere(apiKey, requests, this.now());
  }

  setLimits(limits: Partial<LimitSettings>): LimitSettings {
    if (limits.requestsPerSecond !== undefined) this.limiter.settings.requestsPerSecond = limits.requestsPerSecond;
    if (limits.dailyLimit !== undefined) this.limiter.settings.dailyLimit = limits.dailyLimit;
    return { ...this.limiter.settings };
  }

  setFaults(rules: FaultRule[]): void {
    this.faults.set(rules);
  }

  addFault(rule: FaultRule): void {
    this.faults.add(rule);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  // -- Counters ---------------------------------------------------------------------------------

  countRequest(endpoint: string): void {
    this.key.countRequest(endpoint);
  }

  countStatus(endpoint: string, status: number | 'dropped' | 'client-closed'): void {
    this.key.countStatus(endpoint, status);
  }

  /** The key's counters: requests of every account on it. */
  getCounters(): CountersSnapshot {
    return this.key.getCounters();
  }

  /** The highest number of requests the key sent in any one second (refused ones included). */
  peakRequestsPerSecond(apiKey = this.options.apiKey): number {
    return this.limiter.snapshot()[apiKey]?.peakRequestsPerSecond ?? 0;
  }

  /** Counters are the key's: this forgets those of every account on it. */
  resetCounters(): void {
    this.key.resetCounters();
  }

  /** Back to the seeded account: data, enquiries, faults, and the key's counters, quota and limits. */
  reset(): void {
    this.resetData();
    this.key.resetShared();
  }

  /** Back to the seeded account (data, enquiries, events, faults, tokens, scopes); the key's quota untouched. */
  resetData(): void {
    this.seed();
    this.contacts.reset();
    this.events.clear();
    this.faults.clear();
    for (const token of [...this.tokens.keys()]) if (token !== this.options.accessToken) this.tokens.delete(token);
    this.setScopes(ALL_SCOPES);
  }
}
