import type { PropertyClassName } from './seed-data.ts';

/** The in-memory records of the simulated CRM account. Times are epoch milliseconds. */

export type Market = 'sale' | 'lease';

/** Which generated picture a photo shows: a pool scene and, after a replace, its revision. */
export interface ImageRef {
  pool: 'photo' | 'floorplan' | 'agent';
  scene: string;
  /** 0 for the pooled image; each replace derives new bytes with the next revision. */
  revision: number;
}

export interface SimPhoto {
  id: number;
  propertyId: number;
  inserted: number;
  modified: number;
  type: 'Photograph' | 'Floorplan';
  caption: string | null;
  published: boolean;
  /** Name on the file host; stable across replacements, as the CDN path is. */
  filename: string;
  userFilename: string;
  image: ImageRef;
}

export interface SimUser {
  id: number;
  /** The User shape without `photo`, whose URLs depend on the origin the request came in on. */
  fields: Record<string, unknown>;
  photo: { image: ImageRef; modified: number; filename: string } | null;
  showOnWeb: boolean;
  state: 'VIC' | 'NSW';
  role: string;
  /** Office staff (administration) are never a listing's contact. */
  listsProperties: boolean;
  /** The principal or the director: who the agency lists first on its team page (demo mode's TEAM_ORDER). */
  leadsTheTeam: boolean;
}

/** A recurring open-home slot; concrete dates are derived from the clock at request time. */
export interface OpenHomeSlot {
  /** 0 = Sunday ... 6 = Saturday, in the listing's local time zone. */
  weekday: number;
  hour: number;
  minute: number;
  durationMinutes: number;
  userId: number;
}

export interface SimListing {
  id: number;
  propertyClass: PropertyClassName;
  market: Market;
  /** saleLifeId or leaseLifeId, by market. */
  lifeId: number;
  inserted: number;
  modified: number;
  status: string;
  /**
   * When it went on the web; null means unpublished (off-market, prospect, appraisal). This is what
   * the `published` list filter reads; the rendered `publishedToWeb` is null on current listings, as in real answers.
   */
  publishedToWeb: number | null;
  /** Staff ids in contactStaff order. */
  staffIds: number[];
  propertyManagerId: number | null;
  timeZone: string;
  /** Every other field, already in the API's shape and names. */
  fields: Record<string, unknown>;
  /** Fields the API only returns on the single-record endpoint. */
  extendedFields: Record<string, unknown>;
  /** The sale's history record for sold listings (commission, net income: confidential). */
  saleDetails: Record<string, unknown> | null;
  photos: SimPhoto[];
  openHomeSlots: OpenHomeSlot[];
}

export interface SimEnquiry {
  id: number;
  inserted: number;
  enquiryDate: number;
  subject: string | null;
  body: string | null;
  originalId: string | null;
  propertyReference: string | null;
  source: string;
  sourceName: string;
  saleLifeId: number | null;
  leaseLifeId: number | null;
  userId: number | null;
  fullName: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  telephone: string | null;
  mobile: string | null;
  categories: { id: number; name: string }[];
  metaData: { key: string; value: string }[];
  processed: boolean;
  /** Seeded enquiries came from portals; posted ones through the API. */
  origin: 'seed' | 'api';
}

export interface SimToken {
  token: string;
  scopes: string[];
}
