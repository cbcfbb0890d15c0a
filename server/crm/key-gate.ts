// The port through which the CRM's limits are shared by every relay on one API key: the limiter
// (limiter.ts) gates through it; cluster/shared-gate.ts implements it in PostgreSQL. It speaks of
// requests and slots, not of the CRM's paths or ids, so the cluster layer may import it.

/** Added to the one second a slot is held after its answer: covers clock granularity. */
export const DEFAULT_SAFETY_MARGIN_MS = 25;

/** A slot of the key's per second limit taken from the shared gate, or why none was. */
export type SharedTake = { kind: 'granted'; slot: number; take: number; used: number } | { kind: 'wait'; waitMs: number } | { kind: 'spent'; used: number };

/**
 * The key's limits held for every relay on it: the port the limiter gates through with
 * DATABASE_URL (cluster/shared-gate.ts holds them in PostgreSQL).
 */
export interface KeyGate {
  /** Takes a slot of the per second limit and counts the request in the day's `limit`. */
  take(day: string, limit: number): Promise<SharedTake>;
  /** Gives the slot back once the answer is in (`sent`: the request reached the CRM). */
  release(slot: number, take: number, sent: boolean): Promise<void>;
  /** Requests counted on `day` by every relay on the key. */
  used(day: string): Promise<number>;
  /** Adds `count` requests to `day` (and raises it to `atLeast`); answers the new total. */
  add(day: string, count: number, atLeast?: number): Promise<number>;
}
