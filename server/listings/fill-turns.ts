/**
 * How many agencies of one relay write their first fill at once, and which go first.
 *
 * The CRM's gate orders the requests of agencies filling for the first time, the smallest first
 * (crm/limiter.ts), but most of a fill is not CRM requests: every listing's photos are downloaded
 * from the file host and resized, and every listing written to the store. Two hundred agencies
 * doing that at once share the CPU and the disk evenly and all finish at the end, together. So a
 * first fill reads its lists (a few requests, which tell its size), then waits for one of a few
 * turns, given in fill order (the smallest first, ties first come first), and writes its listings
 * in it. The relay does the same work, so the last agency is not later; the others are serving as
 * soon as their own work is done instead of at the end.
 */

/** Agencies writing their first fill at once: enough to keep two cores, the threadpool and the file host busy (4 left them idle: the last agency filled later than all at once), few enough to finish in order. */
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
