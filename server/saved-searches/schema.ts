import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readsSiteLanguage } from '../../contract/languages.ts';
import { LISTING_FILTERS, type FilterSpec } from '../../contract/listing-filters.ts';
import { SAVED_SEARCH_FILTER_NAMES, type SavedSearchFilterName, type SavedSearchFilters, type SavedSearchRequest } from '../../contract/saved-search.ts';
import { compactPhone } from '../../contract/phone.ts';
import { AREA_SUBURBS_MAX, suburbKey } from '../../contract/saved-search-area.ts';
import { contactFields } from '../enquiries/schema.ts';

/** Limits of `POST /api/v1/saved-searches`: the enquiry form's, and a small body (no message). */
export const SAVED_SEARCH_LIMITS = { bodyBytes: 8 * 1024 } as const;

/** Largest price a search may name (dollars): beyond any home, small enough to stay exact. */
const MONEY_MAX = 1_000_000_000;

/** One filter's value as JSON (the listing API takes strings in a query; a body carries numbers). */
function filterValue(name: SavedSearchFilterName, spec: FilterSpec, label = `search.${name}`): z.ZodType {
  switch (spec.kind) {
    case 'choice':
      return z.enum(spec.values as [string, ...string[]], { error: `${label} must be one of ${spec.values.join(', ')}` });
    case 'text':
      return (
        z
          .string({ error: `${label} must be text` })
          .trim()
          .min(1, { error: `${label} must not be empty` })
          .max(spec.maxLength, { error: `${label} must be at most ${spec.maxLength} characters` })
          // eslint-disable-next-line no-control-regex
          .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), { error: `${label} contains characters that are not allowed` })
      );
    case 'list':
      // One suburb here: several are sent as search.suburbs (the widget splits "Kew,Hawthorn").
      return filterValue(name, { kind: 'text', maxLength: spec.maxLength, attribute: spec.attribute }, label).refine((value) => !String(value).includes(','), {
        error: `${label} must name one suburb (send several as search.suburbs)`,
      });
    case 'whole':
      return z
        .number({ error: `${label} must be a number` })
        .int({ error: `${label} must be a whole number` })
        .min(0, { error: `${label} must not be negative` })
        .max(spec.max, { error: `${label} must be at most ${spec.max}` });
    case 'money':
      return z
        .number({ error: `${label} must be a number of dollars` })
        .min(0, { error: `${label} must not be negative` })
        .max(MONEY_MAX, { error: `${label} is too large` })
        .refine((value) => Math.round(value * 100) === value * 100, { error: `${label} must be whole dollars and cents` });
    case 'bbox':
    case 'area':
      // No kept filter is a box or a drawn area today (contract/saved-search.ts); one would need its own reading here.
      throw new Error(`search.${name}: a map area is not a saved-search filter`);
  }
}

/** A map area's suburbs (contract/saved-search-area.ts): each a suburb's name as `suburb` takes it, none twice, at most AREA_SUBURBS_MAX. */
const areaSuburbs = z
  .array(filterValue('suburb', LISTING_FILTERS.suburb, 'each of search.suburbs'), { error: 'search.suburbs must be a list of suburb names' })
  .min(1, { error: 'search.suburbs must name at least one suburb (leave it out for a search of any suburb)' })
  .max(AREA_SUBURBS_MAX, { error: `search.suburbs must name at most ${AREA_SUBURBS_MAX} suburbs: a smaller map area names fewer` })
  .refine((names) => new Set(names.map((name) => suburbKey(name as string))).size === names.length, { error: 'search.suburbs names a suburb twice' });

const searchSchema = z
  .strictObject(
    {
      ...(Object.fromEntries(SAVED_SEARCH_FILTER_NAMES.map((name) => [name, filterValue(name, LISTING_FILTERS[name]).optional()])) as Record<
        SavedSearchFilterName,
        z.ZodOptional<z.ZodType>
      >),
      suburbs: areaSuburbs.optional(),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? undefined : 'search must be an object of listing filters') },
  )
  .refine((search) => search.minPrice === undefined || search.maxPrice === undefined || (search.minPrice as number) <= (search.maxPrice as number), {
    message: 'search.maxPrice must not be below search.minPrice',
    path: ['maxPrice'],
  })
  // One suburb chosen by name, or a map area's suburbs: the requirement holds one list, and which one the buyer meant must not be guessed.
  .refine((search) => search.suburb === undefined || search.suburbs === undefined, {
    message: "search.suburbs cannot be given with search.suburb: send the suburb chosen, or the map area's suburbs",
    path: ['suburbs'],
  });

const fields = contactFields;

/**
 * The body of `POST /api/v1/saved-searches`: the enquiry form's fields (the same rules: a UUID, a
 * name with a letter, an e-mail address, an optional AU/NZ/UK mobile, the honeypot and the timing)
 * with `search` in place of the listing. Consent is required: alerts are e-mail the visitor asks for.
 */
export const savedSearchRequestSchema = z.object(
  {
    originalId: fields.originalId,
    fullName: fields.fullName,
    email: fields.email,
    mobile: fields.mobile,
    consent: z.literal(true, { error: 'consent must be given (true): alerts are sent only to those who agree' }),
    // The consent record: the words agreed to, on which page (unusable page values dropped, as the enquiries').
    consentText: fields.consentText,
    page: fields.page,
    website: fields.website,
    elapsedMs: fields.elapsedMs,
    search: searchSchema,
    // The visitor's language, for the e-mail and its page: one the relay has no words for reads as none (the agency's then), never refused.
    language: z
      .string({ error: 'language must be a language tag such as vi or zh-Hant' })
      .max(35, { error: 'language must be a language tag such as vi or zh-Hant' })
      .transform((value) => readsSiteLanguage(value))
      .optional(),
  },
  { error: 'The body must be a JSON object' },
);

export type ParsedSavedSearch = Omit<z.output<typeof savedSearchRequestSchema>, 'search'> & { search: SavedSearchFilters };

// The schema and the public contract must not drift apart.
export const contractMatchesSchema = (request: SavedSearchRequest): z.input<typeof savedSearchRequestSchema> => ({ ...request, consent: true });

/** Field → message for every issue (the first per field), naming search's filters as `search.<name>`. */
export function savedSearchFieldErrors(error: z.ZodError): Record<string, string> {
  const found: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        found[[...issue.path, key].join('.')] ??= `is not a filter a saved search keeps (${[...SAVED_SEARCH_FILTER_NAMES, 'suburbs'].join(', ')})`;
      continue;
    }
    const name = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
    found[name] ??= issue.message;
  }
  return found;
}

/** The e-mail address as the per-address claim and the CRM look-up use it: trimmed, lower case. */
export function addressKey(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * What makes two submissions "the same saved search": everything the visitor typed or chose,
 * normalised, the honeypot and timing left out (a retry re-measures elapsedMs).
 */
export function savedSearchFingerprint(request: ParsedSavedSearch): string {
  const search: Record<string, unknown> = Object.fromEntries(
    SAVED_SEARCH_FILTER_NAMES.filter((name) => request.search[name] !== undefined).map((name) => [name, request.search[name]]),
  );
  if (request.search.suburbs !== undefined) search.suburbs = request.search.suburbs;
  const canonical = JSON.stringify([
    request.originalId,
    request.fullName,
    addressKey(request.email),
    request.mobile === undefined ? null : compactPhone(request.mobile),
    request.consent,
    search,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * What makes two submissions "the same intent" (one saved search, store.ts accept): the same
 * e-mail address (any case) and the same search, its words in any case and its suburbs in any
 * order. Whoever sent it under whichever originalId, with whatever name or mobile: a reload or a
 * second tab of "Get alerts for this search". A plain SHA-256, keyed before it is stored.
 */
export function savedSearchIntentDigest(request: Pick<ParsedSavedSearch, 'email' | 'search'>): string {
  const sameWords = (value: unknown) => (typeof value === 'string' ? suburbKey(value) : value);
  const search: Array<[string, unknown]> = SAVED_SEARCH_FILTER_NAMES.filter((name) => request.search[name] !== undefined).map((name) => [
    name,
    sameWords(request.search[name]),
  ]);
  if (request.search.suburbs !== undefined) search.push(['suburbs', request.search.suburbs.map(suburbKey).sort()]);
  return createHash('sha256')
    .update(JSON.stringify(['saved-search-intent', addressKey(request.email), search]))
    .digest('hex');
}
