/**
 * What went wrong talking to the CRM, in the terms a caller decides on:
 * - `retryable`: the same call may succeed later (429, 5xx, timeout, network, daily budget spent);
 * - `outcomeUnknown`: the request may have reached the CRM and been acted on (timeout or connection
 *   lost after sending, or a 5xx answer to a POST). A POST /enquiries with this flag must be
 *   reconciled (looked up by originalId) before it is sent again: the CRM does not deduplicate;
 * - `retryAt`: the earliest moment a retry makes sense, when known (Retry-After, 00:00 UTC);
 * - `setting`: the configuration variable to fix (401 → CRM_ACCESS_TOKEN, 403 → CRM_API_KEY).
 * Messages never contain the API key, the token or request bodies, nor the CRM's own words: a CRM
 * refusal (a 400's `msg`) may echo what a visitor typed (a suburb, a name), and an error is logged
 * and its message stored with a dead lead. The CRM's answer is kept only by its `code` and the
 * `field` it names (`crmCode`, `crmField`, both checked to be identifiers, see client.ts).
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
  crmCode?: string;
  crmField?: string;
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
  /** The CRM's error code ("INVALID_DATA"), when it gave one that is an identifier. */
  readonly crmCode?: string;
  /** The field of our request the CRM's refusal names ("suburbs"), when it named one. */
  readonly crmField?: string;
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
    this.crmCode = init.crmCode;
    this.crmField = init.crmField;
    this.retryAt = init.retryAt;
    this.method = init.method;
    this.path = init.path;
  }
}

export function isCrmError(error: unknown): error is CrmError {
  return error instanceof CrmError;
}
