import { createHash } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import type { Suburb } from '../../contract/relay-api.ts';
import type { SavedSearchAccepted, SavedSearchOptions, SavedSearchRefusal } from '../../contract/saved-search.ts';
import { confirmationToken, confirmKeyOf } from './confirmation.ts';
import { DailyEnquiryBudget } from '../lead-queue/daily-limits.ts';
import { jsonBody, leadIntake, limitStores, spamTrap, type LimitStores } from '../lead-queue/intake.ts';
import type { Clock } from '../runtime/clock.ts';
import type { EnquirySettings } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import type { LeadKeys } from '../enquiries/lead-keys.ts';
import {
  addressKey,
  SAVED_SEARCH_LIMITS,
  savedSearchFieldErrors,
  savedSearchFingerprint,
  savedSearchIntentDigest,
  savedSearchRequestSchema,
  type ParsedSavedSearch,
} from './schema.ts';
import type { SavedSearchService } from './service.ts';
import { refuseUnknownSuburbs } from './suburbs.ts';

export interface SavedSearchRouterOptions {
  /** Origins allowed to post (ALLOWED_ORIGINS); the relay's own pages always may. */
  allowedOrigins: readonly string[];
  ownOrigins?: readonly string[];
  /** Per client: the enquiry limits (counted apart from enquiries); for all: the saved searches' daily budget. */
  limits: Pick<EnquirySettings, 'rateLimitPerMinute' | 'dailyLimitPerClient' | 'minFillMs'> & { dailyBudget: number };
  log: Logger;
  now?: Clock;
  /** Kept per agency across AGENCIES_FILE reloads (as the enquiries'); default: the router's own. */
  limitStores?: SavedSearchLimitStores;
  /** The suburbs the agency's CRM names in its listings (the listing cache): a search naming another is refused (suburbs.ts). Without it, none is. */
  knownSuburbs?: () => readonly Suburb[];
  /** How long the confirmation page's button waits for the CRM to hold the search before answering (ms; default 6 s; tests driving the worker by hand: 0). */
  confirmSettleMs?: number;
}

export type SavedSearchLimitStores = LimitStores;

const DAY_MS = 24 * 60 * 60_000;

/** Offered unless e-mail confirmation is chosen with no SMTP server to send it: then what to set, for the site's developer. */
export function alertsOffer(service: Pick<SavedSearchService, 'confirmation'>): SavedSearchOptions {
  const { mode, mailer } = service.confirmation;
  if (mode === 'agent' || mailer) return { offered: true, confirmation: mode };
  return {
    offered: false,
    setup:
      'the relay confirms alerts by e-mail (SAVED_SEARCH_CONFIRMATION=email) and has no SMTP server to send it: set SMTP_URL and MAIL_FROM (or the agency’s smtpUrl and mailFrom in AGENCIES_FILE), or choose agent confirmation (SAVED_SEARCH_CONFIRMATION=agent).',
  };
}
export const savedSearchLimitStores = limitStores;

/**
 * `POST /api/v1/saved-searches` and `GET /api/v1/saved-searches/:originalId`. The enquiry form's
 * protections in the same order: CORS (a refused origin stores nothing), the body parser (8 KB),
 * the per-client limits (repeats of an accepted originalId free), validation, a suburb the CRM does
 * not know (400 with close names), the spam signals (a honeypot quarantines, a fill time too short
 * flags: both answered 202), the daily budget, then one committed insert before 202.
 */
export function savedSearchRouter(service: SavedSearchService, options: SavedSearchRouterOptions): Router {
  const { store, metrics } = service;
  const settings = options.limits;
  const log = options.log.child({ component: 'saved-searches' });
  const now = options.now ?? Date.now;
  const intake = leadIntake({
    allowedOrigins: options.allowedOrigins,
    ownOrigins: options.ownOrigins,
    queue: store,
    metrics,
    limits: settings,
    stores: options.limitStores ?? savedSearchLimitStores(now),
    log,
    now,
    words: {
      notJson: 'Send the saved search as JSON (Content-Type: application/json).',
      tooMany: 'Too many saved searches from this address; try again shortly.',
      dailyLimit: (limit) => `This address has saved ${limit} searches today, the most taken from one connection in a day`,
      refusal: (what) => `${what}; try again after 00:00 UTC, or contact the agency directly.`,
      unavailable: 'The saved search could not be stored just now; please try again shortly.',
      storeFailed: 'could not store a saved search',
      budgetSpent: 'The agency has taken all the saved searches it can through this form today',
      readFailed: 'could not read the saved searches',
      conflict: 'A saved search with this originalId but different content was already accepted.',
      conflictField: 'already used for a different saved search; a new one needs a new originalId',
    },
  });
  const { router, readState, answerRepeat } = intake;
  const budget = new DailyEnquiryBudget(store, settings.dailyBudget, now);
  const confirmation = service.confirmation;
  const offer = alertsOffer(service);

  // Whether "Get alerts" is offered here, and how a new one is confirmed: the elements ask before showing the form.
  router.get('/options', (_req: Request, res: Response) => {
    res.set('Cache-Control', 'public, max-age=300').json(offer);
  });

  router.post('/', ...jsonBody('The saved search', SAVED_SEARCH_LIMITS.bodyBytes), ...intake.clientLimits, async (req: Request, res: Response) => {
    intake.requireJson(req);
    if (!offer.offered) {
      res.status(403).json({ error: 'alerts_not_offered', message: 'This site does not offer e-mail alerts yet.', setup: offer.setup });
      return;
    }
    const parsed = savedSearchRequestSchema.safeParse(req.body);
    if (!parsed.success) throw intake.invalid('invalid_saved_search', savedSearchFieldErrors(parsed.error));
    const request = parsed.data as ParsedSavedSearch;
    // Every digest kept of the address is keyed with the relay's secret (lead-keys.ts).
    const keys = await leadKeys();
    const fingerprint = keys.keyed(savedSearchFingerprint(request));
    const accepted: SavedSearchAccepted = { originalId: request.originalId, status: 'queued', confirmation: confirmation.mode };
    const existing = await readState(request.originalId);
    if (existing) {
      answerRepeat(existing.fingerprint === fingerprint);
      res.status(202).json(accepted);
      return;
    }
    // After the repeat check: a saved search accepted once stays accepted, whatever the listings say now.
    const unknown = refuseUnknownSuburbs(request.search, options.knownSuburbs?.() ?? []);
    if (unknown) {
      const body: SavedSearchRefusal = {
        ...intake.invalid('unknown_suburb', unknown.fields).toBody(),
        fields: unknown.fields,
        suggestions: unknown.suggestions,
      };
      res.status(400).json(body);
      return;
    }
    const spamReason = spamTrap(request, settings.minFillMs);
    const quarantine = spamReason === 'honeypot';
    const result = await intake.commit({ originalId: request.originalId, heldBack: quarantine }, budget, () =>
      store.accept({
        originalId: request.originalId,
        fingerprint,
        acceptedAt: now(),
        addressKey: keys.keyed(createHash('sha256').update(addressKey(request.email)).digest('hex')),
        payload: {
          fullName: request.fullName,
          email: request.email,
          ...(request.mobile === undefined ? {} : { mobile: request.mobile }),
          consent: true,
          search: request.search,
          ...(request.language ? { language: request.language } : {}),
        },
        spamReason,
        // A flagged one (too fast) is one per intent like any; a quarantined one has no key.
        intentKey: quarantine ? undefined : keys.keyed(savedSearchIntentDigest(request)),
        confirmation: {
          mode: confirmation.mode,
          ...(confirmation.mode === 'email'
            ? { confirmKey: confirmKeyOf(confirmationToken(keys, request.originalId)), validMs: confirmation.validDays * DAY_MS }
            : {}),
        },
        consent: { page: request.page ?? null, words: request.consentText ?? null },
      }),
    );
    if (!result) {
      res.status(202).json(accepted);
      return;
    }
    if (result.outcome === 'same-intent') {
      // The same address saved the same search again under a new originalId (a reload, a second
      // tab): one saved search. Answered as the first was, nothing more sent to the CRM.
      budget.release();
      metrics.duplicates++;
      log.info({ originalId: request.originalId, sameAs: result.sameAs }, 'saved search repeats one taken within a day: answered, not sent again');
      res.status(202).json(accepted);
      return;
    }
    metrics.accepted++;
    if (spamReason) metrics.spam[spamReason]++;
    if (quarantine) {
      log.info({ originalId: request.originalId, reason: spamReason }, 'saved search quarantined: kept whole, not sent until the operator releases it');
    } else {
      log.info(
        { originalId: request.originalId, confirmation: confirmation.mode, ...(spamReason && { flagged: spamReason }) },
        confirmation.mode === 'email' ? 'saved search accepted: waiting for its owner to confirm by e-mail' : 'saved search accepted',
      );
      if (confirmation.mode === 'email') service.confirmer.wake();
      else service.worker.wake();
    }
    res.status(202).json(accepted);
  });

  /** The store's keyed digests; a store that cannot give its secret now is a 503 the form retries. */
  async function leadKeys(): Promise<LeadKeys> {
    try {
      return await store.keys();
    } catch (error) {
      log.error({ err: error }, 'could not read the relay secret the saved-search keys are made with');
      throw intake.storeUnavailable();
    }
  }

  intake.statusRoute('No saved search with this originalId was accepted here.');
  return router;
}
