import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { MalformedPushError, type ChangedKind, type ChangeNotice, type SignatureCheck } from '../listings/source.ts';
import type { CrmClient } from './client.ts';
import { crmPhotoSchema, crmPropertySchema } from './schemas.ts';

export { MalformedPushError, type ChangedKind, type ChangeNotice, type SignatureCheck } from '../listings/source.ts';

/**
 * The CRM's push: signed webhooks and the `/eventStream` read, in the CRM's own format
 * (../shared/reference/README.md, "Webhooks and the event stream"). The rest of the relay sees
 * only `ChangeNotice`s: which kind of record changed, its id, when, and (from a webhook's
 * `itemBodies`) the record itself, already checked against the client's schemas.
 */

export const WEBHOOK_SIGNATURE_HEADER = 'X-VaultRE-Signature';

/** Exactly `t=<ms>,sha512=<128 lower-case hex digits>`: no spaces, no other order, nothing else. */
const SIGNATURE_FORMAT = /^t=(\d{1,15}),sha512=([0-9a-f]{128})$/;

/** `t=<ms>,sha512=<hex HMAC-SHA512(apiKey, "<t>.<raw body>")>`, as the CRM signs. */
export function signCrmWebhook(apiKey: string, timestampMs: number, rawBody: string | Buffer): string {
  return `t=${timestampMs},sha512=${digestOf(apiKey, String(timestampMs), rawBody)}`;
}

function digestOf(apiKey: string, timestamp: string, rawBody: string | Buffer): string {
  return createHmac('sha512', apiKey).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/**
 * Checks the signature on the raw bytes, before anything parses them. The digest is compared in
 * constant time; the timestamp is checked only once the signature holds (so "stale" is said only
 * of a genuine but old delivery).
 */
export function verifyCrmWebhook(apiKey: string, header: string | undefined, rawBody: Buffer, nowMs: number, toleranceMs: number): SignatureCheck {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  const match = SIGNATURE_FORMAT.exec(header);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, timestamp, given] = match as unknown as [string, string, string];
  const expected = Buffer.from(digestOf(apiKey, timestamp, rawBody), 'hex');
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) return { ok: false, reason: 'mismatch' };
  const timestampMs = Number(timestamp);
  if (Math.abs(nowMs - timestampMs) > toleranceMs) return { ok: false, reason: 'stale' };
  return { ok: true, timestampMs, digest: given };
}

/** A notice as this CRM pushes it: its records are CRM properties. */
export type CrmChangeNotice = ChangeNotice & { records: PushedProperty[] };

/** A property record as pushed: the client's schema, `photos` left undefined when absent (not "no photos"). */
export const pushedPropertySchema = crmPropertySchema.extend({ photos: z.array(crmPhotoSchema).nullish() });
export type PushedProperty = z.infer<typeof pushedPropertySchema>;
/**
 * The same check, keeping only the schema's own fields: a pushed record is stored until applied, and
 * the confidential extras it carries (internal remarks, tenant, vendor and fee fields, sale details)
 * are dropped before it is, not later.
 */
const keptPropertySchema = z.object(pushedPropertySchema.shape);

const KIND_BY_MODEL: Record<string, ChangedKind> = { property: 'listing', user: 'staff' };

const webhookBodySchema = z.looseObject({
  event: z.string().regex(/^[A-Za-z][\w-]*\.[A-Za-z][\w-]*$/, 'must be "<object>.<action>"'),
  data: z.looseObject({ id: z.number().int().positive().nullish() }).nullish(),
  accountid: z.number().int().nullish(),
  timestamp: z.string().nullish(),
  itemBodies: z.array(z.looseObject({ dataModel: z.string().nullish(), data: z.string().nullish() })).nullish(),
});

/**
 * Reads a verified webhook body. Throws MalformedPushError (naming the field) for a body that is
 * not the CRM's shape; an unknown event or model is a notice with `kind` undefined, not an error.
 */
export function parseCrmWebhook(rawBody: Buffer, receivedAt: number): CrmChangeNotice {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new MalformedPushError('body', 'The webhook body is not valid JSON.');
  }
  const parsed = webhookBodySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.map(String).join('.') : 'body';
    throw new MalformedPushError(field, `The webhook body is not in the CRM's format (${field}: ${issue.message}).`);
  }
  const body = parsed.data;
  const [model = '', action = ''] = body.event.split('.');
  const kind = KIND_BY_MODEL[model.toLowerCase()];
  const id = body.data?.id ?? undefined;
  if (kind && id === undefined) throw new MalformedPushError('data.id', `The webhook body names no record (data.id) for ${body.event}.`);
  const eventTime = body.timestamp ? Date.parse(body.timestamp) : Number.NaN;
  const notice: CrmChangeNotice = {
    kind,
    name: `${model}.${action}`,
    id,
    at: toSecond(Number.isNaN(eventTime) ? receivedAt : eventTime),
    records: [],
    invalidRecords: 0,
  };
  // Every account on the key posts to the one registered URL; `accountid` says whose change it is.
  if (body.accountid != null) notice.account = String(body.accountid);
  if (kind !== 'listing') return notice;
  for (const [index, item] of (body.itemBodies ?? []).entries()) {
    if (!item.dataModel || !/propert/i.test(item.dataModel) || typeof item.data !== 'string') continue;
    let record: unknown;
    try {
      record = JSON.parse(item.data);
    } catch {
      throw new MalformedPushError(`itemBodies.${index}.data`, `The webhook's itemBodies.${index}.data is not a JSON string.`);
    }
    const checked = keptPropertySchema.safeParse(record);
    if (checked.success && checked.data.id === id) notice.records.push(checked.data);
    else notice.invalidRecords++;
  }
  return notice;
}

// Event stream -------------------------------------------------------------------------------

const streamItemSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).nullish(),
  timestamp: z.string().nullish(),
  type: z.string(),
  action: z.string().nullish(),
  data: z.looseObject({ id: z.number().int().positive().nullish() }).nullish(),
});
const streamPageSchema = z.looseObject({ items: z.array(z.unknown()), urls: z.looseObject({ next: z.string().nullish() }).nullish() });

export interface StreamRead {
  notices: ChangeNotice[];
  /** Where to go on next time (from the last page's `urls.next`); undefined when the CRM gave none. */
  cursor: string | undefined;
  pages: number;
}

/** Events older than this are gone from the CRM's stream: a cursor or eventsSince further back has lost some. */
export const EVENT_STREAM_RETENTION_MS = 30 * 86_400_000;
/** The CRM's default page size (lists): a page this full may have more behind it. */
const STREAM_FULL_PAGE = 50;

/**
 * Reads `GET /eventStream` from `cursor` (or, without one, from `eventsSince`), following
 * `urls.next` while pages come back full (50 items, the CRM's default page), at most `maxPages` requests. Each page is one request of
 * the daily budget.
 */
export async function readEventStream(
  client: CrmClient,
  from: { cursor: string } | { eventsSince: Date },
  options: { maxPages?: number; signal?: AbortSignal; now?: number } = {},
): Promise<StreamRead> {
  const maxPages = options.maxPages ?? 10;
  const now = options.now ?? Date.now();
  const notices: ChangeNotice[] = [];
  let query: Record<string, string | Date> = 'cursor' in from ? { cursor: from.cursor } : { eventsSince: from.eventsSince };
  let cursor: string | undefined = 'cursor' in from ? from.cursor : undefined;
  let pages = 0;
  while (pages < maxPages) {
    const page = await client.request({ path: '/eventStream', query, schema: streamPageSchema, signal: options.signal });
    pages++;
    for (const raw of page.items) {
      const item = streamItemSchema.safeParse(raw);
      if (!item.success) continue;
      const kind = KIND_BY_MODEL[item.data.type.toLowerCase()];
      const at = item.data.timestamp ? Date.parse(item.data.timestamp) : Number.NaN;
      notices.push({
        kind,
        name: `${item.data.type}.${item.data.action ?? ''}`,
        id: item.data.data?.id ?? undefined,
        at: toSecond(Number.isNaN(at) ? now : at),
        records: [],
        invalidRecords: 0,
      });
    }
    const next = page.urls?.next ? cursorOf(page.urls.next) : undefined;
    if (next !== undefined) cursor = next;
    // A short page is the end for now; stopping early loses nothing (the cursor is where we stopped).
    if (next === undefined || page.items.length < STREAM_FULL_PAGE || next === query.cursor) break;
    query = { cursor: next };
  }
  return { notices, cursor, pages };
}

/**
 * Event times to the whole second, as the CRM dates events on its stream: a webhook's time and its
 * stream event's then compare equal, whatever precision either is written with.
 */
function toSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function cursorOf(nextUrl: string): string | undefined {
  try {
    return new URL(nextUrl, 'http://relative.invalid/').searchParams.get('cursor') ?? undefined;
  } catch {
    return undefined;
  }
}
