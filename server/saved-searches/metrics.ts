import { labelled, Latencies, MetricsText } from '../lead-queue/metrics-text.ts';
import type { SpamReason } from '../lead-queue/table.ts';
import type { SavedSearchStore } from './store.ts';

/**
 * Saved-search metrics (Prometheus text, by hand as the enquiries' are): counters of this process,
 * gauges read from the store at scrape time.
 */
export class SavedSearchMetrics {
  accepted = 0;
  duplicates = 0;
  conflicts = 0;
  rejected = 0;
  rateLimited = 0;
  // A saved search is never a repeat registration: the spam checks it shares with enquiries.
  readonly spam: Record<Exclude<SpamReason, 'repeat_registration'>, number> = { honeypot: 0, too_fast: 0 };
  saved = 0;
  dead = 0;
  erased = 0;
  /** Quarantined saved searches erased unreleased after LEAD_QUARANTINE_DAYS (counted in `erased` too). */
  quarantineErased = 0;
  /** Double opt-in: confirmation e-mails by outcome (sent; failed, to be tried again; refused for good), and what became of the searches. */
  readonly confirmationMail = { sent: 0, failed: 0, refused: 0 };
  confirmed = 0;
  expired = 0;
  /** Confirmed, but the contact had unsubscribed from e-mail: nothing written, never re-subscribed. */
  unsubscribed = 0;
  /** Looks before a second write: what they found. */
  readonly lookups = { found: 0, notFound: 0 };
  /** CRM calls made per step (every attempt): the cost of a saved search. */
  readonly calls: Record<'findPerson' | 'addPerson' | 'findSearches' | 'addSearch' | 'lists' | 'consent' | 'findConsent' | 'note' | 'findNote', number> = {
    findPerson: 0,
    addPerson: 0,
    findSearches: 0,
    addSearch: 0,
    lists: 0,
    consent: 0,
    findConsent: 0,
    note: 0,
    findNote: 0,
  };
  private readonly latency = new Latencies();

  constructor(private readonly store: SavedSearchStore) {}

  /** Time from the 202 (or, confirmed by e-mail, from the confirmation) to the search (requirement) held by the CRM. */
  observeLatency(seconds: number): void {
    this.latency.observe(seconds);
  }

  async render(): Promise<string> {
    const counts = await this.store.counts();
    return new MetricsText()
      .metric('estate_saved_searches_accepted_total', 'counter', 'Saved searches accepted (202) and committed, spam included.', [{ value: this.accepted }])
      .metric('estate_saved_searches_duplicate_total', 'counter', 'Repeats of an accepted originalId with the same body.', [{ value: this.duplicates }])
      .metric('estate_saved_searches_conflict_total', 'counter', 'Repeats of an accepted originalId with a different body (409).', [{ value: this.conflicts }])
      .metric('estate_saved_searches_rejected_total', 'counter', 'Saved searches refused with 400.', [{ value: this.rejected }])
      .metric('estate_saved_searches_rate_limited_total', 'counter', 'Saved-search requests refused with 429 (per client, or the daily budget).', [
        { value: this.rateLimited },
      ])
      .metric(
        'estate_saved_searches_spam_total',
        'counter',
        'Saved searches caught by a spam signal, all answered 202: too_fast (sent sooner than ENQUIRY_MIN_FILL_MS) saved with a note marking it for the agent, honeypot (hidden field filled in) quarantined.',
        labelled('reason', this.spam),
      )
      .metric('estate_saved_searches_saved_total', 'counter', 'Saved searches the CRM holds (person, requirement, lists and note done).', [
        { value: this.saved },
      ])
      .metric('estate_saved_searches_dead_total', 'counter', 'Saved searches dead-lettered (CRM refusal or retry window over).', [{ value: this.dead }])
      .metric('estate_saved_searches_erased_total', 'counter', 'Saved searches whose personal data was erased.', [{ value: this.erased }])
      .metric(
        'estate_saved_search_confirmation_mail_total',
        'counter',
        'Confirmation e-mails (double opt-in) by outcome: sent (the SMTP server took it), failed (to be tried again), refused (for good: the search waits until its link expires).',
        labelled('outcome', this.confirmationMail),
      )
      .metric('estate_saved_searches_confirmed_total', 'counter', "Saved searches whose address's owner followed the e-mailed link.", [
        { value: this.confirmed },
      ])
      .metric('estate_saved_searches_expired_total', 'counter', 'Unconfirmed saved searches erased when their link expired (SAVED_SEARCH_CONFIRM_DAYS).', [
        { value: this.expired },
      ])
      .metric(
        'estate_saved_searches_unsubscribed_total',
        'counter',
        'Saved searches not written because the CRM contact had unsubscribed from e-mail (the relay never re-subscribes anyone).',
        [{ value: this.unsubscribed }],
      )
      .metric('estate_saved_search_lookups_total', 'counter', 'Looks in the CRM before writing again after an unknown outcome.', [
        { labels: { found: 'true' }, value: this.lookups.found },
        { labels: { found: 'false' }, value: this.lookups.notFound },
      ])
      .metric('estate_saved_search_crm_calls_total', 'counter', 'CRM calls made for saved searches, by step.', labelled('call', this.calls))
      .metric(
        'estate_saved_searches_quarantine_erased_total',
        'counter',
        'Quarantined saved searches (honeypot) erased unreleased after LEAD_QUARANTINE_DAYS: they can no longer be released.',
        [{ value: this.quarantineErased }],
      )
      .metric(
        'estate_saved_searches',
        'gauge',
        'Saved searches by status (read from the store); quarantined: held whole for the operator (saved-searches quarantine), not counted under spam.',
        labelled('status', counts),
      )
      .raw(
        '# HELP estate_saved_search_latency_seconds Time from acceptance (202), or from confirmation for one confirmed by e-mail, to the requirement held by the CRM.',
        '# TYPE estate_saved_search_latency_seconds summary',
        `estate_saved_search_latency_seconds_sum ${this.latency.sum.toFixed(3)}`,
        `estate_saved_search_latency_seconds_count ${this.latency.count}`,
      )
      .toString();
  }
}
