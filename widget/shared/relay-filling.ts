// The listing elements' side of the listing API's "still filling" answer (contract ListingsFilling).
// Apart from relay.ts so that the enquiry form does not download it.
import type { ListingsFilling } from '../../contract/relay-api.ts';
import { fetchJson, RelayError } from './relay.ts';

/**
 * fetchJson for the listing API, which answers 503 `{ state: "filling" }` with `Retry-After` while
 * a freshly started relay fills its cache: waits as told and asks again until there is an answer
 * (or `signal` aborts), calling `onFilling` while it waits so the element can say why.
 */
export async function fetchJsonOnceFilled<T>(
  url: string,
  { signal, onFilling }: { signal?: AbortSignal; onFilling?: (filling: boolean) => void } = {},
): Promise<T> {
  for (;;) {
    try {
      const body = await fetchJson<T>(url, { signal });
      onFilling?.(false);
      return body;
    } catch (error) {
      if (!isFilling(error)) {
        onFilling?.(false);
        throw error;
      }
      onFilling?.(true);
      await sleep(retryDelayMs(error), signal);
    }
  }
}

/** The relay's listing cache is still being filled for the first time (see ListingsFilling). */
export function isFilling(error: unknown): error is RelayError {
  return (
    error instanceof RelayError &&
    error.status === 503 &&
    typeof error.body === 'object' &&
    error.body !== null &&
    (error.body as Partial<ListingsFilling>).state === 'filling'
  );
}

/** Retry-After (seconds or an HTTP date), else the body's figure, kept within 1 s..60 s. */
export function retryDelayMs(error: RelayError, now = Date.now()): number {
  const header = error.retryAfter?.trim() ?? '';
  let seconds = /^\d+$/.test(header) ? Number(header) : header ? (Date.parse(header) - now) / 1000 : Number.NaN;
  if (!Number.isFinite(seconds)) seconds = Number((error.body as Partial<ListingsFilling> | undefined)?.retryAfterSeconds);
  if (!Number.isFinite(seconds)) seconds = 5;
  return Math.min(60, Math.max(1, seconds)) * 1000;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
