import type { Agency } from './agency.ts';
import { ACCESS_STATES, accessStateOf, CAPABILITIES, type AccessState, type Capability } from '../crm/access.ts';
import { metricFamily, type Sample } from '../runtime/prometheus.ts';
import { WORK_CLASSES } from '../runtime/work-class.ts';

/**
 * The fleet view of a relay of many agencies: a series per agency on the relay's /metrics,
 * labelled `agency="<slug>"`, so one scrape feeds the dashboard and the alerting rules in deploy/
 * (docs/operating.md, "Watching a fleet"). The slug is the operator's own name for the agency:
 * never its token, its account id, its name or anything of its visitors. The key's CRM budget and
 * gate, shared by every agency, are series without the label.
 */

export interface FleetAgency {
  slug: string;
  agency: Agency;
  /** Serving, or removed and still delivering its queued enquiries and saved searches. */
  state: 'serving' | 'draining';
  /** The plan's promise for the agency (a change reaches its listing API within these); null while draining. */
  freshness: { withWebhooksSeconds: number; withoutWebhooksSeconds: number } | null;
}

export interface FleetPlan {
  perDay: number;
  allowed: number;
}

export async function renderFleetMetrics(agencies: readonly FleetAgency[], plan: FleetPlan | undefined, now = Date.now()): Promise<string> {
  const rows = await Promise.all(agencies.map(async (entry) => ({ ...entry, facts: await agencyFacts(entry.agency, now) })));
  const each = (value: (row: (typeof rows)[number]) => number | undefined, extra?: Record<string, string>): Sample[] =>
    rows.flatMap((row) => {
      const sample = value(row);
      return sample === undefined ? [] : [{ labels: { agency: row.slug, ...extra }, value: sample }];
    });
  const text = [
    metricFamily(
      'estate_agency_serving',
      'gauge',
      'Agencies of AGENCIES_FILE: 1 served, 0 removed and still delivering its queued enquiries and saved searches (draining).',
      each((row) => (row.state === 'serving' ? 1 : 0)),
    ),
    metricFamily(
      'estate_agency_cache_filled',
      'gauge',
      "Whether the agency's listing cache was ever filled from the CRM (0: its listing API answers 'filling').",
      each((row) => (row.facts.syncedAt === null ? 0 : 1)),
    ),
    metricFamily(
      'estate_agency_listings',
      'gauge',
      "Listings in the agency's cache (what its listing API serves, every status).",
      each((row) => row.facts.listings),
    ),
    metricFamily(
      'estate_agency_synced_timestamp_seconds',
      'gauge',
      "When the agency's cache was last known in step with the CRM (Unix seconds): its last successful sync or event-stream read. Absent before the first fill.",
      each((row) => (row.facts.syncedAt === null ? undefined : row.facts.syncedAt / 1000)),
    ),
    metricFamily(
      'estate_agency_freshness_promise_seconds',
      'gauge',
      "The relay's freshness promise for the agency (its plan): a CRM change reaches the listing API within this, with webhooks delivered or lost (then the event stream is the net).",
      [
        ...each((row) => row.freshness?.withWebhooksSeconds, { webhooks: 'delivered' }),
        ...each((row) => row.freshness?.withoutWebhooksSeconds, { webhooks: 'lost' }),
      ],
    ),
    metricFamily(
      'estate_agency_sync_failing',
      'gauge',
      "1 when the agency's last listing sync failed (the cache is served as it was; the error is in `npm run relay -- agencies`).",
      each((row) => (row.facts.syncFailing ? 1 : 0)),
    ),
    metricFamily(
      'estate_agency_enquiry_outbox',
      'gauge',
      "Enquiries in the agency's outbox by status (queued: accepted, not yet in the CRM; quarantined: honeypot filled in, held whole for the operator to release).",
      ['queued', 'delivered', 'dead', 'spam', 'quarantined'].flatMap((status) =>
        each((row) => row.facts.outbox?.[status as keyof NonNullable<typeof row.facts.outbox>], { status }),
      ),
    ),
    metricFamily(
      'estate_agency_enquiry_outbox_oldest_queued_seconds',
      'gauge',
      "Age of the oldest enquiry queued in the agency's outbox (0 when none).",
      each((row) => row.facts.oldestQueuedSeconds),
    ),
    metricFamily(
      'estate_agency_saved_searches',
      'gauge',
      "Saved searches in the agency's queue by status (queued: accepted, not yet in the CRM; dead: refused, or past the retry window; quarantined: honeypot filled in, held whole for the operator to release).",
      ['queued', 'saved', 'dead', 'spam', 'quarantined'].flatMap((status) =>
        each((row) => row.facts.savedSearches?.[status as keyof NonNullable<typeof row.facts.savedSearches>], { status }),
      ),
    ),
    metricFamily(
      'estate_agency_saved_searches_oldest_queued_seconds',
      'gauge',
      "Age of the oldest saved search queued for the agency's CRM (0 when none).",
      each((row) => row.facts.oldestSavedSearchSeconds),
    ),
    metricFamily(
      'estate_agency_enquiry_delivery_circuit_open',
      'gauge',
      "The agency's enquiry delivery paused by its circuit breaker for a CRM outage (1) or flowing (0).",
      each((row) => (row.agency.enquiries.metrics.circuitOpen ? 1 : 0)),
    ),
    metricFamily(
      'estate_agency_changes_queued',
      'gauge',
      'CRM change notices (webhooks, event stream) stored for the agency and not yet applied to its cache.',
      each((row) => row.facts.changesQueued),
    ),
    metricFamily(
      'estate_agency_changes_oldest_queued_seconds',
      'gauge',
      'How long the oldest change notice still waiting has waited (0 when none): how far the push lags.',
      each((row) => row.facts.oldestChangeSeconds),
    ),
    metricFamily(
      'estate_agency_crm_requests_today',
      'gauge',
      "CRM requests the agency's client sent this UTC day (counted in its store).",
      each((row) => row.agency.crm.requestsToday().requests),
    ),
    metricFamily(
      'estate_agency_crm_rate_limited_total',
      'counter',
      "Answers 429 (rate limited) the CRM gave the agency's requests, retries included.",
      each((row) => row.agency.crm.rateLimitedAnswers),
    ),
    metricFamily(
      'estate_agency_crm_access',
      'gauge',
      'What the last access check found for each capability the relay needs: 1 on its state (allowed; refused_key: the integrator’s API key refused; refused_token: the agency’s access token refused; refused_grant: a grant the agency has not given; unknown: not told yet).',
      rows.flatMap((row) =>
        (Object.keys(CAPABILITIES) as Capability[]).flatMap((capability) =>
          ACCESS_STATES.map((state) => ({ labels: { agency: row.slug, capability, state }, value: row.facts.access[capability] === state ? 1 : 0 })),
        ),
      ),
    ),
    ...keyFamilies(agencies[0]?.agency, plan),
  ];
  return text.join('');
}

/** The key's budget and gate, as every agency's client sees the same ones. */
function keyFamilies(agency: Agency | undefined, plan: FleetPlan | undefined): string[] {
  if (!agency) return [];
  const budget = agency.crm.budget();
  const queued = agency.crm.queuedByClass();
  const granted = agency.crm.requestsByClass();
  return [
    metricFamily(
      'estate_crm_budget_used_requests',
      'gauge',
      "CRM requests counted against the API key's daily limit this UTC day (every tool on the key, as last heard).",
      [{ value: budget.used }],
    ),
    metricFamily('estate_crm_budget_limit_requests', 'gauge', "The API key's daily limit (CRM_DAILY_LIMIT); the day resets at 00:00 UTC.", [
      { value: budget.limit },
    ]),
    metricFamily(
      'estate_crm_budget_remaining_requests',
      'gauge',
      "Requests left of the key's daily limit this UTC day (the last share is kept for enquiries).",
      [{ value: budget.remaining }],
    ),
    metricFamily('estate_crm_budget_resets_timestamp_seconds', 'gauge', "When the key's daily count starts again (Unix seconds: the next 00:00 UTC).", [
      { value: budget.resetsAt.getTime() / 1000 },
    ]),
    ...(plan
      ? [
          metricFamily('estate_crm_budget_planned_requests_per_day', 'gauge', "Requests a day the relay's plan of every agency spends.", [
            { value: plan.perDay },
          ]),
          metricFamily(
            'estate_crm_budget_allowed_requests_per_day',
            'gauge',
            'Requests a day the plan may spend (CRM_BUDGET_SHARE of the daily limit, less what other tools spend).',
            [{ value: plan.allowed }],
          ),
        ]
      : []),
    metricFamily(
      'estate_crm_gate_waiting',
      'gauge',
      "Requests waiting at the key's gate (10 a second) by work class: enquiries go first, then webhook refreshes, catch-up, first fills, sweeps.",
      WORK_CLASSES.map((workClass) => ({ labels: { class: workClass }, value: queued[workClass] })),
    ),
    metricFamily(
      'estate_crm_gate_requests_total',
      'counter',
      "Requests the key's gate let through since the relay started, by work class.",
      WORK_CLASSES.map((workClass) => ({ labels: { class: workClass }, value: granted[workClass] })),
    ),
  ];
}

interface AgencyFacts {
  listings: number;
  syncedAt: number | null;
  syncFailing: boolean;
  outbox: { queued: number; delivered: number; dead: number; spam: number; quarantined: number } | undefined;
  oldestQueuedSeconds: number | undefined;
  savedSearches: { queued: number; saved: number; dead: number; spam: number; quarantined: number } | undefined;
  oldestSavedSearchSeconds: number | undefined;
  changesQueued: number;
  oldestChangeSeconds: number;
  access: Record<Capability, AccessState>;
}

/** One agency's figures, read at scrape time from its store (a store that cannot be read leaves its outbox series out). */
async function agencyFacts(agency: Agency, now: number): Promise<AgencyFacts> {
  const { listings } = agency;
  const state = listings.cache.readState();
  let outbox: AgencyFacts['outbox'];
  let oldestQueuedSeconds: number | undefined;
  let savedSearches: AgencyFacts['savedSearches'];
  let oldestSavedSearchSeconds: number | undefined;
  try {
    outbox = await agency.enquiries.outbox.counts();
    const oldest = await agency.enquiries.outbox.oldestQueuedAt();
    oldestQueuedSeconds = oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000);
    savedSearches = await agency.savedSearches.store.counts();
    const oldestSearch = await agency.savedSearches.store.oldestQueuedAt();
    oldestSavedSearchSeconds = oldestSearch === undefined ? 0 : Math.max(0, (now - oldestSearch) / 1000);
  } catch {
    // PostgreSQL out of reach (DATABASE_URL): no figure rather than a wrong one; the relay's other series still answer.
  }
  const oldestChange = listings.oldestPendingChangeAt();
  const checked = agency.access.current().capabilities;
  // Whose fault a refusal is, as the check recorded it (the same cause the log, /readyz and `status` name).
  const access = Object.fromEntries(
    (Object.keys(CAPABILITIES) as Capability[]).map((capability) => [capability, accessStateOf(checked[capability])]),
  ) as AgencyFacts['access'];
  return {
    listings: [...listings.cache.countsBySource().values()].reduce((sum, count) => sum + count, 0),
    syncedAt: listings.syncedAt(),
    // A successful run clears the last error: one recorded is the last run's.
    syncFailing: state.lastErrorAt !== null,
    outbox,
    oldestQueuedSeconds,
    savedSearches,
    oldestSavedSearchSeconds,
    changesQueued: listings.pendingChanges(),
    oldestChangeSeconds: oldestChange === undefined ? 0 : Math.max(0, (now - oldestChange) / 1000),
    access,
  };
}
