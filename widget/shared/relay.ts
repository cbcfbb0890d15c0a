import type { ListingsFilling } from '../../contract/relay-api.ts';

/**
 * Where the elements find their relay: the `relay` attribute when given, else the origin and path
 * the widget script itself was loaded from (the relay serves /widget.js), so pasting one script
 * tag is enough.
 */
const scriptBase = new URL(/* @vite-ignore */ '.', import.meta.url).href;

export function relayBase(relayAttribute: string | null | undefined): string {
  const base = relayAttribute && relayAttribute.trim() ? relayAttribute.trim() : scriptBase;
  return base.endsWith('/') ? base : `${base}/`;
}

/** Absolute URL of a relay path such as `api/v1/listings`. */
export function relayUrl(relayAttribute: string | null | undefined, path: string): string {
  return new URL(path.replace(/^\//, ''), relayBase(relayAttribute)).href;
}

/** Fetches JSON from the relay; throws RelayError with the relay's message on a non-2xx answer. */
export async function fetchJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, { ...init, headers: { Accept: 'application/json', ...init.headers } });
  const text = await response.text();
  const body = text ? safeParse(text) : undefined;
  if (!response.ok) throw new RelayError(response.status, body, response.headers.get('Retry-After'));
  return body as T;
}

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

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class RelayError extends Error {
  readonly fields: Record<string, string>;
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly retryAfter: string | null,
  ) {
    const message =
      typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
        ? (body as { message: string }).message
        : `The relay answered ${status}.`;
    super(message);
    this.name = 'RelayError';
    const fields = typeof body === 'object' && body !== null ? (body as { fields?: unknown }).fields : undefined;
    this.fields = typeof fields === 'object' && fields !== null ? (fields as Record<string, string>) : {};
  }
}
