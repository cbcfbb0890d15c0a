import { HttpError } from './errors.ts';
import type { EncodedBody } from './precompressed.ts';
import { PerClientLimit } from './client-limit.ts';

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
  readonly renders: PerClientLimit;
  readonly #entries = new Map<string, Entry>();
  /** How many entries hold each body: it is counted while one does. */
  readonly #bodies = new Map<EncodedBody, number>();
  #bytes = 0;
  #evictions = 0;
  #scopes = 0;

  constructor(options: AnswerCacheOptions) {
    this.maxBytes = options.maxBytes;
    this.renders = new PerClientLimit(options.rendersPerMinute, options.now ?? Date.now);
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
