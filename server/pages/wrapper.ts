import { readFile } from 'node:fs/promises';
import type { Logger } from '../runtime/log.ts';
import { BodyTooLargeError, readCappedBody } from '../runtime/capped-body.ts';

/** Where the agency's page says the listing content goes. */
export const WRAPPER_MARKER = '<!-- estate-embed -->';
const FETCH_TIMEOUT_MS = 5_000;
/** The largest wrapper page read: the body is cut off here, whatever Content-Length said (or did not). */
export const MAX_WRAPPER_BYTES = 1_000_000;
/** Redirects followed within SITE_WRAPPER_URL's origin (a site moving its page, http→www); never to another origin. */
export const MAX_WRAPPER_REDIRECTS = 3;

/** The agency's page split around the marker, with the head tags the listing pages replace taken out. */
export interface Wrapper {
  /** Everything before `</head>`, without the page's own title, description, canonical, robots, Open Graph and Twitter tags. */
  head: string;
  /** From `</head>` up to the marker. */
  beforeContent: string;
  afterContent: string;
  /** Whether the page already loads the widget (widget.js). */
  loadsWidget: boolean;
  /** Changes whenever the page does (part of the rendered pages' cache key). */
  version: number;
}

/**
 * The agency's page at a URL (`setting`: what the logs call it, default SITE_WRAPPER_URL; an
 * agency's `wrapperUrl` with AGENCIES_FILE); or, in demo mode, a demo page whose `<main>` the
 * listing content replaces.
 */
export type WrapperSource = { url: string; refreshMinutes: number; setting?: string } | { file: string } | null;

/** A plain shell for relays with no SITE_WRAPPER_URL. */
const PLAIN_SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{margin:0;font-family:system-ui,sans-serif;color:#1f2328}main{max-width:72rem;margin:0 auto;padding:1rem}</style>
</head>
<body>
<main id="main">${WRAPPER_MARKER}</main>
</body>
</html>`;

/**
 * The wrapper page: fetched from the agency's site (like an IDX "dynamic wrapper") and kept for
 * SITE_WRAPPER_MINUTES; while the site cannot be reached the last good copy serves, and before
 * there is one, the plain shell. Never fetched while a visitor waits once a copy is held.
 */
export class WrapperCache {
  private current: Wrapper;
  private fetchedAt = 0;
  private loaded = false;
  private refreshing: Promise<void> | null = null;
  private version = 0;

  constructor(
    private readonly source: WrapperSource,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.current = this.parse(PLAIN_SHELL, 'the plain shell')!;
  }

  /** The wrapper to use now; starts a refresh in the background when the copy is old. */
  async get(): Promise<Wrapper> {
    if (!this.loaded) await this.refresh();
    else if (this.source && 'url' in this.source && this.now() - this.fetchedAt > this.source.refreshMinutes * 60_000) void this.refresh();
    return this.current;
  }

  refresh(): Promise<void> {
    return (this.refreshing ??= this.load().finally(() => (this.refreshing = null)));
  }

  private async load(): Promise<void> {
    const source = this.source;
    const setting = (source && 'url' in source && source.setting) || 'SITE_WRAPPER_URL';
    try {
      const text = !source ? PLAIN_SHELL : 'file' in source ? demoShell(await readFile(source.file, 'utf8')) : await fetchWrapper(source.url, setting);
      const parsed = this.parse(text, source && 'url' in source ? `${setting} (${source.url})` : 'the demo wrapper');
      if (parsed) this.current = parsed;
    } catch (error) {
      // fetch() says "fetch failed" and keeps the reason (refused, timed out, reset) in its cause.
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      const fault = error instanceof Error ? `${error.message}${cause}` : String(error);
      this.log.warn(
        { err: fault, wrapperUrl: source && 'url' in source ? source.url : undefined },
        `${setting} could not be fetched (${fault}): listing pages keep the last good wrapper`,
      );
    }
    // Stamped after failures too: the site is asked again after SITE_WRAPPER_MINUTES, not on every page.
    this.fetchedAt = this.now();
    this.loaded = true;
  }

  private parse(text: string, what: string): Wrapper | undefined {
    const marker = text.indexOf(WRAPPER_MARKER);
    const headEnd = text.search(/<\/head\s*>/i);
    if (marker < 0 || headEnd < 0 || headEnd > marker) {
      this.log.error({ wrapper: what }, `${what} has no ${WRAPPER_MARKER} in its body (or no </head>): listing pages use the plain shell until it does`);
      return undefined;
    }
    const head = text
      .slice(0, headEnd)
      .replace(/<title[\s>][\s\S]*?<\/title\s*>/gi, '')
      .replace(/<meta\s[^>]*(?:name|property)\s*=\s*["']?(?:description|robots|og:[^"'\s>]*|twitter:[^"'\s>]*)["']?[^>]*>/gi, '')
      .replace(/<link\s[^>]*rel\s*=\s*["']?canonical["']?[^>]*>/gi, '')
      .replace(/<script\s[^>]*type\s*=\s*["']?application\/ld\+json["']?[^>]*>[\s\S]*?<\/script\s*>/gi, '');
    const wrapper: Wrapper = {
      head,
      beforeContent: text.slice(headEnd, marker),
      afterContent: text.slice(marker + WRAPPER_MARKER.length),
      loadsWidget: /<script\s[^>]*src\s*=\s*["'][^"']*\/widget(?:\.[0-9a-f]{10})?\.js["']/i.test(text),
      version: 0,
    };
    const same =
      this.current &&
      this.current.head === wrapper.head &&
      this.current.beforeContent === wrapper.beforeContent &&
      this.current.afterContent === wrapper.afterContent;
    wrapper.version = same ? this.current.version : ++this.version;
    return wrapper;
  }
}

/** A demo page as the shell: its own head, header and footer, the marker in place of what its `<main>` holds. */
function demoShell(page: string): string {
  return page.replace(/(<main\b[^>]*>)[\s\S]*?(<\/main\s*>)/i, `$1\n      ${WRAPPER_MARKER}\n\n    $2`);
}

/**
 * Fetches the wrapper page: redirects followed by hand, only within the origin (scheme, host and
 * port) of SITE_WRAPPER_URL and at most MAX_WRAPPER_REDIRECTS times, so another site's page never
 * becomes the shell; the body read in chunks and abandoned once past MAX_WRAPPER_BYTES, so a host
 * streaming without end costs the relay a megabyte, not its memory. Throws naming the fault.
 */
async function fetchWrapper(source: string, setting: string): Promise<string> {
  const origin = new URL(source).origin;
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let url = new URL(source);
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, { signal, headers: { Accept: 'text/html' }, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (!location) throw new Error(`${setting} answered ${response.status} without a Location`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new Error(`${setting} redirected to an address that does not parse`);
      }
      if (next.origin !== origin) throw new Error(`${setting} redirected to another origin (${next.origin}); only ${origin} is followed`);
      if (hop >= MAX_WRAPPER_REDIRECTS) throw new Error(`${setting} redirected more than ${MAX_WRAPPER_REDIRECTS} times`);
      url = next;
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`${setting} answered ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_WRAPPER_BYTES) {
      await response.body?.cancel();
      throw new Error(`${setting} is larger than ${MAX_WRAPPER_BYTES} bytes (Content-Length ${declared})`);
    }
    return new TextDecoder().decode(await readCapped(response, MAX_WRAPPER_BYTES, setting));
  }
}

async function readCapped(response: Response, maxBytes: number, setting: string): Promise<Buffer> {
  try {
    return await readCappedBody(response, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new Error(`${setting} is larger than ${maxBytes} bytes (stopped reading there)`);
    throw error;
  }
}
