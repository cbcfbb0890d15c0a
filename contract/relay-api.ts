/**
 * The public JSON contract of the relay: what `GET /api/v1/...` answers and what
 * `POST /api/v1/enquiries` accepts. Types only, so the widget can import it at no bundle cost;
 * the server's zod schemas are checked against these types.
 */

import type { FilterValue, LISTING_FILTERS, ListingFilters } from './listing-filters.ts';
import type { LeadCampaign } from './attribution.ts';

export type ListingType = 'sale' | 'lease';
export type ListingStatus = 'available' | 'sold' | 'leased';
/** Shown as a badge on a card: derived from the CRM's status and method of sale. */
export type ListingBadge = 'under-offer' | 'sold' | 'leased' | null;
/** The orders a list can have (the `sort` filter of contract/listing-filters.ts). */
export type ListingSort = FilterValue<typeof LISTING_FILTERS.sort>;

export interface ImageVariant {
  /** Absolute or relay-relative URL of this rendition. */
  url: string;
  width: number;
  format: 'webp' | 'jpeg';
}

export interface Photo {
  id: number;
  caption: string | null;
  width: number;
  height: number;
  /** JPEG fallback URL at a medium width. */
  url: string;
  /** `srcset` strings ready to use, one per format. */
  srcset: { webp: string; jpeg: string };
  variants: ImageVariant[];
}

export interface Area {
  value: number;
  units: string;
}

export interface Address {
  /** As the agency wants it shown ("33 Example Street, Kew VIC"); may hide the street number. */
  display: string;
  suburb: string | null;
  postcode: string | null;
  state: string | null;
}

/**
 * Where a listing is on a map, and how exactly: `crm` the CRM's own coordinates, `address` the
 * street address as a geocoder found it, `suburb` the middle of its suburb (a listing whose street
 * address is withheld is never placed closer than that).
 */
export interface ListingPosition {
  lat: number;
  lng: number;
  precision: 'crm' | 'address' | 'suburb';
}

/** `GET /api/v1/listings/placement`: how many of the cached listings are on the map, and how exactly. */
export interface PlacementSummary {
  listings: number;
  placed: Record<ListingPosition['precision'], number>;
  /** Waiting for the geocoder (shown without a position, or at their suburb, meanwhile). */
  pending: number;
  /** Could not be placed: no coordinates, and the geocoder found neither the address nor the suburb (or none is configured). */
  unplaced: number;
}

/** An area on the map, in degrees (WGS 84). */
export interface MapBounds {
  south: number;
  west: number;
  north: number;
  east: number;
}

/**
 * `GET /api/v1/map/config`: what a map of the agency's listings may show. `tiles` is the relay's
 * own tile URL template (a path on the relay, as the API's), or null when the relay has no tile
 * source (draw a plain background); `attribution` must be shown on the map whenever tiles are.
 * `bounds` is the area of the agency's placed listings (null while none is placed).
 */
export interface MapConfig {
  tiles: string | null;
  /** The same tiles at 512 px (`…@2x.png`) for high-density screens; null when the relay has none (its MAP_TILE_URL has no `{r}`). */
  tiles2x: string | null;
  /**
   * A labels-only layer (place names on transparent tiles) to draw above the markers, so a pin
   * never hides a suburb's name; null when the relay has none (MAP_LABEL_TILE_URL unset: the tiles
   * carry their own names).
   */
  labels: string | null;
  /** The labels at 512 px for high-density screens; null without a labels layer or without its `{r}`. */
  labels2x: string | null;
  attribution: string | null;
  minZoom: number;
  maxZoom: number;
  bounds: MapBounds | null;
}

/** One card in a listings grid. */
export interface ListingSummary {
  /**
   * The listing's own id, stable while it lasts (from available to sold or leased). One per sale or
   * lease of a property: a home offered for sale and for lease at once is two listings, each with
   * its id. `GET /api/v1/listings/{id}` also opens a listing by the CRM property id that older
   * pages carry (the sale first), and so do enquiries.
   */
  id: number;
  type: ListingType;
  status: ListingStatus;
  badge: ListingBadge;
  heading: string | null;
  address: Address;
  /** Price text exactly as the agency wrote it ("Contact Agent", "$1,350,000"). Never a number. */
  displayPrice: string | null;
  propertyType: string | null;
  bed: number | null;
  bath: number | null;
  /** Garages + carports + open spaces. */
  cars: number | null;
  landArea: Area | null;
  floorArea: Area | null;
  methodOfSale: string | null;
  auctionDateTime: string | null;
  /** First published photograph, if any. */
  photo: Photo | null;
  photoCount: number;
  modified: string;
  /** Where to put it on a map; null while it cannot be placed (see ListingPosition). */
  position: ListingPosition | null;
}

export interface Agent {
  id: number;
  name: string;
  position: string | null;
  phone: string | null;
  email: string | null;
  photo: Photo | null;
}

/**
 * The office: named where a listing's agents have all left the agency (their cards name it instead),
 * and on the team page. From the agency's settings (SITE_NAME, SITE_PHONE; per agency `name`, `phone`).
 */
export interface Office {
  name: string | null;
  /** The office's phone number as the agency writes it ("(03) 9555 0100"); null: not set. */
  phone: string | null;
}

/**
 * One of the agency's people who face the public (`GET /api/v1/team`): shown on the web in the CRM,
 * an agent with listings or a public role, not hidden by the agency's setting (TEAM_HIDDEN). `email`
 * and a mobile `phone` are the agent's own only where the agency allows it (AGENT_DIRECT_CONTACT=1);
 * otherwise `email` is null and `phone` the agent's office line, else the office's (SITE_PHONE), else null.
 */
export interface TeamMember extends Agent {
  /** The name part of the agent's page path (`/listings/agents/42/sarah-nguyen`): contract/slug.ts's `addressSlug` of the name. */
  slug: string;
  /** Their current listings (for sale or lease). */
  listingCount: number;
}

/** `GET /api/v1/team`: the agency's public people, in the agency's order (TEAM_ORDER first, then by name). */
export interface Team {
  items: TeamMember[];
  office: Office;
}

/**
 * An agent's profile as the CRM gives it: `html` when the CRM's text is HTML (cleaned by the relay to
 * paragraphs, line breaks, emphasis, lists and http(s) links; safe to insert), else plain `text`
 * with line breaks (render as text, never as HTML).
 */
export type AgentProfileText = { format: 'html'; html: string } | { format: 'text'; text: string };

/**
 * `GET /api/v1/agents/{id}`: one public agent's page. 404 (`not_found`) for anyone never public
 * (hidden by the agency, back-office staff, unknown); 410 (`agent_gone`) for one who had a page
 * and has left.
 */
export interface AgentProfile extends TeamMember {
  profile: AgentProfileText | null;
  /** Their current listings, newest first. */
  current: ListingSummary[];
  /** Their sold and leased results (the relay's showcase window), newest first; prices only as the agency publishes them. */
  results: ListingSummary[];
  office: Office;
}

/**
 * `GET /api/v1/listings/{id}/similar`: up to `limit` (default 4, at most 12) current homes like it:
 * the same type (sale or lease) and kind of property, nearby (by position, else the same suburb),
 * a similar price band (only from prices the agency shows: a withheld price is never used to choose)
 * and bedrooms. Never the listing itself. 404 as `GET /api/v1/listings/{id}`.
 */
export interface SimilarListings {
  items: ListingSummary[];
}

export interface OpenHome {
  id: number;
  start: string;
  end: string;
}

export interface AuctionDetails {
  dateTime: string | null;
  venue: string | null;
  auctioneer: string | null;
}

export interface ExternalLink {
  url: string;
  kind: string;
}

/** `GET /api/v1/listings/{id}`. */
export interface ListingDetail extends ListingSummary {
  /** Plain text with line breaks; render as text, never as HTML. */
  description: string | null;
  photos: Photo[];
  floorplans: Photo[];
  links: ExternalLink[];
  openHomes: OpenHome[];
  auction: AuctionDetails | null;
  agents: Agent[];
  features: string[];
  ensuites: number | null;
  toilets: number | null;
  geolocation: { latitude: number; longitude: number } | null;
  inserted: string | null;
  /**
   * The agency's office: what the card names when `agents` is empty (every agent of the listing has
   * left the agency, or is not one it shows).
   */
  office: Office;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

/** A listing on the map (`GET /api/v1/listings/map`): the card's own fields, nothing more. */
export interface MapListingProperties {
  id: number;
  /** What the card's link says: the address as the agency shows it, else the heading. */
  title: string | null;
  /** The card's price text exactly as the agency wrote it ("Contact Agent", "$1,350,000"); null: none. Never a number. */
  price: string | null;
  bed: number | null;
  bath: number | null;
  cars: number | null;
  /** The smallest JPEG of the card's photo. */
  thumbnail: string | null;
  type: ListingType;
  status: ListingStatus;
  precision: ListingPosition['precision'];
}

/** Listings close together on the map at the zoom asked. */
export interface MapClusterProperties {
  cluster: true;
  /** The cluster's id (within this answer's filters and listings). */
  id: number;
  count: number;
  /** The zoom at which it splits. */
  expansionZoom: number;
}

export interface ListingMapFeature {
  type: 'Feature';
  /** [longitude, latitude]: a listing's position, or a cluster's centre. */
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: MapListingProperties | MapClusterProperties;
}

/** `GET /api/v1/listings/map` (application/geo+json): the placed listings in the box, clustered at the zoom. */
export interface ListingMap {
  type: 'FeatureCollection';
  features: ListingMapFeature[];
  /** Listings the filters select that are not on the map (no position): anywhere, not only in the box. */
  unplaced: number;
  /**
   * The box around every placed listing the filters select, anywhere, not only in the asked box
   * (null when none is placed): what a map fits itself to when the filters change.
   */
  bounds: MapBounds | null;
}

/** `GET /api/v1/listings` query: the filters of contract/listing-filters.ts and the page. */
export interface ListingsQuery extends ListingFilters {
  page?: number;
  pageSize?: number;
}

/** The filter table's words for a listing's type and status are the listing's own: checked here. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<Check extends true> = Check;
export type FilterWordsMatchListings = Holds<Same<ListingType, FilterValue<typeof LISTING_FILTERS.type>>> &
  Holds<Same<ListingStatus, FilterValue<typeof LISTING_FILTERS.status>>>;

/**
 * The kinds of lead `POST /api/v1/enquiries` takes (`kind`; absent: `enquiry`): a question about a
 * listing or to an agent, a seller's request for an appraisal, a registration for one open home,
 * and a request for a private inspection.
 */
export type LeadKind = 'enquiry' | 'appraisal' | 'open-home' | 'inspection';

/** The longest consent wording a lead carries (`consentText`). */
export const CONSENT_TEXT_MAX = 500;

/** What every lead carries: who to answer, their consent, and the spam checks. */
export interface LeadContact {
  originalId: string;
  fullName: string;
  email: string;
  mobile?: string;
  consent?: boolean;
  /**
   * The words of the consent box the visitor ticked, as the page showed them (its label's text,
   * slotted text included): kept with the consent, so the agency can show what was agreed to.
   * Sent with `consent`; at most CONSENT_TEXT_MAX characters.
   */
  consentText?: string;
  /** Honeypot: people never see it, so it must stay empty. */
  website?: string;
  /** Milliseconds between the form being shown and sent. */
  elapsedMs: number;
  /**
   * The page the lead was sent from: origin and path, no query or fragment (contract/attribution.ts).
   * Optional; a value the relay cannot use is dropped (named in `ignored`), never a reason to refuse.
   */
  page?: string;
  /** The campaign (`utm_*`) the visitor arrived with; dropped like `page` when unusable. */
  campaign?: LeadCampaign;
}

/** A question about a listing (`listingId`) or to an agent (`agentId`, a "contact me" form). Exactly one of them. */
export interface QuestionRequest extends LeadContact {
  kind?: 'enquiry';
  listingId?: number;
  agentId?: number;
  subject?: string;
  message: string;
}

/** When a seller thinks of selling (an appraisal's `sellingWhen`). */
export type SellingWhen = 'now' | '3-months' | '6-months' | '12-months' | 'not-sure';

/** A seller asks what their home is worth: to `agentId` when the page names one, else to the office. */
export interface AppraisalRequest extends LeadContact {
  kind: 'appraisal';
  agentId?: number;
  street: string;
  suburb: string;
  postcode: string;
  /** "House", "Apartment", … as the visitor chose it. */
  propertyType?: string;
  bedrooms?: number;
  sellingWhen?: SellingWhen;
  message?: string;
}

/** A registration for one open home (`openHomeId`, from the listing's `openHomes`), once per e-mail address. */
export interface OpenHomeRegistrationRequest extends LeadContact {
  kind: 'open-home';
  listingId: number;
  openHomeId: number;
  /** People coming, the visitor included (1–10). */
  attendees: number;
  message?: string;
}

/** A request for a private inspection of a listing at one of up to three times the visitor prefers. */
export interface InspectionRequest extends LeadContact {
  kind: 'inspection';
  listingId: number;
  /** 1–3 ISO 8601 date-times with an offset, each in the future and at most 60 days ahead. */
  preferredTimes: string[];
  message?: string;
}

/** `POST /api/v1/enquiries` body: one lead of any kind. */
export type EnquiryRequest = QuestionRequest | AppraisalRequest | OpenHomeRegistrationRequest | InspectionRequest;

/** A suburb the agency has listed in (`GET /api/v1/suburbs`): suggestions for an appraisal's address. */
export interface Suburb {
  name: string;
  postcode: string | null;
  state: string | null;
}

/** `GET /api/v1/suburbs/suggestions?q=`: the agency's suburbs the words name (by name or postcode, slips forgiven), best first, at most 8. */
export interface SuburbSuggestions {
  items: Suburb[];
}

/**
 * What `GET /api/v1/enquiries/{originalId}` and `GET /api/v1/saved-searches/{originalId}` (every
 * lead queue's status route) say of a lead: that the relay accepted it and holds it, nothing more.
 * It never says whether the lead was delivered, held back or taken for spam, nor anything that
 * depends on what others sent (docs/api.md, "Reading a lead's status").
 */
export interface LeadStatusResponse {
  originalId: string;
  status: 'accepted';
}

export interface EnquiryAccepted {
  originalId: string;
  status: 'queued';
  /** Where-from values (`page`, `campaign.utm_source`, …) left out of the lead, and why. Absent when none was. */
  ignored?: Record<string, string>;
}

/**
 * `POST /api/v1/enquiries/batch` body: the same question about several homes (a shortlist's
 * "Enquire about these"), one request that counts once against a client's limits. The question's
 * fields are given once; each home brings its own originalId (a new UUID per home, kept for its
 * retries), its listing and, optionally, its subject. At most ENQUIRY_BATCH_MAX_HOMES homes
 * (server/enquiries/schema.ts), each listing once.
 */
export interface EnquiryBatchRequest extends Omit<QuestionRequest, 'originalId' | 'listingId' | 'agentId' | 'subject'> {
  homes: Array<{ originalId: string; listingId: number; subject?: string }>;
}

/**
 * One home's answer in a batch, in the order of `homes`: `httpStatus` is what
 * `POST /api/v1/enquiries` would have answered for it alone. 202: accepted (or accepted before: a
 * retry), with that answer's body; any other, refused with that status's body (`fields` naming
 * what is wrong), and for 429 and 503 `retryAfterSeconds`: send that home again then, with the
 * same originalId.
 */
export type EnquiryBatchResult = { listingId: number; originalId: string } & (
  ({ httpStatus: 202 } & EnquiryAccepted) | ({ httpStatus: number } & ErrorBody & { retryAfterSeconds?: number })
);

/** `POST /api/v1/enquiries/batch` answer (200 when every home was answered; a 4xx/5xx ErrorBody when the request as a whole was refused). */
export interface EnquiryBatchAnswer {
  results: EnquiryBatchResult[];
}

/**
 * 503 body of the listing API (`/api/v1/listings`, `/api/v1/listings/{id}`, `/api/v1/agents`)
 * while a freshly started relay has not filled its listing cache yet: the listings are on their
 * way, not missing. Sent with `Retry-After` (seconds) and `Cache-Control: no-store`.
 */
export interface ListingsFilling extends ErrorBody {
  error: 'listings_filling';
  state: 'filling';
  retryAfterSeconds: number;
}

/** Every 4xx/5xx body from the relay. `fields` names each bad input with its message. */
export interface ErrorBody {
  error: string;
  message: string;
  fields?: Record<string, string>;
}
