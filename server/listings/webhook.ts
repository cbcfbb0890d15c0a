import express, { Router } from 'express';
import { HttpError } from '../http/errors.ts';
import type { Logger } from '../runtime/log.ts';
import type { ChangeStore } from './event-store.ts';
import { MalformedPushError, type ChangeFeed, type ChangeNotice } from './source.ts';
import type { Clock } from '../runtime/clock.ts';
import type { WebhookInbox } from './inbox.ts';

/** The CRM sends one small record (or two, sale and lease) per event; anything far bigger is not the CRM. */
export const WEBHOOK_MAX_BYTES = 512 * 1024;
/**
 * A shared inbox that has not answered by then is taken as unreachable: 503 rather than a request
 * held open (should the insert still commit, a resent notice is a duplicate and it is applied once).
 */
const INBOX_TIMEOUT_MS = 10_000;
/** Retry-After of a 503 for the inbox unreachable (seconds). */
const INBOX_RETRY_AFTER_S = 10;

export interface WebhookCounts {
  accepted: number;
  duplicates: number;
  /** Events of a kind or model the relay does not use: acknowledged, counted, nothing else. */
  ignored: number;
  /** Verified notices that could not be stored (the shared database unreachable): answered 503, left to the event stream. */
  unavailable: number;
  /** Verified events of another account on the same API key: acknowledged, counted, nothing else. */
  otherAccount: number;
  refused: number;
}

/** The agency a verified notice is for: where it is stored, and who applies it. */
export interface WebhookTarget {
  changes: ChangeStore;
  /**
   * With DATABASE_URL: the agency's inbox shared by every relay, where the notice is stored
   * instead of `changes` (only the agency's sync holder writes its change queue; it takes the
   * notice from here).
   */
  inbox?: Pick<WebhookInbox, 'accept'>;
  /** Called after a notice is stored (the agency's change worker applies it). */
  onStored(): void;
  /** The agency's own counts (accepted, duplicates, ignored). */
  counts: WebhookCounts;
}

export interface WebhookDeps {
  /** The source's signed notices: how they are verified and read. */
  feed: Pick<ChangeFeed, 'canVerify' | 'keySetting' | 'signatureHeader' | 'signatureForm' | 'verify' | 'parse'>;
  toleranceSeconds: number;
  /**
   * The agency of a notice naming this account (undefined: it names none). Undefined: an account
   * this relay does not serve (another on the same key): acknowledged, counted, nothing else.
   */
  targetOf(account: string | undefined): WebhookTarget | undefined;
  /** The endpoint's counts: refusals and notices of accounts not served here. */
  counts: WebhookCounts;
  log: Logger;
  now?: Clock;
}

/**
 * POST /hooks/crm: the CRM's webhook, in the CRM's format only (see crm/events.ts). The raw bytes
 * are verified before anything reads them; the notice is committed to SQLite (with DATABASE_URL: to
 * the agency's shared inbox in PostgreSQL) before the 2xx, and applied afterwards by the change
 * worker. Refusals (4xx) change nothing; a notice that could not be stored is a 503, never a 2xx.
 */
export function webhookRouter(deps: WebhookDeps): Router {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ component: 'webhook' });
  // Strict and case-sensitive like every relay route: /hooks/crm/ or /HOOKS/crm are 404s.
  const router = Router({ caseSensitive: true, strict: true });
  router.post('/hooks/crm', express.raw({ type: () => true, limit: WEBHOOK_MAX_BYTES }), async (req, res) => {
    const { feed } = deps;
    if (!feed.canVerify) throw new HttpError(404, 'not_found', `The CRM webhook needs ${feed.keySetting}, which the CRM signs with.`);
    const rawBody: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const received = now();
    const check = feed.verify(req.get(feed.signatureHeader), rawBody, received, deps.toleranceSeconds * 1000);
    if (!check.ok) {
      deps.counts.refused++;
      log.warn({ reason: check.reason }, 'webhook refused');
      if (check.reason === 'stale') {
        throw new HttpError(
          401,
          'stale_signature',
          `The webhook timestamp is more than WEBHOOK_TOLERANCE_SECONDS=${deps.toleranceSeconds} s from the relay's clock.`,
        );
      }
      throw new HttpError(
        401,
        'bad_signature',
        `The ${feed.signatureHeader} header is ${check.reason === 'missing' ? 'missing' : check.reason === 'malformed' ? `not of the form ${feed.signatureForm}` : 'not a valid signature of this body'}.`,
      );
    }

    let notice;
    try {
      notice = feed.parse(rawBody, received);
    } catch (error) {
      if (!(error instanceof MalformedPushError)) throw error;
      deps.counts.refused++;
      log.warn({ field: error.field }, 'webhook refused: malformed body');
      throw new HttpError(400, 'invalid_body', error.message, { [error.field]: 'not in the CRM webhook format' });
    }

    // One webhook URL gets every account on the key: another agency's change costs nothing here.
    const target = deps.targetOf(notice.account);
    if (!target) {
      deps.counts.otherAccount++;
      log.debug({ event: notice.name }, 'webhook for another account on the API key: acknowledged and ignored');
      res.status(200).json({ status: 'ignored', reason: 'other_account' });
      return;
    }

    const expiresAt = check.timestampMs + deps.toleranceSeconds * 1000;
    const stored = target.inbox
      ? await acceptShared(target, target.inbox, check.digest, expiresAt, notice, received)
      : target.changes.acceptWebhook(check.digest, expiresAt, notice, received);
    if (stored === 'duplicate') {
      target.counts.duplicates++;
      log.info({ event: notice.name }, 'webhook replay ignored (digest seen before)');
      res.status(200).json({ status: 'duplicate' });
      return;
    }
    if (!notice.kind) {
      target.counts.ignored++;
      log.info({ event: notice.name }, 'webhook for an event the relay does not use: acknowledged');
      res.status(200).json({ status: 'ignored', event: notice.name });
      return;
    }
    target.counts.accepted++;
    if (notice.invalidRecords > 0)
      log.warn(
        { event: notice.name, id: notice.id, invalidRecords: notice.invalidRecords },
        'pushed records did not match the schema; reading the change from the CRM',
      );
    target.onStored();
    res.status(202).json({ status: 'accepted', event: notice.name, id: notice.id });
  });
  return router;

  async function acceptShared(
    target: WebhookTarget,
    inbox: NonNullable<WebhookTarget['inbox']>,
    digest: string,
    expiresAt: number,
    notice: ChangeNotice,
    received: number,
  ): Promise<'stored' | 'duplicate'> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        inbox.accept(digest, expiresAt, notice, received),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${INBOX_TIMEOUT_MS / 1000} s`)), INBOX_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      target.counts.unavailable++;
      // The database's own message (a refused connection, a timeout) names no password or notice content.
      log.error(
        { error: error instanceof Error ? error.message : String(error), event: notice.name },
        'webhook not stored: the shared database (DATABASE_URL) did not answer; answered 503, the event stream catches the change up',
      );
      throw new HttpError(503, 'unavailable', 'The notice could not be stored just now; send it again shortly.', undefined, {
        'Retry-After': String(INBOX_RETRY_AFTER_S),
      });
    } finally {
      clearTimeout(timer);
    }
  }
}
