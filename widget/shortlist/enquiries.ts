import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { EnquiryBatchAnswer, EnquiryBatchRequest, QuestionRequest } from '../../contract/relay-api.ts';
import { ENQUIRY_BATCH_MAX_HOMES } from '../../contract/enquiry-batch.ts';
import { fetchJson, relayUrl, RelayError } from '../shared/relay.ts';
import { clearPending, loadPending, newOriginalId, pendingKey, savePending, type PendingEnquiry } from '../enquiry/pending-store.ts';

/** The key `<estate-enquiry>` keeps a listing's unsent question under: a reload of either picks it up. */
const listingKey = (id: number): string => pendingKey(`listing:${id}`)!;

/** Where one home's enquiry stands. */
export type HomeOutcome =
  | { kind: 'sending' }
  | { kind: 'sent'; originalId: string }
  /** Kept on this device and sent again by itself; `seconds` when the relay said how long to wait. */
  | { kind: 'waiting'; seconds?: number }
  | { kind: 'refused'; reason: string };

/** The form's fields, the same for every home's enquiry. */
export type SharedFields = Omit<QuestionRequest, 'kind' | 'originalId' | 'listingId' | 'agentId' | 'subject'>;

export interface ShortlistEnquiriesOptions {
  relay(): string | null;
  /** The relay refused the fields themselves (a 400 naming them): nothing more is sent until the visitor sends again. */
  fieldsRefused(fields: Record<string, string>): void;
  /** One home's enquiry was accepted, or one try failed (`pending`: it is kept and tried again). */
  sent(listingId: number, originalId: string): void;
  failed(listingId: number, status: number, message: string, pending: boolean): void;
  /** A round of sending ended. */
  settled(): void;
}

/** The fields a visitor fills in: a 400 naming one of these is theirs to correct. */
const VISIBLE_FIELDS = ['fullName', 'email', 'mobile', 'message', 'consent'];
const SEND_TIMEOUT_MS = 30_000;
const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 5 * 60_000;
const LONGEST_RETRY_AFTER_MS = 10 * 60_000;

/**
 * "Enquire about these": one enquiry per kept home (its own originalId, to its own listing and so
 * its own agent), all sent in one `POST /api/v1/enquiries/batch`, which the relay counts once
 * against a client's limits and answers home by home. Each is kept in localStorage under the key
 * `<estate-enquiry>` uses for that listing until the relay has accepted or refused it for good, so
 * a reload resumes it (and a listing's own form would too, with the same originalId: the relay
 * takes it once), and a batch whose answer was lost is sent again whole (the relay answers the
 * homes it has as retries, free of the limits). A 429 or 503 holds the homes it names until its
 * Retry-After; a network failure or a 5xx is tried again with backoff, and at once when the
 * browser is back online.
 */
export class ShortlistEnquiriesController implements ReactiveController {
  readonly outcomes = new Map<number, HomeOutcome>();
  readonly #pending = new Map<number, PendingEnquiry>();
  readonly #options: ShortlistEnquiriesOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  #running = false;

  constructor(
    private readonly host: ReactiveControllerHost,
    options: ShortlistEnquiriesOptions,
  ) {
    this.#options = options;
    host.addController(this);
  }

  /** True while enquiries are being sent. */
  get sending(): boolean {
    return this.#running;
  }

  /** Listings with an enquiry not yet answered for good. */
  get pendingIds(): number[] {
    return [...this.#pending.keys()];
  }

  /**
   * Takes up the enquiries an earlier page left unsent for these listings and sends them; returns
   * the first one's request, so the form can show what is being sent.
   */
  resume(listingIds: readonly number[]): QuestionRequest | undefined {
    let first: QuestionRequest | undefined;
    for (const id of listingIds) {
      if (this.#pending.has(id) || this.outcomes.get(id)?.kind === 'sent') continue;
      const stored = loadPending(listingKey(id));
      // The listing's own enquiry form keeps its question under the same key: only a question is taken up.
      const request = stored?.request;
      if (!stored || !request || (request.kind ?? 'enquiry') !== 'enquiry' || !('listingId' in request) || request.listingId !== id) continue;
      this.#pending.set(id, stored);
      this.outcomes.set(id, { kind: 'waiting' });
      first ??= request as QuestionRequest;
    }
    if (first) this.#schedule(0);
    return first;
  }

  /** Sends `fields` about each home, each with its address as the subject. */
  send(homes: ReadonlyArray<{ id: number; subject: string }>, fields: SharedFields): void {
    const savedAt = Date.now();
    for (const { id, subject } of homes) {
      if (this.#pending.has(id)) continue;
      const request: QuestionRequest = { originalId: newOriginalId(), listingId: id, ...fields, ...(subject ? { subject: subject.slice(0, 200) } : {}) };
      const pending = { request, savedAt };
      savePending(listingKey(id), pending);
      this.#pending.set(id, pending);
      this.outcomes.set(id, { kind: 'waiting' });
    }
    this.#failures = 0;
    void this.#run();
  }

  hostConnected(): void {
    addEventListener('online', this.#online);
    if (this.#pending.size) this.#schedule(0);
  }

  hostDisconnected(): void {
    removeEventListener('online', this.#online);
    clearTimeout(this.#timer);
  }

  readonly #online = (): void => this.#schedule(0);

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#run(), ms);
  }

  async #run(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    clearTimeout(this.#timer);
    let retryAfterMs: number | undefined;
    let failed = false;
    batches: for (const batch of this.#batches()) {
      for (const [id] of batch) this.outcomes.set(id, { kind: 'sending' });
      this.host.requestUpdate();
      const refusals = await this.#postBatch(batch);
      for (const [id, pending] of batch) {
        const error = refusals.get(id);
        if (error === undefined) {
          this.#settle(id, { kind: 'sent', originalId: pending.request.originalId });
          this.#options.sent(id, pending.request.originalId);
          continue;
        }
        const status = error instanceof RelayError ? error.status : 0;
        const message = error instanceof Error ? error.message : String(error);
        if (status === 409) {
          // This originalId was accepted before with other details (an edited retry of a send
          // whose answer was lost): the first one stands, as in <estate-enquiry>.
          this.#settle(id, { kind: 'sent', originalId: pending.request.originalId });
          this.#options.sent(id, pending.request.originalId);
          continue;
        }
        const fields = error instanceof RelayError ? error.fields : {};
        if (status === 400 && Object.keys(fields).some((field) => VISIBLE_FIELDS.includes(field))) {
          // The same fields go to every home: none is sent until the visitor has corrected them.
          for (const unsent of this.#pending.keys()) {
            clearPending(listingKey(unsent));
            this.outcomes.delete(unsent);
          }
          this.#pending.clear();
          this.#options.failed(id, status, message, false);
          this.#options.fieldsRefused(fields);
          break batches;
        }
        const definitive = status >= 400 && status < 500 && status !== 408 && status !== 429;
        this.#options.failed(id, status, message, !definitive);
        if (definitive) {
          this.#settle(id, { kind: 'refused', reason: message });
          continue;
        }
        failed = true;
        if (status === 429) {
          const wait = Math.min(LONGEST_RETRY_AFTER_MS, retryAfter(error as RelayError) ?? 60_000);
          retryAfterMs = Math.max(retryAfterMs ?? 0, wait);
          this.outcomes.set(id, { kind: 'waiting', seconds: Math.ceil(wait / 1000) });
          continue;
        }
        this.outcomes.set(id, { kind: 'waiting' });
      }
    }
    this.#running = false;
    if (failed) {
      this.#failures += 1;
      const backoff = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 3 ** (this.#failures - 1)) * (0.8 + Math.random() * 0.4);
      this.#schedule(retryAfterMs ?? backoff);
    } else {
      this.#failures = 0;
    }
    this.host.requestUpdate();
    this.#options.settled();
  }

  /**
   * The pending homes in batches: those whose question is the same (the form's fields; a home left
   * unsent by an earlier page may carry other ones), at most ENQUIRY_BATCH_MAX_HOMES a batch.
   */
  #batches(): Array<Array<[number, PendingEnquiry]>> {
    const byQuestion = new Map<string, Array<[number, PendingEnquiry]>>();
    for (const [id, pending] of this.#pending) {
      const key = JSON.stringify(questionOf(pending.request as QuestionRequest));
      const batches = byQuestion.get(key);
      if (batches) batches.push([id, pending]);
      else byQuestion.set(key, [[id, pending]]);
    }
    const batches: Array<Array<[number, PendingEnquiry]>> = [];
    for (const homes of byQuestion.values()) {
      for (let at = 0; at < homes.length; at += ENQUIRY_BATCH_MAX_HOMES) batches.push(homes.slice(at, at + ENQUIRY_BATCH_MAX_HOMES));
    }
    return batches;
  }

  /**
   * Sends one batch; resolves with each home that was not accepted and why (a RelayError with that
   * home's status, or the request's own failure for every home). A home the answer does not
   * mention is tried again, as after a lost answer.
   */
  async #postBatch(batch: Array<[number, PendingEnquiry]>): Promise<Map<number, unknown>> {
    const refusals = new Map<number, unknown>();
    const body: EnquiryBatchRequest = {
      ...questionOf(batch[0]![1].request as QuestionRequest),
      homes: batch.map(([id, pending]) => {
        const request = pending.request as QuestionRequest;
        return { originalId: request.originalId, listingId: id, ...(request.subject ? { subject: request.subject } : {}) };
      }),
    };
    try {
      const answer = await fetchJson<EnquiryBatchAnswer>(relayUrl(this.#options.relay(), 'api/v1/enquiries/batch'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        credentials: 'omit',
      });
      const results = new Map((answer?.results ?? []).map((result) => [result.originalId, result]));
      for (const [id, { request }] of batch) {
        const result = results.get(request.originalId);
        if (result?.httpStatus === 202) continue;
        const seconds = result && 'retryAfterSeconds' in result ? result.retryAfterSeconds : undefined;
        refusals.set(id, new RelayError(result?.httpStatus ?? 0, result, seconds === undefined ? null : String(seconds)));
      }
    } catch (error) {
      for (const [id] of batch) refusals.set(id, error);
    }
    return refusals;
  }

  #settle(id: number, outcome: HomeOutcome): void {
    clearPending(listingKey(id));
    this.#pending.delete(id);
    this.outcomes.set(id, outcome);
  }
}

/** A home's question without what is its own (its originalId, listing and subject): what a batch sends once. */
function questionOf(request: QuestionRequest): Omit<QuestionRequest, 'originalId' | 'listingId' | 'agentId' | 'subject'> {
  const { originalId: _originalId, listingId: _listingId, agentId: _agentId, subject: _subject, ...question } = request;
  return question;
}

/** Milliseconds from a Retry-After header (seconds or an HTTP date), or undefined. */
function retryAfter(error: RelayError): number | undefined {
  const header = error.retryAfter;
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
