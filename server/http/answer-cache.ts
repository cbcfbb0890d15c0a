import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';
import type { EncodedBody } from './precompressed.ts';

/**
 * The relay's one store of rendered answers (listing API answers, server-rendered pages, answers
 * recorded for replay), for every agency it serves: bounded in bytes, least recently used evicted
 * first. Before it, each agency's router kept up to a thousand answers of up to ~180 KB (a
 * 100-card page with its brotli and gzip forms), and 4,697 distinct queries in 15 s across three
 * agencies took the relay from 177 to 335 MB, where it stayed (issue 24).
 *
 * What is counted is what an entry keeps alive: its body's bytes (the uncompressed answer and every
 * compressed form made of it so far, counted once however many entries share it: a replay and the
 * router's own entry hold the same body), its key and a fixed allowance for the objects around them.
 * A form made after the entry was stored (the first gzip asked for) is counted as it is made, and
 * may evict older entries then.
 *
 * Plain Map in insertion order, moved to the end on each use: the same as lru-cache's
 * `maxSize`/`sizeCalculation`, with the one thing it lacks here (a body growing in place, shared by
 * several entries). Swapping in a library means keeping this class's methods.
 */

/** Map entry, the entry object, the value's own small object (headers, closures), roughly. */
export const ENTRY_OVERHEAD_BYTES = 256;

interface Entry {
  value: unknown;
  body: EncodedBody | undefined;
  /** Counted for the entry itself: key, allowance, extra the caller named (headers). */
  ownBytes: number;
  scope: AnswerScope;
}

export interface AnswerCacheOptions {
  /** The bound, in bytes (ANSWER_CACHE_MB). */
  maxBytes: number;
  /** Answers rendered for one client a minute when not in the cache (UNCACHED_RENDERS_PER_MINUTE); 0: no limit. */
  rendersPerMinute: number;
  now?: () => number;
}

export class AnswerCache {
  readonly maxBytes: number;
  /** The per-client limit on answers not in the cache (renders). */
  readonly renders: RenderLimit;
  readonly #entries = new Map<string, Entry>();
  /** How many entries hold each body: it is counted while one does. */
  readonly #bodies = new Map<EncodedBody, number>();
  #bytes = 0;
  #evictions = 0;
  #scopes = 0;

  constructor(options: AnswerCacheOptions) {
    this.maxBytes = options.maxBytes;
    this.renders = new RenderLimit(options.rendersPerMinute, options.now ?? Date.now);
  }

  /** A namespace of keys (one router of one agency) that can be cleared on its own. */
  scope(name: string): AnswerScope {
    return new AnswerScope(this, `${++this.#scopes}:${name}|`);
  }

  /** Bytes counted now: never above maxBytes once a call returns. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Entries evicted to stay within maxBytes, since start. */
  get evictions(): number {
    return this.#evictions;
  }

  /** @internal (AnswerScope) */
  get(key: string): unknown {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Most recently used: to the end of the insertion order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** @internal (AnswerScope) */
  set(key: string, value: unknown, body: EncodedBody | undefined, extraBytes: number, scope: AnswerScope): void {
    this.delete(key);
    const ownBytes = ENTRY_OVERHEAD_BYTES + key.length * 2 + extraBytes;
    this.#entries.set(key, { value, body, ownBytes, scope });
    scope.keys.add(key);
    this.#bytes += ownBytes;
    if (body) {
      const holders = this.#bodies.get(body) ?? 0;
      this.#bodies.set(body, holders + 1);
      if (holders === 0) {
        this.#bytes += body.byteLength;
        body.onGrow = (bytes) => {
          this.#bytes += bytes;
          this.#evict();
        };
      }
    }
    this.#evict();
  }

  /** @internal (AnswerScope) */
  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    entry.scope.keys.delete(key);
    this.#bytes -= entry.ownBytes;
    const body = entry.body;
    if (body) {
      const holders = this.#bodies.get(body)! - 1;
      if (holders > 0) this.#bodies.set(body, holders);
      else {
        this.#bodies.delete(body);
        this.#bytes -= body.byteLength;
        body.onGrow = undefined;
      }
    }
  }

  #evict(): void {
    while (this.#bytes > this.maxBytes && this.#entries.size > 0) {
      this.delete(this.#entries.keys().next().value!);
      this.#evictions++;
    }
  }
}

/** One router's keys in the shared cache: get, set and clear (on a listing change) without touching the others'. */
export class AnswerScope {
  /** @internal (AnswerCache) */
  readonly keys = new Set<string>();

  constructor(
    readonly cache: AnswerCache,
    private readonly prefix: string,
  ) {}

  get<T>(key: string): T | undefined {
    return this.cache.get(this.prefix + key) as T | undefined;
  }

  /** Stores `value`, counting `body` (once, however many entries hold it) and `extraBytes` (headers) with it. */
  set(key: string, value: unknown, body?: EncodedBody, extraBytes = 0): void {
    this.cache.set(this.prefix + key, value, body, extraBytes, this);
  }

  delete(key: string): void {
    this.cache.delete(this.prefix + key);
  }

  clear(): void {
    for (const key of [...this.keys]) this.cache.delete(key);
  }

  get size(): number {
    return this.keys.size;
  }
}

/** Clients a minute tracked one by one; past it, the others share one count (a flood of addresses cannot grow the map). */
const CLIENTS_TRACKED = 50_000;
const OVERFLOW = 'others';

/**
 * At most `perMinute` answers rendered for one client (IP address; an IPv6 address by its /64,
 * which one subscriber usually holds whole) in each clock minute; answers already in the cache are
 * never counted. Refusals say when the minute ends (Retry-After).
 */
export class RenderLimit {
  #minute = -1;
  readonly #counts = new Map<string, number>();
  /** Renders allowed, and refused, since start. */
  taken = 0;
  refused = 0;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** Counts a render for `client`; undefined when allowed, else the seconds until it would be. */
  take(client: string | undefined): number | undefined {
    if (this.perMinute <= 0) {
      this.taken++;
      return undefined;
    }
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    if (minute !== this.#minute) {
      this.#minute = minute;
      this.#counts.clear();
    }
    let key = clientKey(client);
    if (!this.#counts.has(key) && this.#counts.size >= CLIENTS_TRACKED) key = OVERFLOW;
    const count = (this.#counts.get(key) ?? 0) + 1;
    if (count > this.perMinute) {
      this.refused++;
      return Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000));
    }
    this.#counts.set(key, count);
    this.taken++;
    return undefined;
  }
}

/** The relay's answer cache as its settings say (one per relay: the composition root passes it to every agency). */
export function answerCacheFor(http: { answerCacheBytes: number; uncachedRendersPerMinute: number }, now?: () => number): AnswerCache {
  return new AnswerCache({ maxBytes: http.answerCacheBytes, rendersPerMinute: http.uncachedRendersPerMinute, now });
}

/** The 429 of a client past its renders of the minute (cached answers still reach it). */
export function tooManyRenders(retryAfterSeconds: number): HttpError {
  return new HttpError(
    429,
    'too_many_renders',
    'Too many different queries from this address in a minute; answers already cached are still served. Ask again after Retry-After seconds.',
    undefined,
    { 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' },
  );
}

/** The client a render is counted to: Express's req.ip (TRUST_PROXY decides whose address that is). */
export function renderClient(req: IncomingMessage & { ip?: string }): string | undefined {
  return req.ip ?? req.socket.remoteAddress;
}

function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  if (address.startsWith('::ffff:')) return address.slice(7);
  if (!address.includes(':')) return address;
  // IPv6: the first four groups (the /64), written out so that "::" spellings agree.
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':');
}
