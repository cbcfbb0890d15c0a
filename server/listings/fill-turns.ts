/**
 * How many agencies of one relay mirror their first fill's photos at once, and which go first.
 *
 * The CRM's gate orders the requests of agencies filling for the first time, the smallest first
 * (crm/limiter.ts), but most of a fill's work is not CRM requests: every listing's photos are
 * downloaded from the file host and resized. A first fill writes its listings without them (the
 * agency serves as soon as its own requests are through: sync.ts), then mirrors the photos in one
 * of a few turns, given in fill order (the smallest first, ties first come first): two hundred
 * agencies downloading and resizing at once would share the CPU, the disk and the file host
 * evenly, slowing the CRM's answers (and so the gate) for the agencies still to fill, and every
 * gallery would complete at the end, together.
 */

/** Agencies mirroring their first fill's photos at once: enough to keep two cores, the threadpool and the file host busy (4 left them idle: the last agency filled later than all at once), few enough to finish in order. */
export const FIRST_FILLS_AT_ONCE = 6;

interface Waiting {
  order: () => number;
  seq: number;
  grant: (release: () => void) => void;
}

export class FillTurns {
  private running = 0;
  private readonly waiting: Waiting[] = [];
  private arrivals = 0;

  constructor(private readonly atOnce = FIRST_FILLS_AT_ONCE) {}

  /**
   * Resolves with the release once it is this fill's turn: among those waiting, the lowest `order`
   * (read when a turn frees) and then the first to ask. Rejects with the signal's reason if it fires
   * while waiting.
   */
  take(order: () => number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const waiter: Waiting = { order, seq: this.arrivals++, grant: resolve };
      this.waiting.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.waiting.indexOf(waiter);
          if (index < 0) return;
          this.waiting.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
      this.next();
    });
  }

  /** Fills waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private next(): void {
    while (this.running < this.atOnce && this.waiting.length > 0) {
      const orders = this.waiting.map((waiter) => waiter.order());
      let best = 0;
      for (let index = 1; index < this.waiting.length; index++) {
        const byOrder = orders[index]! - orders[best]!;
        if (byOrder < 0 || (byOrder === 0 && this.waiting[index]!.seq < this.waiting[best]!.seq)) best = index;
      }
      const [waiter] = this.waiting.splice(best, 1);
      this.running++;
      let released = false;
      waiter!.grant(() => {
        if (released) return;
        released = true;
        this.running--;
        this.next();
      });
    }
  }
}
