import type { Request, Response, Router } from 'express';
import type { EnquiryAccepted, EnquiryBatchAnswer, EnquiryBatchRequest, EnquiryBatchResult, QuestionRequest } from '../../contract/relay-api.ts';
import { HttpError } from '../http/errors.ts';
import { DailyEnquiryBudget } from '../lead-queue/daily-limits.ts';
import { formatWait, jsonBody, leadIntake, limitStores, spamTrap, type LimitStores } from '../lead-queue/intake.ts';
import type { LeadDestination } from './sink.ts';
import type { LeadKeys } from './lead-keys.ts';
import {
  ENQUIRY_BATCH_LIMITS,
  ENQUIRY_LIMITS,
  enquiryBatchSchema,
  enquiryRequestSchema,
  fieldErrors,
  leadAbout,
  timeProblems,
  type ParsedEnquiry,
  type ParsedOpenHomeRegistration,
} from './schema.ts';
import type { EnquiryService } from './service.ts';
import type { EnquirySettings } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import type { Clock } from '../runtime/clock.ts';
import { findTarget, type OpenHomeTimes } from './targets.ts';
import { ignoredAttribution, leadParserBytes, leadWithinLimit } from './attribution.ts';

export interface EnquiryRouterOptions {
  /** Origins allowed to post enquiries (ALLOWED_ORIGINS); the relay's own pages always may. */
  allowedOrigins: readonly string[];
  /** The relay's own origins (see CorsPolicy.ownOrigins). */
  ownOrigins?: readonly string[];
  /** What one client, and all together, may send (config.enquiries). */
  limits: Pick<EnquirySettings, 'rateLimitPerMinute' | 'dailyLimitPerClient' | 'dailyBudget' | 'minFillMs'>;
  log: Logger;
  now?: Clock;
  /**
   * Where the per-client counts are kept (default: new ones for this router). An agency's router is
   * built again when AGENCIES_FILE is reloaded: the relay keeps these per agency across reloads, so
   * a client at its limit stays there (compose/agency-set.ts).
   */
  limitStores?: EnquiryLimitStores;
}

/** The per-client counts of the enquiry limits: per minute, and per UTC day (both in memory). */
export type EnquiryLimitStores = LimitStores;
export const enquiryLimitStores = limitStores;

/**
 * `POST /api/v1/enquiries` and `GET /api/v1/enquiries/:originalId`, mounted by createApp.
 * Order matters: CORS first (a refused origin stores nothing), then the body parser (16 KB), then
 * the rate limit (after the parser, so a repeat of an accepted originalId can be let through).
 */
export function enquiryRouter(service: EnquiryService, options: EnquiryRouterOptions): Router {
  const { outbox, metrics } = service;
  const settings = options.limits;
  const log = options.log.child({ component: 'enquiries' });
  const now = options.now ?? Date.now;
  const intake = leadIntake({
    allowedOrigins: options.allowedOrigins,
    ownOrigins: options.ownOrigins,
    queue: outbox,
    metrics,
    limits: settings,
    stores: options.limitStores ?? enquiryLimitStores(now),
    log,
    now,
    heldReadsFailFast: true,
    words: {
      notJson: 'Send the enquiry as JSON (Content-Type: application/json).',
      tooMany: 'Too many enquiries from this address; try again shortly.',
      dailyLimit: (limit) => `This address has sent ${limit} enquiries today, the most taken from one connection in a day`,
      refusal: (what, seconds) => `${what}; try again after 00:00 UTC (in ${formatWait(seconds)}), or contact the agency directly.`,
      unavailable: 'The enquiry could not be stored just now; it is kept in the form, please try again shortly.',
      storeFailed: 'could not store an enquiry',
      budgetSpent: 'The agency has taken all the enquiries it can through this form today',
      readFailed: 'could not read the enquiry outbox',
      conflict: 'An enquiry with this originalId but different content was already accepted.',
      conflictField: 'already used for a different enquiry; a new enquiry needs a new originalId',
    },
  });
  const { router, readState, answerRepeat, invalid } = intake;
  const budget = new DailyEnquiryBudget(outbox, settings.dailyBudget, now);
  let budgetWarnedUntil: number | undefined;

  // The parser leaves room for the attribution, which leadWithinLimit drops from a lead over 16 KB with it.
  const body = [...jsonBody('The enquiry', leadParserBytes(ENQUIRY_LIMITS.bodyBytes)), leadWithinLimit('The enquiry', ENQUIRY_LIMITS.bodyBytes)] as const;
  router.post('/', ...body, ...intake.clientLimits, async (req: Request, res: Response) => {
    intake.requireJson(req);
    res.status(202).json(await acceptLead(req.body, res.locals.attributionDropped as Record<string, string> | undefined));
  });

  /**
   * `POST /api/v1/enquiries/batch`: one question about each of several homes (a shortlist's
   * "Enquire about these"), in one request that counts once against the client's limits. Each home
   * is taken as its own `POST /api/v1/enquiries` would take it (its own originalId, lead and answer),
   * in order; the answer lists each home's (contract EnquiryBatchAnswer). A retry of the whole
   * batch is answered home by home as retries are.
   */
  router.post('/batch', ...jsonBody('The enquiries', ENQUIRY_BATCH_LIMITS.bodyBytes), ...intake.clientLimits, async (req: Request, res: Response) => {
    intake.requireJson(req);
    const parsed = enquiryBatchSchema.safeParse(req.body);
    if (!parsed.success) throw invalid('invalid_enquiry', fieldErrors(parsed.error));
    // The question's fields as sent (each lead is checked whole below); a target or subject beside
    // the homes is not the question's: each home brings its own.
    const { homes, ...shared } = req.body as EnquiryBatchRequest & Partial<Pick<QuestionRequest, 'listingId' | 'agentId' | 'subject'>>;
    delete shared.listingId;
    delete shared.agentId;
    delete shared.subject;
    const results: EnquiryBatchResult[] = [];
    for (const home of homes) {
      const lead: QuestionRequest = { ...shared, originalId: home.originalId, listingId: home.listingId, subject: home.subject };
      try {
        results.push({ listingId: home.listingId, httpStatus: 202, ...(await acceptLead(lead)) });
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const retryAfter = Number(error.headers?.['Retry-After']);
        results.push({
          listingId: home.listingId,
          originalId: String(home.originalId),
          httpStatus: error.status,
          ...error.toBody(),
          ...(Number.isFinite(retryAfter) && { retryAfterSeconds: retryAfter }),
        });
      }
    }
    const answer: EnquiryBatchAnswer = { results };
    res.status(200).json(answer);
  });

  /**
   * One lead, as `POST /api/v1/enquiries` takes it: its 202 body, or an HttpError.
   * `attributionDropped`: what leadWithinLimit took out of an over-long body, named in `ignored`.
   */
  async function acceptLead(body: unknown, attributionDropped?: Record<string, string>): Promise<EnquiryAccepted> {
    const parsed = enquiryRequestSchema.safeParse(body);
    if (!parsed.success) throw invalid('invalid_enquiry', fieldErrors(parsed.error));
    const enquiry: ParsedEnquiry = parsed.data;
    const keys = await leadKeys();
    const fingerprint = keys.fingerprint(enquiry);
    const ignored = ignoredAttribution(body, attributionDropped);
    const accepted: EnquiryAccepted = { originalId: enquiry.originalId, status: 'queued', ...(ignored && { ignored }) };
    // The reasons only: the values are the sender's.
    if (ignored) log.info({ originalId: enquiry.originalId, ignored }, "part of an enquiry's origin (page, campaign) dropped");

    // A repeat answers from the outbox alone: the listing may have gone since, the answer may not change.
    const existing = await readState(enquiry.originalId);
    if (existing) {
      answerRepeat(existing.fingerprint === fingerprint);
      return accepted;
    }

    // Times are checked against now only for a lead not accepted before (its retry may come later).
    const timing = timeProblems(enquiry, now());
    if (timing) throw invalid('invalid_enquiry', timing);

    // A signal flags (too_fast) or quarantines (honeypot) the lead, never drops it (lead-queue/table.ts).
    // A quarantined one is kept whole, its open home too (a release delivers it as it came); its
    // target is left to the worker, so a bot costs no look-up.
    const spamReason = spamTrap(enquiry, settings.minFillMs);
    const quarantine = spamReason === 'honeypot';
    const target = quarantine ? undefined : await resolveTarget(enquiry);
    if (enquiry.kind === 'open-home') enquiry.openHome = await openHomeOf(enquiry);
    const once = quarantine ? undefined : keys.onceKey(enquiry);
    // A flagged lead (too fast) is a lead like any: one per intent too.
    const intentKey = quarantine ? undefined : keys.intentKey(enquiry);

    const result = await intake.commit(
      { originalId: enquiry.originalId, heldBack: quarantine },
      budget,
      async () => {
        const stored = await outbox.accept({ enquiry, fingerprint, acceptedAt: now(), target, spamReason, onceKey: once, intentKey });
        if (stored.outcome !== 'repeat') return stored;
        // This person is registered for this open home already (under another originalId): the
        // answer is the same as for a first registration, so it tells nobody whether an address
        // registered; the row keeps no personal data and nothing more is sent (docs/api.md). Its
        // share of the daily budget is given back below, once: a throw or a lost race here is
        // given back by commit.
        const repeat = await outbox.accept({ enquiry, fingerprint, acceptedAt: now(), spamReason: 'repeat_registration' });
        return repeat.outcome === 'created' ? { outcome: 'repeated' as const } : repeat;
      },
      (spentUntil) => {
        // Once per day in the log, not once per refused request.
        if (budgetWarnedUntil !== spentUntil)
          log.warn({ budget: budget.limit }, 'daily enquiry budget spent: refusing enquiries until 00:00 UTC (ENQUIRY_DAILY_BUDGET)');
        budgetWarnedUntil = spentUntil;
      },
    );
    // A repeat lost the race to a concurrent submission of the same originalId: answered as one.
    if (!result) {
      return accepted;
    }
    if (result.outcome === 'same-intent') {
      // The same person sent the same lead again under a new originalId (a reload, a second tab):
      // one lead. Answered as the first was; this originalId's status reads as the first's.
      budget.release();
      metrics.duplicates++;
      log.info({ originalId: enquiry.originalId, sameAs: result.sameAs }, 'enquiry repeats one taken within a day: answered, not forwarded');
      return accepted;
    }
    if (result.outcome === 'repeated') {
      budget.release();
      metrics.accepted++;
      metrics.spam.repeat_registration++;
      log.info({ originalId: enquiry.originalId }, 'open-home registration repeats one already taken: answered, not forwarded');
      return accepted;
    }
    metrics.accepted++;
    if (spamReason) metrics.spam[spamReason]++;
    if (quarantine) {
      log.info({ originalId: enquiry.originalId, reason: spamReason }, 'enquiry quarantined: kept whole, not sent until the operator releases it');
    } else {
      log.info({ originalId: enquiry.originalId, resolved: target !== undefined, ...(spamReason && { flagged: spamReason }) }, 'enquiry accepted');
      service.worker.wake();
    }
    return accepted;
  }

  /** The outbox's keyed digests; a store that cannot give its secret now is a 503 the form retries. */
  async function leadKeys(): Promise<LeadKeys> {
    try {
      return await outbox.keys();
    } catch (error) {
      log.error({ err: error }, 'could not read the relay secret the enquiry keys are made with');
      throw intake.storeUnavailable();
    }
  }

  intake.statusRoute('No enquiry with this originalId was accepted here.');

  /**
   * Where the enquiry goes (the lead sink's token). An id the look-up does not know is the sender's
   * mistake (400). A look-up that fails (CRM unreachable) must not lose the lead: the enquiry is
   * accepted unresolved and the worker resolves it before delivery (as is one about a listing that
   * names nowhere to deliver to, which the worker then dead-letters).
   */
  async function resolveTarget(enquiry: ParsedEnquiry): Promise<LeadDestination | undefined> {
    // A lead to the office (an appraisal naming no agent) has nothing to look up.
    if (leadAbout(enquiry) === 'office') return undefined;
    try {
      const target = await findTarget(service.targets, enquiry);
      if (target !== undefined) return target ?? undefined;
      throw leadAbout(enquiry) === 'agent'
        ? unknownTarget('agentId', 'No agent with this id takes enquiries here')
        : unknownTarget('listingId', 'No listing with this id');
    } catch (error) {
      if (error instanceof HttpError) throw error;
      log.warn({ err: error, originalId: enquiry.originalId }, 'listing or agent look-up failed; accepting the enquiry unresolved');
      return undefined;
    }
  }

  /**
   * The open home a registration names, from the listing look-up: on the listing's list (not
   * cancelled) and not over. It must be known at acceptance (the lead names its date and time, and
   * a past or cancelled one takes no registration), so a look-up that cannot tell is a 503 the form
   * retries, not an acceptance resolved later.
   */
  async function openHomeOf(registration: ParsedOpenHomeRegistration): Promise<OpenHomeTimes> {
    let times: OpenHomeTimes | undefined;
    try {
      if (!service.targets.openHome) throw new Error('this relay has no open-home look-up');
      times = await service.targets.openHome(registration.listingId, registration.openHomeId);
    } catch (error) {
      log.warn({ err: error, originalId: registration.originalId }, 'open-home look-up failed; the registration is refused for now');
      throw new HttpError(
        503,
        'unavailable',
        'The open home could not be checked just now; the registration is kept in the form, please try again shortly.',
        undefined,
        {
          'Retry-After': '30',
        },
      );
    }
    if (!times) throw unknownTarget('openHomeId', 'This open home is not on the listing: it may have been cancelled or moved');
    if (Date.parse(times.end) <= now()) throw unknownTarget('openHomeId', 'This open home is over: it takes no more registrations');
    return times;
  }

  function unknownTarget(field: 'listingId' | 'agentId' | 'openHomeId', message: string): HttpError {
    return invalid('invalid_enquiry', { [field]: message });
  }

  return router;
}
