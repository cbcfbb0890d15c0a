import { z } from 'zod';
import type { MappedAgent, PublicListingFields } from './source.ts';

/*
 * The public listing and agent as the cache stores them (listings.public_json, agents.public_json)
 * and the API answers them: the shape contract/relay-api.ts promises, as zod schemas. Strict: a
 * field the allow-list (crm/public-fields.ts) does not build (a confidential CRM field, the search
 * price) fails the parse instead of being carried along. The cache's rows come from this relay's
 * own mapping; rows copied from another relay (cluster/replica.ts) are parsed with these before
 * they are written, so a row edited in PostgreSQL cannot widen what a relay publishes.
 */

const text = z.string();
const nullableText = text.nullable();
const count = z.number().int().min(0).nullable();
const area = z.strictObject({ value: z.number().positive(), units: text }).nullable();

export const publicListingSchema = z.strictObject({
  id: z.number().int().positive(),
  type: z.enum(['sale', 'lease']),
  status: z.enum(['available', 'sold', 'leased']),
  badge: z.enum(['under-offer', 'sold', 'leased']).nullable(),
  heading: nullableText,
  address: z.strictObject({ display: text, suburb: nullableText, postcode: nullableText, state: nullableText }),
  displayPrice: nullableText,
  propertyType: nullableText,
  bed: count,
  bath: count,
  cars: count,
  landArea: area,
  floorArea: area,
  methodOfSale: nullableText,
  auctionDateTime: nullableText,
  modified: text,
  description: nullableText,
  links: z.array(z.strictObject({ url: text, kind: text })),
  auction: z.strictObject({ dateTime: nullableText, venue: nullableText, auctioneer: nullableText }).nullable(),
  features: z.array(text),
  ensuites: count,
  toilets: count,
  geolocation: z.strictObject({ latitude: z.number(), longitude: z.number() }).nullable(),
  inserted: nullableText,
});

const profile = z
  .discriminatedUnion('format', [z.strictObject({ format: z.literal('html'), html: text }), z.strictObject({ format: z.literal('text'), text })])
  .nullable();

/** An agent's row: both ways of reaching them (which one an answer shows is the agency's setting, listings/team.ts) and the cleaned profile. */
export const publicAgentSchema = z.strictObject({
  id: z.number().int().positive(),
  name: text,
  position: nullableText,
  officePhone: nullableText,
  mobile: nullableText,
  email: nullableText,
  profile,
});

/** The schemas and the contract's types name the same fields, each of the same type (checked by the compiler). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<Check extends true> = Check;
export type PublicSchemasMatchContract = Holds<Same<z.infer<typeof publicListingSchema>, PublicListingFields>> &
  Holds<Same<z.infer<typeof publicAgentSchema>, MappedAgent['fields']>>;

/** What is wrong with a stored public JSON (undefined: nothing): not JSON, a field too many, missing or of the wrong type. */
function jsonProblem(schema: z.ZodType, json: unknown): string | undefined {
  if (typeof json !== 'string') return 'public_json is not text';
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return 'public_json is not JSON';
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  // Paths and codes only: the values may be what must not be published.
  return `public_json: ${parsed.error.issues
    .slice(0, 3)
    .map(
      (issue) =>
        `${issue.code}${issue.path.length ? ` at ${issue.path.join('.')}` : ''}${issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : ''}`,
    )
    .join('; ')}`;
}

/** A listings row as copied from another relay: its public JSON the API's shape, its id, type and status those of the row. */
export function listingRowProblem(row: Record<string, unknown>): string | undefined {
  const problem = jsonProblem(publicListingSchema, row.public_json);
  if (problem) return problem;
  const fields = JSON.parse(row.public_json as string) as PublicListingFields;
  if (fields.id !== row.id || fields.type !== row.type || fields.status !== row.status) return 'public_json: id, type or status differ from the row';
  return undefined;
}

/** An agents row as copied from another relay: its public JSON the API's shape, for the row's id. */
export function agentRowProblem(row: Record<string, unknown>): string | undefined {
  const problem = jsonProblem(publicAgentSchema, row.public_json);
  if (problem) return problem;
  return (JSON.parse(row.public_json as string) as { id: unknown }).id === row.id ? undefined : 'public_json: id differs from the row';
}
