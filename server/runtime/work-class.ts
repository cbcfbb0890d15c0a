import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a piece of outgoing work is for, in the order the one CRM gate serves it: a visitor's
 * enquiry first, then a saved search on its way into the CRM, then a pushed change notice, then catching up from the change feed, then the
 * routine list polls and sweeps. A lead is never kept waiting behind a sync.
 *
 * Workers say their class once, around what they run (`asWork('enquiry', deliver)`); every request
 * made inside, however deep and across awaits, carries it (AsyncLocalStorage), so the listing
 * source, lead sink and their helpers need no extra parameter on every call.
 */
export const WORK_CLASSES = ['enquiry', 'saved-search', 'webhook', 'catch-up', 'sweep'] as const;
export type WorkClass = (typeof WORK_CLASSES)[number];

/** Requests made outside any declared work (start-up checks, the operator's CLI): served after catch-up, before sweeps. */
export const DEFAULT_WORK_CLASS: WorkClass = 'catch-up';

const currentWork = new AsyncLocalStorage<WorkClass>();

/** Runs `work` with every request it makes carrying `workClass`. */
export function asWork<T>(workClass: WorkClass, work: () => T): T {
  return currentWork.run(workClass, work);
}

/** The class of the work this code runs in (DEFAULT_WORK_CLASS outside any). */
export function workClassNow(): WorkClass {
  return currentWork.getStore() ?? DEFAULT_WORK_CLASS;
}

/** Rank for ordering: 0 goes first. */
export function workRank(workClass: WorkClass): number {
  return WORK_CLASSES.indexOf(workClass);
}
