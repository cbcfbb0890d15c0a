/**
 * When the visitor could first have started on a lead form, for the `elapsedMs` a form sends (the
 * relay takes a form sent sooner than ENQUIRY_MIN_FILL_MS after that for a bot's). The earliest of:
 * - the first `estate-*` element on this page connecting (estate-element.ts marks it): a form that
 *   opens after a click ("Register" on a listing, "Request a private inspection", a shortlist's
 *   form) opens on a page the visitor has been reading since, and the time spent reading counts;
 * - the first interaction with the page (a pointer, a key, a scroll) seen since widget.js or this
 *   module loaded: a form a host page inserts after a click (its own "Contact us" dialog) follows
 *   a visit that began before it.
 * Never the moment a form appeared or was filled: a browser's autofill fills name, e-mail and
 * mobile at once, and a person who uses it is still a person. A script that fills the form as the
 * page loads still sends within a few hundred milliseconds of the first element connecting.
 * Kept under a global symbol, so that widget.js (which imports nothing) and every chunk share it.
 */
const VISIT_START = Symbol.for('estate-embed.visit-start');

type WithVisitStart = typeof globalThis & { [VISIT_START]?: number };

/** Marks `at` (performance.now() time) as a moment the visitor could have started, if it is the earliest yet. */
export function markVisitStart(at = performance.now()): void {
  const global = globalThis as WithVisitStart;
  if (!(global[VISIT_START]! <= at)) global[VISIT_START] = at;
}

/** Whole milliseconds since the visitor could first have started (0 before anything marked a start). */
export function msSinceVisitStart(): number {
  const now = performance.now();
  return Math.round(now - Math.min(now, (globalThis as WithVisitStart)[VISIT_START] ?? now));
}

// Interactions with the page (the earliest counts); nothing to listen to where there is no page (rendering on the server).
if (typeof addEventListener === 'function') {
  for (const type of ['pointerdown', 'keydown', 'scroll']) addEventListener(type, () => markVisitStart(), { capture: true, passive: true });
}
