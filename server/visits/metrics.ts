/** What became of the listing events beacons brought, since this process started (Prometheus counters). */
export class VisitMetrics {
  /** Held for the store. */
  counted = 0;
  /** Set aside: the buffer was full, or a flush could not write. */
  dropped = 0;
  /** About a listing the agency's cache does not know. */
  refused = 0;
  /** From a bot, a client without a user agent, or the relay's own probes. */
  ignored = 0;
  /** In a beacon refused because its client sent more than VISIT_BEACONS_PER_MINUTE. */
  limited = 0;
  flushes = 0;
  flushFailures = 0;

  render(): string {
    const outcomes = { counted: this.counted, dropped: this.dropped, refused: this.refused, ignored: this.ignored, limited: this.limited };
    return [
      '# HELP estate_visit_events_total Listing events (views, cards, photos, kept, calendar, shared) beacons brought, by what became of them.',
      '# TYPE estate_visit_events_total counter',
      ...Object.entries(outcomes).map(([outcome, value]) => `estate_visit_events_total{outcome="${outcome}"} ${value}`),
      '# HELP estate_visit_flushes_total Writes of the held listing events to the store, by result.',
      '# TYPE estate_visit_flushes_total counter',
      `estate_visit_flushes_total{result="ok"} ${this.flushes}`,
      `estate_visit_flushes_total{result="failed"} ${this.flushFailures}`,
      '',
    ].join('\n');
  }
}
