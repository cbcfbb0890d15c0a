import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { AnswerCache, type AnswerScope } from './answer-cache.ts';
import { chooseCoding, type EncodedBody } from './precompressed.ts';
import { rawHostKey } from './request-host.ts';

/**
 * Answers a route has marked as replayable, kept with the headers they went out with, and sent
 * again to the same request before Express sees it. Express and its middleware cost about four
 * fifths of a cached listing page's time (measured: a bare Express 5 app with helmet answers a
 * fixed buffer at a fifth of the rate node:http does), so a hot page skips them, much as nginx's
 * microcache would in front of the relay.
 *
 * An answer is replayed only to a request that would get the very same bytes and headers from the
 * app: same method (GET), same URL, same Host and X-Forwarded-Host (with AGENCIES_FILE the host
 * decides which agency answers, or whether one does), same Origin (CORS decides by it), same chosen
 * content coding; and only while the route says it is current (the listing cache has not changed since). Helmet's
 * and CORS's headers are recorded as they were set, so a replayed answer carries them too.
 *
 * Kept in the relay's answer cache (answer-cache.ts), bounded in bytes with every other rendered
 * answer; a replay shares its body with the route's own entry, so the body is counted once.
 */
export interface ReplayOptions {
  /** False once the answer is out of date (the cache changed, the minute of a detail passed). */
  isCurrent(): boolean;
  /** Headers that differ per request (the listing cache's age), made again for each replay. */
  refresh?(): OutgoingHttpHeaders;
}

interface Replay extends ReplayOptions {
  headers: OutgoingHttpHeaders;
  /** The same without the body's headers, for a 304. */
  notModifiedHeaders: OutgoingHttpHeaders;
  body: EncodedBody;
  bytes: Buffer;
}

/** Alone (tests, a bare app): a cache of its own. The relay passes its one answer cache. */
const OWN_CACHE_BYTES = 16 * 1024 * 1024;

export class ResponseCache {
  readonly #replays: AnswerScope;

  readonly #hostOf: (req: IncomingMessage) => string;

  /**
   * `hostOf` names the host a request was made to as the app trusts it (http/request-host.ts, from
   * the app's TRUST_PROXY); alone, both host headers as sent.
   */
  constructor(
    answers: AnswerCache = new AnswerCache({ maxBytes: OWN_CACHE_BYTES, rendersPerMinute: 0 }),
    hostOf: (req: IncomingMessage) => string = rawHostKey,
  ) {
    this.#replays = answers.scope('replay');
    this.#hostOf = hostOf;
  }

  /**
   * Records the answer `res` is about to send (its headers are final but for Date): call it just
   * before ending a 200 whose bytes are `bytes`, the `coding` form of `body`.
   */
  remember(req: IncomingMessage, res: ServerResponse, body: EncodedBody, bytes: Buffer, options: ReplayOptions): void {
    if (req.method !== 'GET' || res.statusCode !== 200) return;
    const headers = res.getHeaders();
    const { 'content-length': _length, 'content-encoding': _encoding, 'content-type': _type, ...notModifiedHeaders } = headers;
    // Both header sets are kept: counted with the entry (the body is counted with the body).
    const headerBytes = 2 * headerSize(headers);
    this.#replays.set(this.#replayKey(req), { ...options, headers, notModifiedHeaders, body, bytes } satisfies Replay, body, headerBytes);
  }

  /** Sends the recorded answer for `req` (or a 304) and returns true; false when there is none. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || this.#replays.size === 0) return false;
    const key = this.#replayKey(req);
    const replay = this.#replays.get<Replay>(key);
    if (!replay) return false;
    if (!replay.isCurrent()) {
      this.#replays.delete(key);
      return false;
    }
    const fresh = replay.refresh?.();
    if (replay.body.matches(req.headers['if-none-match'])) {
      res.writeHead(304, fresh ? { ...replay.notModifiedHeaders, ...fresh } : replay.notModifiedHeaders).end();
    } else {
      res.writeHead(200, fresh ? { ...replay.headers, ...fresh } : replay.headers).end(replay.bytes);
    }
    return true;
  }

  get size(): number {
    return this.#replays.size;
  }

  /** Before Express, `url` is the whole path; inside it, a mounted router may have cut it (originalUrl is whole). */
  #replayKey(req: IncomingMessage & { originalUrl?: string }): string {
    return `${chooseCoding(req)} ${this.#hostOf(req)} ${req.headers.origin ?? ''} ${req.originalUrl ?? req.url}`;
  }
}

function headerSize(headers: OutgoingHttpHeaders): number {
  let size = 0;
  for (const [name, value] of Object.entries(headers)) size += name.length + String(value).length + 8;
  return size * 2;
}
