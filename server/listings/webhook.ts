import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { Router } from 'express';
import { HttpError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { RefreshOutcome } from './sync.ts';

/**
 * POST /hooks/crm: the CRM (or a bridge in front of it) announces that a listing changed.
 *
 * Signing (the relay's own scheme; the CRM spec leaves webhook signing open):
 *   X-Estate-Timestamp: <Unix time in seconds>
 *   X-Estate-Signature: v1=<hex HMAC-SHA256(WEBHOOK_SECRET, "<timestamp>.<raw request body>")>
 * The signature is checked on the raw bytes before the body is parsed or anything else is done;
 * timestamps further than WEBHOOK_TOLERANCE_SECONDS from the relay's clock are refused, and a
 * signature seen before inside that window is not acted on twice.
 * Body: JSON `{ "propertyId": 2140001 }` (also accepted: `{ "id": ... }`, `{ "property": { "id": ... } }`).
 */
export const TIMESTAMP_HEADER = 'X-Estate-Timestamp';
export const SIGNATURE_HEADER = 'X-Estate-Signature';

export function signWebhook(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'stale' | 'mismatch' };

export function verifyWebhook(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: Buffer,
  nowSeconds: number,
  toleranceSeconds: number,
): SignatureCheck {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) return { ok: false, reason: 'missing' };
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return { ok: false, reason: 'stale' };
  const expected = Buffer.from(signWebhook(secret, timestamp, rawBody));
  const given = Buffer.from(signature.trim());
  // timingSafeEqual needs equal lengths; a wrong length is a mismatch whatever its content.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'mismatch' };
  return { ok: true };
}

export interface WebhookDeps {
  secret: string | undefined;
  toleranceSeconds: number;
  refreshListing(id: number): Promise<RefreshOutcome>;
  log: Logger;
  now?: () => number;
}

export function webhookRouter(deps: WebhookDeps): Router {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ component: 'webhook' });
  /** Signatures already acted on, until their timestamp leaves the tolerance window. */
  const seen = new Map<string, number>();
  const router = Router();
  router.post('/hooks/crm', express.raw({ type: () => true, limit: '64kb' }), (req, res) => {
    if (!deps.secret) throw new HttpError(404, 'not_found', 'The CRM webhook is off (WEBHOOK_SECRET is not set).');
    const rawBody: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const nowSeconds = Math.floor(now() / 1000);
    const check = verifyWebhook(
      deps.secret,
      { timestamp: req.get(TIMESTAMP_HEADER), signature: req.get(SIGNATURE_HEADER) },
      rawBody,
      nowSeconds,
      deps.toleranceSeconds,
    );
    if (!check.ok) {
      log.warn({ reason: check.reason, ip: req.ip }, 'webhook refused: bad signature');
      const message =
        check.reason === 'stale'
          ? `The webhook timestamp is missing, malformed or more than ${deps.toleranceSeconds} s away from the relay's clock.`
          : `The webhook signature is missing or wrong (${TIMESTAMP_HEADER}, ${SIGNATURE_HEADER}).`;
      throw new HttpError(401, check.reason === 'stale' ? 'stale_signature' : 'bad_signature', message);
    }

    for (const [signature, expires] of seen) if (expires < nowSeconds) seen.delete(signature);
    const signature = String(req.get(SIGNATURE_HEADER));
    if (seen.has(signature)) {
      res.status(200).json({ status: 'duplicate' });
      return;
    }
    seen.set(signature, Number(req.get(TIMESTAMP_HEADER)) + deps.toleranceSeconds);

    const id = propertyIdOf(rawBody);
    if (id === undefined) {
      throw new HttpError(400, 'invalid_body', 'The webhook body must be JSON naming the property: {"propertyId": 123}.', {
        propertyId: 'must be a positive whole number',
      });
    }
    // Answer at once: the CRM should not wait for our upstream call.
    deps.refreshListing(id).then(
      (outcome) => log.info({ propertyId: id, outcome }, 'webhook handled'),
      (error: unknown) => log.warn({ propertyId: id, error: (error as Error).message }, 'webhook refresh failed; the next sync will catch up'),
    );
    res.status(202).json({ status: 'accepted', propertyId: id });
  });
  return router;
}

function propertyIdOf(rawBody: Buffer): number | undefined {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as { propertyId?: unknown; id?: unknown; property?: { id?: unknown } | null };
  const id = record.propertyId ?? record.property?.id ?? record.id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
