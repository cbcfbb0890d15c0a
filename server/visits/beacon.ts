import { z } from 'zod';
import type { VisitSource } from './counts.ts';

/** What a beacon may report of a listing (docs/visits.md); the report's counts are named after these. */
export const VISIT_KINDS = ['detail', 'card', 'map-card', 'photos', 'kept', 'calendar', 'shared'] as const;
export type VisitKind = (typeof VISIT_KINDS)[number];

/** The agency's page kinds a detail view may come from (`page:<kind>`). */
export const PAGE_KINDS = ['home', 'buy', 'rent', 'sold', 'listing', 'map', 'agent', 'other'] as const;

/** The most events one beacon carries: the widget sends at most this many a flush. */
export const MAX_BEACON_EVENTS = 50;
/** A beacon's body cap (bytes): 50 events fit in well under it. */
export const MAX_BEACON_BYTES = 4096;

/** What the relay reads of a source (the widget sends at most 60 characters); of a campaign's name it keeps UTM_LENGTH. */
const SOURCE_LENGTH = 100;
const UTM_LENGTH = 40;

const visitEventSchema = z.object({
  kind: z.enum(VISIT_KINDS, { error: `must be one of ${VISIT_KINDS.join(', ')}` }),
  listingId: z
    .number({ error: 'must be a listing id (a positive whole number)' })
    .int('must be a whole number')
    .positive('must be positive')
    .max(Number.MAX_SAFE_INTEGER),
  source: z
    .string({ error: 'must be a string' })
    .transform((said) => said.slice(0, SOURCE_LENGTH))
    .optional(),
});

/** A beacon's body: a list of events, as navigator.sendBeacon sends it (a JSON string, so often text/plain). */
export const beaconSchema = z
  .array(visitEventSchema, { error: 'must be a JSON list of events' })
  .max(MAX_BEACON_EVENTS, `must hold at most ${MAX_BEACON_EVENTS} events`);

export type VisitEvent = z.infer<typeof visitEventSchema>;

/** The parsed events, or the fields at fault (`events[2].kind`), for the 400's body. */
export function parseBeacon(body: unknown): { events: VisitEvent[] } | { fields: Record<string, string> } {
  const parsed = beaconSchema.safeParse(body);
  if (parsed.success) return { events: parsed.data };
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const name = issue.path.reduce<string>((path, part) => (typeof part === 'number' ? `${path}[${part}]` : `${path}.${String(part)}`), 'events');
    fields[name] ??= issue.message;
  }
  return { fields };
}

/**
 * Where a detail view came from, read from what the page said (widget/shared/visits.ts sends it as
 * it found it, to keep its bytes few): `shared`; `utm:<utm_source>`, lower case, [a-z0-9._-] only,
 * at most 40 (nothing left: the page's "other"); `page:<first part of its path or its meta>`, one
 * of PAGE_KINDS (empty or "index": home; a trailing .html dropped), else "other". Only detail views
 * carry one. No other text a page sends is kept.
 */
export function sourceOf(event: VisitEvent): VisitSource | '' {
  if (event.kind !== 'detail') return '';
  const said = event.source ?? '';
  if (said === 'shared') return 'shared';
  if (said.startsWith('utm:')) {
    const campaign = said
      .slice(4)
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9._-]/g, '')
      .slice(0, UTM_LENGTH);
    return campaign ? `utm:${campaign}` : 'page:other';
  }
  const page = said.startsWith('page:')
    ? said
        .slice(5)
        .trim()
        .toLowerCase()
        .replace(/\.html?$/, '')
    : 'other';
  if (page === '' || page === 'index') return 'page:home';
  return (PAGE_KINDS as readonly string[]).includes(page) ? `page:${page}` : 'page:other';
}
