import { z } from 'zod';

/**
 * Shapes of what the CRM API (v1.3) sends back, after ../shared/reference.
 *
 * Two rules, because the API adds fields within a version and real records are full of nulls:
 * - every object is `z.looseObject`: unknown fields pass through untouched (typed `unknown`);
 * - every field but a record's own id accepts null or absence (`nullish`).
 * Enumerations (status, photo type, ...) are plain strings: a new value must not break a sync.
 *
 * Confidential fields (internalRemarks, tenant details, fees, vpa, title details, staff logins and
 * permissions...) are deliberately NOT declared: they stay `unknown` in the types, and the listings
 * code builds public output from an allow-list, never by spreading these objects.
 */

/** A record's own id: the one field that must be present and a number. */
const id = z.number().int();
const str = z.string().nullish();
const num = z.number().nullish();
const int = z.number().int().nullish();
const bool = z.boolean().nullish();
/** DateTime as the CRM writes it ('2022-03-25T01:40:27+00:00'); kept as text, compared by Date.parse. */
const dateTime = z.string().nullish();
/** Arrays: null reads as empty so callers can iterate without checks. */
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((value) => value ?? []);

/** A reference to another record inside a record (suburb, type, class...): its id may be null too. */
const named = z.looseObject({ id: int, name: str });

export const crmPhoneNumberSchema = z.looseObject({ number: str, type: str, typeCode: str, comment: str });

export const crmUserPhotoSchema = z.looseObject({ original: str, thumb_360: str });

/** A staff member (GET /account/users, property contactStaff, open home agent). */
export const crmUserSchema = z.looseObject({
  id,
  firstName: str,
  lastName: str,
  position: str,
  email: str,
  phoneNumbers: list(crmPhoneNumberSchema),
  photo: crmUserPhotoSchema.nullish(),
  websiteUrl: str,
  profile: str,
  showOnWeb: bool,
  hideMobileFromPortal: bool,
});
export type CrmUser = z.infer<typeof crmUserSchema>;

/** A user reference (name and photo only), as in open homes' extraAgents and an enquiry's user. */
export const crmAccessSchema = z.looseObject({ id: int, name: str, photo: crmUserPhotoSchema.nullish() });

export const crmAreaSchema = z.looseObject({ value: num, units: str });

export const crmAddressSchema = z.looseObject({
  level: str,
  unitNumber: str,
  streetNumber: str,
  street: str,
  suburb: z
    .looseObject({
      id: int,
      name: str,
      postcode: str,
      state: z.looseObject({ id: int, name: str, abbreviation: str }).nullish(),
    })
    .nullish(),
  state: z.looseObject({ id: int, name: str, abbreviation: str }).nullish(),
  country: z.looseObject({ id: int, name: str, isocode: str }).nullish(),
});

export const crmPhotoSchema = z.looseObject({
  id,
  inserted: dateTime,
  /** The change marker (the spec's "modtime"): a new value means the file must be fetched again. */
  modified: dateTime,
  filesize: int,
  width: int,
  height: int,
  caption: str,
  /** 'Photograph' | 'Floorplan' in lists ('photo' is seen in other responses). */
  type: str,
  url: str,
  filename: str,
  thumbnails: z.record(z.string(), z.string().nullish()).nullish(),
  /** Unpublished photos must never reach a website. */
  published: bool,
});
export type CrmPhoto = z.infer<typeof crmPhotoSchema>;

export const crmExternalLinkSchema = z.looseObject({
  id: int,
  url: str,
  modified: dateTime,
  type: named.nullish(),
});

export const crmEventDetailsSchema = z.looseObject({ dateTime: dateTime, venue: str, auctioneer: str });

/**
 * One property of any class (residential, commercial, land, rural), sale or lease. The fields that
 * only some classes carry are all optional, so one schema reads every list.
 */
export const crmPropertySchema = z.looseObject({
  id,
  saleLifeId: int,
  leaseLifeId: int,
  inserted: dateTime,
  modified: dateTime,
  class: z.looseObject({ id: int, name: str, internalName: str }).nullish(),
  type: z.looseObject({ id: int, name: str }).nullish(),
  status: str,
  portalStatus: str,
  referenceID: str,
  displayAddress: str,
  /** 'fullAddress' | 'streetAndSuburb' | 'suburb': how much of the address may be shown. */
  addressVisibility: str,
  address: crmAddressSchema.nullish(),
  geolocation: z.looseObject({ latitude: num, longitude: num, accuracy: str }).nullish(),
  heading: str,
  description: str,
  /** What to show as the price ("Contact Agent", "$1,350,000", ""). */
  displayPrice: str,
  /** For sorting and filtering only: never shown when displayPrice says otherwise. */
  searchPrice: num,
  priceOnApplication: bool,
  bed: int,
  bath: int,
  garages: int,
  carports: int,
  openSpaces: int,
  carSpaces: int,
  ensuites: int,
  toilets: int,
  landArea: crmAreaSchema.nullish(),
  floorArea: crmAreaSchema.nullish(),
  energyRating: num,
  yearBuilt: int,
  methodOfSale: named.nullish(),
  /** The OpenAPI description spells it this way; real responses use methodOfSale. Both are read. */
  methodOfsale: named.nullish(),
  auctionDetails: crmEventDetailsSchema.nullish(),
  tenderDetails: crmEventDetailsSchema.nullish(),
  setSaleDateDetails: crmEventDetailsSchema.nullish(),
  externalLinks: list(crmExternalLinkSchema),
  /** Full user records on residential lists, bare `{ id }` on commercial and land lists. */
  contactStaff: list(crmUserSchema),
  photos: list(crmPhotoSchema),
  publishedToWeb: dateTime,
  available: bool,
  isOurListing: bool,
  isNewHome: bool,
  isHouseLandPackage: bool,
  soiUrl: str,
});
export type CrmProperty = z.infer<typeof crmPropertySchema>;

export const crmOpenHomeSchema = z.looseObject({
  id,
  start: dateTime,
  end: dateTime,
  isRental: bool,
  user: crmUserSchema.nullish(),
  extraAgents: list(crmAccessSchema),
  property: z
    .looseObject({
      id: int,
      displayAddress: str,
      saleLifeId: int,
      leaseLifeId: int,
      class: z.looseObject({ id: int, name: str, internalName: str }).nullish(),
    })
    .nullish(),
});
export type CrmOpenHome = z.infer<typeof crmOpenHomeSchema>;

/** An enquiry as stored in the CRM's holding area (201 of POST /enquiries, GET /enquiries). */
export const crmEnquirySchema = z.looseObject({
  id,
  originalId: str,
  subject: str,
  body: str,
  source: str,
  sourceName: str,
  enquiryDate: dateTime,
  inserted: dateTime,
  saleLifeId: int,
  leaseLifeId: int,
  userId: int,
  processed: bool,
  contactId: int,
  personName: str,
  personEmails: list(z.string().nullable()),
  personPhoneNumbers: list(crmPhoneNumberSchema),
  categories: list(named),
  user: crmAccessSchema.nullish(),
});
export type CrmEnquiry = z.infer<typeof crmEnquirySchema>;

/**
 * The body of POST /enquiries, as we send it. Strict about types (we build it), loose about
 * extra fields (the CRM may accept more than the reference names).
 */
export const addEnquirySchema = z.looseObject({
  /** DateTime with an offset, e.g. '2024-05-01T10:00:00+00:00'. */
  enquiryDate: z.string().optional(),
  subject: z.string().optional(),
  body: z.string().optional(),
  /** Our own id of the enquiry (a UUID): how a sent enquiry is found again after a lost response. */
  originalId: z.string().optional(),
  propertyReference: z.string().optional(),
  /** 'OFFICEWEBSITE' for an agency's own site. */
  source: z.string().optional(),
  saleLifeId: z.number().int().optional(),
  leaseLifeId: z.number().int().optional(),
  /** A "contact me" enquiry: the agent, instead of the property fields. */
  userId: z.number().int().optional(),
  fullName: z.string().optional(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  email: z.string().optional(),
  telephone: z.string().optional(),
  mobile: z.string().optional(),
  categories: z.array(z.object({ id: z.number().int() })).optional(),
  metaData: z.array(z.object({ key: z.string(), value: z.string() })).optional(),
});
export type AddEnquiry = z.input<typeof addEnquirySchema>;

export const crmHoldingAreaTypeSchema = z.looseObject({ id, source: str, apiCode: str });
export type CrmHoldingAreaType = z.infer<typeof crmHoldingAreaTypeSchema>;

export const crmEnquirySourceSchema = z.looseObject({ id, name: str });
export type CrmEnquirySource = z.infer<typeof crmEnquirySourceSchema>;

export const crmScopesSchema = z.array(z.string());

export const crmUsageSchema = z.looseObject({ used: int, remaining: int });
export type CrmUsage = z.infer<typeof crmUsageSchema>;

/** `{ success: false, msg, code }`: the CRM's error body. */
export const crmErrorBodySchema = z.looseObject({ success: bool, msg: str, code: z.union([z.string(), z.number()]).nullish() });

/**
 * The list envelope. Items are read one by one (see `parseList`) so that one malformed record
 * does not hide a whole page from a sync.
 */
export const crmListEnvelopeSchema = z.looseObject({
  items: z.array(z.unknown()).nullish(),
  totalItems: int,
  totalPages: int,
  urls: z.looseObject({ previous: str, next: str, self: str }).nullish(),
});

export interface CrmList<T> {
  items: T[];
  totalItems: number;
  totalPages: number;
  /** Records on this page that did not match the schema (left out of `items`, and logged). */
  invalidItems: number;
}

export interface ListIssue {
  index: number;
  /** Paths of the fields that did not match, e.g. ['id'] (never their values: they may be personal data). */
  paths: string[];
}

/** Reads a list envelope: valid items kept, invalid ones counted and described by field path only. */
export function parseList<T extends z.ZodType>(
  itemSchema: T,
  envelope: z.infer<typeof crmListEnvelopeSchema>,
): { list: CrmList<z.infer<T>>; issues: ListIssue[] } {
  const rawItems = envelope.items ?? [];
  const items: z.infer<T>[] = [];
  const issues: ListIssue[] = [];
  rawItems.forEach((raw, index) => {
    const parsed = itemSchema.safeParse(raw);
    if (parsed.success) items.push(parsed.data);
    else issues.push({ index, paths: issuePaths(parsed.error) });
  });
  return {
    list: {
      items,
      totalItems: envelope.totalItems ?? rawItems.length,
      totalPages: envelope.totalPages ?? 1,
      invalidItems: issues.length,
    },
    issues,
  };
}

/** Dotted paths of a zod error's issues, without values. */
export function issuePaths(error: z.ZodError): string[] {
  return [...new Set(error.issues.map((issue) => issue.path.map(String).join('.') || '(root)'))];
}
