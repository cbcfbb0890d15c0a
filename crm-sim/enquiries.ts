import type { SimEnquiry } from './model.ts';
import { ENQUIRY_CATEGORIES, HOLDING_AREA_TYPES } from './seed-data.ts';
import type { SimulatorState } from './state.ts';
import { parseDateTime } from './time.ts';

/**
 * POST /enquiries (AddEnquiry) validation. The published schema marks no field as required, so the
 * rules here are the simulator's reading of what a CRM holding area must refuse:
 * - the body is a JSON object, each field of its documented type (ids may be numeric strings);
 * - someone to answer: a name (fullName, firstName or lastName) and a way to reach them (email,
 *   mobile or telephone); an email must look like one;
 * - source, when given, is a holding-area API code (GET /types/holdingArea); absent means OTHER;
 * - saleLifeId / leaseLifeId / userId, when given, name an existing sale, lease or user, and at most
 *   one of saleLifeId and leaseLifeId is given; categories name existing categories;
 * - lengths are bounded (subject 255, body 10,000, other strings 255).
 * A repeated originalId is stored again: the API does not deduplicate.
 */

export class EnquiryInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const STRING_FIELDS = [
  'enquiryDate',
  'subject',
  'body',
  'originalId',
  'propertyReference',
  'source',
  'fullName',
  'firstName',
  'lastName',
  'email',
  'telephone',
  'mobile',
] as const;

const MAX_LENGTH: Record<string, number> = { body: 10_000 };
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function optionalId(raw: Record<string, unknown>, field: string): number | null {
  const value = raw[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value.trim()) && Number(value) > 0) return Number(value);
  throw new EnquiryInputError(field, `${field} must be a positive whole number`);
}

export function parseEnquiry(input: unknown, state: SimulatorState): SimEnquiry {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new EnquiryInputError('(body)', 'the request body must be a JSON object');
  }
  const raw = input as Record<string, unknown>;
  const text: Partial<Record<(typeof STRING_FIELDS)[number], string | null>> = {};
  for (const field of STRING_FIELDS) {
    const value = raw[field];
    if (value === undefined || value === null) {
      text[field] = null;
      continue;
    }
    if (typeof value !== 'string') throw new EnquiryInputError(field, `${field} must be a string`);
    const limit = MAX_LENGTH[field] ?? 255;
    if (value.length > limit) throw new EnquiryInputError(field, `${field} must be at most ${limit} characters`);
    text[field] = value.trim() === '' ? null : value.trim();
  }

  if (!text.fullName && !text.firstName && !text.lastName) {
    throw new EnquiryInputError('fullName', 'a name is required: fullName, or firstName/lastName');
  }
  if (!text.email && !text.mobile && !text.telephone) {
    throw new EnquiryInputError('email', 'a way to reply is required: email, mobile or telephone');
  }
  if (text.email && !EMAIL.test(text.email)) throw new EnquiryInputError('email', `email ${JSON.stringify(text.email)} is not a valid email address`);
  for (const field of ['mobile', 'telephone'] as const) {
    const value = text[field];
    if (value && !/^\+?[\d\s()-]{6,20}$/.test(value)) throw new EnquiryInputError(field, `${field} is not a valid phone number`);
  }

  const sourceCode = text.source ?? 'OTHER';
  const source = HOLDING_AREA_TYPES.find((type) => type.apiCode === sourceCode);
  if (!source) {
    throw new EnquiryInputError('source', `source must be a holding area API code (${HOLDING_AREA_TYPES.map((type) => type.apiCode).join(', ')})`);
  }

  const saleLifeId = optionalId(raw, 'saleLifeId');
  const leaseLifeId = optionalId(raw, 'leaseLifeId');
  const userId = optionalId(raw, 'userId');
  if (saleLifeId !== null && leaseLifeId !== null) throw new EnquiryInputError('leaseLifeId', 'give saleLifeId or leaseLifeId, not both');
  if (saleLifeId !== null && !state.listingByLife('sale', saleLifeId)) {
    throw new EnquiryInputError('saleLifeId', `saleLifeId ${saleLifeId} does not match a sale`);
  }
  if (leaseLifeId !== null && !state.listingByLife('lease', leaseLifeId)) {
    throw new EnquiryInputError('leaseLifeId', `leaseLifeId ${leaseLifeId} does not match a lease`);
  }
  if (userId !== null && !state.user(userId)) throw new EnquiryInputError('userId', `userId ${userId} does not match a user`);

  // The API keeps whole seconds, as its DateTime format shows.
  const wholeSeconds = (ms: number) => Math.floor(ms / 1000) * 1000;
  let enquiryDate = wholeSeconds(state.now());
  if (text.enquiryDate) {
    const parsed = parseDateTime(text.enquiryDate);
    if (parsed === undefined) throw new EnquiryInputError('enquiryDate', 'enquiryDate must be a DateTime such as 2024-03-25T01:40:27+00:00');
    enquiryDate = wholeSeconds(parsed);
  }

  const categories: SimEnquiry['categories'] = [];
  if (raw.categories !== undefined && raw.categories !== null) {
    if (!Array.isArray(raw.categories)) throw new EnquiryInputError('categories', 'categories must be a list of {id}');
    for (const item of raw.categories) {
      const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
      const category = ENQUIRY_CATEGORIES.find((candidate) => candidate.id === Number(id));
      if (!category) throw new EnquiryInputError('categories', `categories: ${JSON.stringify(id ?? item)} is not a category id`);
      categories.push({ ...category });
    }
  }

  const metaData: SimEnquiry['metaData'] = [];
  if (raw.metaData !== undefined && raw.metaData !== null) {
    if (!Array.isArray(raw.metaData) || raw.metaData.length > 50) throw new EnquiryInputError('metaData', 'metaData must be a list of at most 50 {key, value}');
    for (const item of raw.metaData) {
      const { key, value } = (typeof item === 'object' && item !== null ? item : {}) as { key?: unknown; value?: unknown };
      if (typeof key !== 'string' || typeof value !== 'string' || key.length > 255 || value.length > 2000) {
        throw new EnquiryInputError('metaData', 'each metaData entry must be {key: string, value: string}');
      }
      metaData.push({ key, value });
    }
  }

  return {
    id: 0,
    inserted: wholeSeconds(state.now()),
    enquiryDate,
    subject: text.subject ?? null,
    body: text.body ?? null,
    originalId: text.originalId ?? null,
    propertyReference: text.propertyReference ?? null,
    source: source.apiCode,
    sourceName: source.source,
    saleLifeId,
    leaseLifeId,
    userId,
    fullName: text.fullName ?? null,
    firstName: text.firstName ?? null,
    lastName: text.lastName ?? null,
    email: text.email ?? null,
    telephone: text.telephone ?? null,
    mobile: text.mobile ?? null,
    categories,
    metaData,
    processed: false,
    origin: 'api',
  };
}
