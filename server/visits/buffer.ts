import type { VisitKind } from './beacon.ts';
import type { VisitSource } from './counts.ts';

/** One count to add: events of one kind for one listing on one day, from one source (detail views only; else ''). */
export interface CountRow {
  day: string;
  listingId: number;
  kind: VisitKind;
  source: VisitSource | '';
  count: number;
}

/** One visitor hash seen viewing a listing's detail on a day. */
export interface VisitorRow {
  day: string;
  listingId: number;
  hash: string;
}

/** What one flush writes. */
export interface BufferedVisits {
  counts: CountRow[];
  visitors: VisitorRow[];
  /** Events set aside unwritten, per day. */
  dropped: Map<string, number>;
}

/**
 * The events taken since the last flush, summed per listing, day, kind and source, in memory. It
 * holds at most `capacity` events: past that an event is dropped (counted as dropped, per day),
 * so a burst costs a bounded amount of memory and never a slower answer.
 */
export class VisitBuffer {
  private counts = new Map<string, CountRow>();
  private visitors = new Map<string, VisitorRow>();
  private dropped = new Map<string, number>();
  private held = 0;

  constructor(private readonly capacity: number) {}

  /** Events held now. */
  get size(): number {
    return this.held;
  }

  /** Adds one event; false when the buffer is full and it was dropped. */
  add(row: Omit<CountRow, 'count'>, visitor?: string): boolean {
    if (this.held >= this.capacity) {
      this.dropped.set(row.day, (this.dropped.get(row.day) ?? 0) + 1);
      return false;
    }
    this.held += 1;
    const key = `${row.day}|${row.listingId}|${row.kind}|${row.source}`;
    const kept = this.counts.get(key);
    if (kept) kept.count += 1;
    else this.counts.set(key, { ...row, count: 1 });
    if (visitor !== undefined) {
      const visitorKey = `${row.day}|${row.listingId}|${visitor}`;
      if (!this.visitors.has(visitorKey)) this.visitors.set(visitorKey, { day: row.day, listingId: row.listingId, hash: visitor });
    }
    return true;
  }

  /** Counts `n` events dropped on `day` elsewhere (a flush that could not write). */
  addDropped(day: string, n: number): void {
    if (n > 0) this.dropped.set(day, (this.dropped.get(day) ?? 0) + n);
  }

  /** Everything held, and an empty buffer in its place. */
  take(): BufferedVisits {
    const taken = { counts: [...this.counts.values()], visitors: [...this.visitors.values()], dropped: this.dropped };
    this.counts = new Map();
    this.visitors = new Map();
    this.dropped = new Map();
    this.held = 0;
    return taken;
  }
}
