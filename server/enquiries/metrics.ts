import { labelled, Latencies, MetricsText } from '../lead-queue/metrics-text.ts';
import { formatValue } from '../runtime/prometheus.ts';
import type { EnquiryOutbox, OutboxStatus, SpamReason } from './outbox.ts';

/**
 * Enquiry metrics, in the Prometheus text a lead queue writes by hand (lead-queue/metrics-text.ts).
 *
 * Counters count events in this process (they restart at 0, as Prometheus expects); the outbox
 * gauges are read from SQLite at scrape time, so they are right after a restart and include what
 * an operator did with the CLI.
 */

/** Delivery latency buckets in seconds: from a healthy CRM (under a second) to a long outage. */
const LATENCY_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400];

export type AttemptResult = 'delivered' | 'reconciled' | 'retry' | 'dead' | 'unknown_outcome';

export interface MetricsSnapshot {
  accepted: number;
  duplicates: number;
  conflicts: number;
  rejected: number;
  rateLimited: number;
  spam: Record<SpamReason, number>;
  delivered: number;
  dead: number;
  attempts: Record<AttemptResult, number>;
  reconciliations: { found: number; notFound: number };
  erased: number;
  latency: { count: number; sumSeconds: number; p50Seconds: number | null; maxSeconds: number | null };
  outbox: Record<OutboxStatus | 'quarantined', number>;
  quarantineErased: number;
}

export class EnquiryMetrics {
  accepted = 0;
  duplicates = 0;
  conflicts = 0;
  rejected = 0;
  rateLimited = 0;
  readonly spam: Record<SpamReason, number> = { honeypot: 0, too_fast: 0, repeat_registration: 0 };
  delivered = 0;
  dead = 0;
  readonly attempts: Record<AttemptResult, number> = { delivered: 0, reconciled: 0, retry: 0, dead: 0, unknown_outcome: 0 };
  readonly reconciliations = { found: 0, notFound: 0 };
  erased = 0;
  /** Quarantined enquiries erased unreleased after LEAD_QUARANTINE_DAYS (counted in `erased` too). */
  quarantineErased = 0;
  /** The delivery circuit breaker: open (deliveries paused for a CRM outage) or not, and how often it opened. */
  circuitOpen = false;
  circuitOpenings = 0;
  private readonly latency = new Latencies(LATENCY_BUCKETS);

  constructor(private readonly outbox: EnquiryOutbox) {}

  observeDeliveryLatency(seconds: number): void {
    this.latency.observe(seconds);
  }

  async snapshot(): Promise<MetricsSnapshot> {
    const outbox = await this.outbox.counts();
    const median = this.latency.median();
    return {
      accepted: this.accepted,
      duplicates: this.duplicates,
      conflicts: this.conflicts,
      rejected: this.rejected,
      rateLimited: this.rateLimited,
      spam: { ...this.spam },
      delivered: this.delivered,
      dead: this.dead,
      attempts: { ...this.attempts },
      reconciliations: { ...this.reconciliations },
      erased: this.erased,
      quarantineErased: this.quarantineErased,
      latency: {
        count: this.latency.count,
        sumSeconds: round(this.latency.sum),
        p50Seconds: median === null ? null : round(median),
        maxSeconds: this.latency.max === null ? null : round(this.latency.max),
      },
      outbox,
    };
  }

  /** The Prometheus text exposition of these metrics. */
  async render(now = Date.now()): Promise<string> {
    const [counts, oldest] = await Promise.all([this.outbox.counts(), this.outbox.oldestQueuedAt()]);
    const latency = this.latency;
    return new MetricsText()
      .metric('estate_enquiries_accepted_total', 'counter', 'Enquiries accepted (202) and committed to the outbox, spam included.', [{ value: this.accepted }])
      .metric('estate_enquiries_duplicate_total', 'counter', 'Repeats of an already accepted originalId with the same body (answered, not stored again).', [
        { value: this.duplicates },
      ])
      .metric('estate_enquiries_conflict_total', 'counter', 'Repeats of an accepted originalId with a different body (409).', [{ value: this.conflicts }])
      .metric('estate_enquiries_rejected_total', 'counter', 'Enquiries refused with 400 (validation or unknown listing or agent).', [{ value: this.rejected }])
      .metric(
        'estate_enquiries_rate_limited_total',
        'counter',
        'Enquiry requests refused with 429 by the per-minute or daily limits (per client, or the daily budget).',
        [{ value: this.rateLimited }],
      )
      .metric(
        'estate_enquiries_spam_total',
        'counter',
        'Enquiries caught by a spam signal, all answered 202: too_fast (sent sooner than ENQUIRY_MIN_FILL_MS) delivered marked for the agent, honeypot (hidden field filled in) quarantined, repeat_registration (an open home this person registered for already) not sent again.',
        labelled('reason', this.spam),
      )
      .metric('estate_enquiries_delivered_total', 'counter', 'Enquiries the CRM holds (posted, or found by reconciliation).', [{ value: this.delivered }])
      .metric('estate_enquiries_dead_total', 'counter', 'Enquiries dead-lettered (CRM 400, unknown target, or retry window over).', [{ value: this.dead }])
      .metric('estate_enquiry_delivery_attempts_total', 'counter', 'Delivery attempts by result.', labelled('result', this.attempts))
      .metric('estate_enquiry_reconciliations_total', 'counter', 'Look-ups of an enquiry whose earlier POST had an unknown outcome.', [
        { labels: { found: 'true' }, value: this.reconciliations.found },
        { labels: { found: 'false' }, value: this.reconciliations.notFound },
      ])
      .metric('estate_enquiry_delivery_circuit_open', 'gauge', 'Deliveries paused by the circuit breaker for a CRM outage (1) or flowing (0).', [
        { value: this.circuitOpen ? 1 : 0 },
      ])
      .metric('estate_enquiry_delivery_circuit_opened_total', 'counter', 'Times the delivery circuit breaker opened.', [{ value: this.circuitOpenings }])
      .metric('estate_enquiries_erased_total', 'counter', 'Enquiries whose personal data was erased (delivered ones, and dead letters past their retention).', [
        { value: this.erased },
      ])
      .metric(
        'estate_enquiries_quarantine_erased_total',
        'counter',
        'Quarantined enquiries (honeypot) erased unreleased after LEAD_QUARANTINE_DAYS: they can no longer be released.',
        [{ value: this.quarantineErased }],
      )
      .metric(
        'estate_enquiry_outbox',
        'gauge',
        'Enquiries in the outbox by status (read from the store); quarantined: held whole for the operator (outbox quarantine), not counted under spam.',
        labelled('status', counts),
      )
      .metric('estate_enquiry_outbox_oldest_queued_seconds', 'gauge', 'Age of the oldest queued enquiry (0 when none).', [
        { value: oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000) },
      ])
      .raw(
        '# HELP estate_enquiry_delivery_latency_seconds Time from acceptance (202) to the CRM holding the enquiry.',
        '# TYPE estate_enquiry_delivery_latency_seconds histogram',
        ...LATENCY_BUCKETS.map((bound, index) => `estate_enquiry_delivery_latency_seconds_bucket{le="${bound}"} ${latency.bucketCounts[index]}`),
        `estate_enquiry_delivery_latency_seconds_bucket{le="+Inf"} ${latency.count}`,
        `estate_enquiry_delivery_latency_seconds_sum ${formatValue(latency.sum)}`,
        `estate_enquiry_delivery_latency_seconds_count ${latency.count}`,
      )
      .toString();
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
