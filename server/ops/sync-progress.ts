import type { Logger } from '../runtime/log.ts';
import { createProgress, formatProgressLine } from '../runtime/progress.ts';
import { countListings } from '../listings/cache.ts';
import { countMirroredPhotos } from '../photos/mirror.ts';
import type { Store } from '../store/store.ts';

export interface SyncProgressOptions {
  /** Live line on a TTY (default process.stderr). */
  stream?: NodeJS.WriteStream;
  /** One line per step when it ends (listings, photos). */
  log?: Logger;
  intervalMs?: number;
}

/**
 * Shows a sync's progress from what it writes: listings cached and photos mirrored, with their
 * rates, read from the store a few times a second. Works for a sync in this process or in the
 * running relay, and needs nothing from the sync code. Returns `stop`, which ends both steps.
 */
export function watchSyncProgress(store: Store, options: SyncProgressOptions = {}): (outcome?: { error?: string }) => void {
  const stream = options.stream ?? process.stderr;
  const counter = (count: (store: Store) => number) => () => {
    try {
      return count(store);
    } catch {
      return 0; // a store being replaced or closed under us: the next sample tells
    }
  };
  const readListings = counter(countListings);
  const readPhotos = counter(countMirroredPhotos);
  const baseline = { listings: readListings(), photos: readPhotos() };
  // Each step logs its own line at the end; the live line on a TTY combines both.
  const quiet = { isTTY: false } as NodeJS.WriteStream;
  const listings = createProgress('Listing sync', { unit: 'listings', log: options.log, stream: quiet });
  const photos = createProgress('Photo mirror', { unit: 'photos', log: options.log, stream: quiet });
  const started = performance.now();
  const live = stream.isTTY === true;
  const figures = (done: number) => {
    const seconds = Math.max((performance.now() - started) / 1000, 0.001);
    return { done, seconds: Math.round(seconds * 10) / 10, ratePerSecond: Math.round((done / seconds) * 10) / 10 };
  };
  const sample = () => {
    const cached = Math.max(0, readListings() - baseline.listings);
    const mirrored = Math.max(0, readPhotos() - baseline.photos);
    listings.set(cached);
    photos.set(mirrored);
    if (live) {
      const line = `${formatProgressLine('Syncing', 'new listings', figures(cached))} · ${formatProgressLine('', 'new photos', figures(mirrored)).slice(2)}`;
      stream.write(`\r\x1b[2K${line}`);
    }
  };
  const timer = setInterval(sample, options.intervalMs ?? 250);
  timer.unref();
  return (outcome = {}) => {
    clearInterval(timer);
    sample();
    if (live) stream.write('\n');
    if (outcome.error) {
      listings.fail(outcome.error);
      photos.fail(outcome.error);
    } else {
      listings.done();
      photos.done();
    }
  };
}
