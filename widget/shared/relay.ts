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
  const base = relayBase(relayAttribute);
  // relay="/" (a page the relay serves itself, rendered on the server where there is no page URL
  // to resolve against): root-relative URLs, the same on the server and in the browser.
  if (base.startsWith('/') && !base.startsWith('//')) return `${base}${path.replace(/^\//, '')}`;
  return new URL(path.replace(/^\//, ''), base).href;
}

/** Fetches JSON from the relay; throws RelayError with the relay's message on a non-2xx answer. */
export async function fetchJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, { ...init, headers: { Accept: 'application/json', ...init.headers } });
  const text = await response.text();
  const body = text ? safeParse(text) : undefined;
  if (!response.ok) throw new RelayError(response.status, body, response.headers.get('Retry-After'));
  return body as T;
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
