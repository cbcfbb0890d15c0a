/**
 * What went wrong talking to the CRM, in the terms a caller decides on:
 * - `retryable`: the same call may succeed later (429, 5xx, timeout, network, daily budget spent);
 * - `outcomeUnknown`: the request may have reached the CRM and been acted on (timeout or connection
 *   lost after sending, or a 5xx answer to a POST). A POST /enquiries with this flag must be
 *   reconciled (looked up by originalId) before it is sent again: the CRM does not deduplicate;
 * - `retryAt`: the earliest moment a retry makes sense, when known (Retry-After, 00:00 UTC);
 * - `setting`: the configuration variable to fix (401 → CRM_ACCESS_TOKEN, 403 → CRM_API_KEY).
 * Messages never contain the API key, the token or request bodies.
 */
export type CrmErrorCode =
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'bad_request' // 400
  | 'not_found' // 404
  | 'rate_limited' // 429 after the allowed retries, or while a long Retry-After (daily quota) runs
  | 'server_error' // 5xx
  | 'http_error' // any other non-2xx
  | 'timeout'
  | 'network'
  | 'aborted' // the caller's signal fired
  | 'invalid_response' // 2xx whose body does not match the schema
  | 'budget_exhausted' // our own daily budget: nothing was sent
  | 'closed'; // the client was closed

export interface CrmErrorInit {
  code: CrmErrorCode;
  status?: number;
  retryable?: boolean;
  outcomeUnknown?: boolean;
  setting?: string;
  crmMessage?: string;
  retryAt?: Date;
  method?: string;
  path?: string;
  cause?: unknown;
}

export class CrmError extends Error {
  readonly code: CrmErrorCode;
  readonly status?: number;
  readonly retryable: boolean;
  readonly outcomeUnknown: boolean;
  readonly setting?: string;
  readonly crmMessage?: string;
  readonly retryAt?: Date;
  readonly method?: string;
  /** The API path without its query string (the query may hold filters such as an email). */
  readonly path?: string;

  constructor(message: string, init: CrmErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'CrmError';
    this.code = init.code;
    this.status = init.status;
    this.retryable = init.retryable ?? false;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
    this.setting = init.setting;
    this.crmMessage = init.crmMessage;
    this.retryAt = init.retryAt;
    this.method = init.method;
    this.path = init.path;
  }
}

export function isCrmError(error: unknown): error is CrmError {
  return error instanceof CrmError;
}
