import type { IncomingMessage } from 'node:http';
import { ipKeyGenerator } from 'express-rate-limit';

/** Clients a minute tracked one by one; past it, the others share one count (a flood of addresses cannot grow the map). */
const CLIENTS_TRACKED = 50_000;
const OVERFLOW = 'others';

/**
 * At most `perMinute` of something (answers rendered, tiles) for one client (IP address; an IPv6
 * address by its /64, which one subscriber usually holds whole) in each clock minute; the caller
 * counts only what costs (a cached answer is never counted). Refusals say when the minute ends
 * (Retry-After).
 */
export class PerClientLimit {
  #minute = -1;
  readonly #counts = new Map<string, number>();
  /** Renders allowed, and refused, since start. */
  taken = 0;
  refused = 0;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  /** Counts one for `client`; undefined when allowed, else the seconds until it would be. */
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
    // express-rate-limit's key: an IPv4 address as it is, an IPv6 address by its /64.
    let key = client ? ipKeyGenerator(client, 64) : 'unknown';
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

/** The client a request is counted to: Express's req.ip (TRUST_PROXY decides whose address that is). */
export function clientOf(req: IncomingMessage & { ip?: string }): string | undefined {
  return req.ip ?? req.socket.remoteAddress;
}
