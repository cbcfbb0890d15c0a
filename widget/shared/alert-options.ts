/**
 * Whether a relay offers "Get alerts" (`GET /api/v1/saved-searches/options`, contract
 * SavedSearchOptions), asked once per relay per page: the filter bar of `<estate-listings>` and
 * `<estate-saved-search>` share the answer. Its own small module, so the filter bar can ask
 * without fetching the form's code.
 */
import type { SavedSearchOptions } from '../../contract/saved-search.ts';
import { fetchJson, relayBase, relayUrl } from './relay.ts';

const asked = new Map<string, Promise<SavedSearchOptions | undefined>>();

/**
 * The relay's answer, or undefined when it could not be had (offline, an older relay without the
 * route, an unreadable answer): then alerts are treated as offered, and a POST tells for certain
 * (403 `alerts_not_offered`).
 */
export function alertOptions(relay: string | null | undefined): Promise<SavedSearchOptions | undefined> {
  const key = relayBase(relay);
  let answer = asked.get(key);
  if (!answer) {
    answer = fetchJson<SavedSearchOptions>(relayUrl(relay, 'api/v1/saved-searches/options'), { credentials: 'omit' }).then(
      (options) => (typeof options?.offered === 'boolean' ? options : undefined),
      () => undefined,
    );
    asked.set(key, answer);
  }
  return answer;
}

/** A POST answered 403 `alerts_not_offered`: the relay's settings changed since it was asked; later askers on this page hear so. */
export function alertsNoLongerOffered(relay: string | null | undefined, setup: string | undefined): void {
  asked.set(relayBase(relay), Promise.resolve({ offered: false, ...(setup ? { setup } : {}) }));
}
