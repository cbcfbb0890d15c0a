// What the CRM's answer to a lead queue's write or look-up means, in the relay's terms: each sink (the
// enquiries' lead sink, the saved searches' alert sink) translates its errors into it.

/** What a failed delivery or look-up means, in the relay's terms (the sink translates its errors). */
export interface DeliveryFailure {
  /**
   * 'credentials': the operator must fix a setting (the lead waits for it); 'stopped': the relay is
   * stopping or the call was cancelled; 'unreadable_answer': the sink took the lead but its answer
   * could not be read; 'other': anything else (see `retryable`).
   */
  reason: 'credentials' | 'stopped' | 'unreadable_answer' | 'other';
  /** The same call may succeed later (rate limits, outages, timeouts). */
  retryable: boolean;
  /** The request may have reached the sink and been acted on: look the lead up before sending it again. */
  outcomeUnknown: boolean;
  /**
   * A request with an unknown outcome may still land later (a timeout, a cut connection, a
   * gateway's 502/504), so the look-up waits; false when the sink itself answered.
   */
  mayStillLand: boolean;
  /** When the sink said it takes requests again (ms). */
  retryAt?: number;
  /** The setting to fix, for a credentials failure. */
  setting?: string;
  /** For the outbox and the log: codes, statuses and the sink's message, never the lead's data. */
  description: string;
  /** The sink's own words for a definite refusal (dead-letters the lead), when it gave any. */
  refusal?: string;
}

/**
 * Thrown by a queue's beforeSend (CallOptions) when the row's claim lapsed and another relay holds
 * it now: the write must not leave from here (a second one could land at the CRM).
 */
export class ClaimLapsed extends Error {
  constructor() {
    super('claim lapsed');
    this.name = 'ClaimLapsed';
  }
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * A creating write only: run by the sink once the request may leave, just before it does (after
   * any wait for the CRM's rate limit). The queue marks the write here; a throw stops it unsent.
   */
  beforeSend?: () => Promise<void>;
}

/** Credentials problems are the operator's to fix; the lead waits for them rather than dying. */
export const CONFIG_RETRY_MS = 5 * 60_000;

/** An error for the queue's row and the log: the sink's description (codes, statuses, its message), never request data. */
export function describeFailure(error: unknown, failure: DeliveryFailure | undefined): string {
  if (failure) return failure.description;
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : 'unknown error';
}
