import { select, type Selection } from 'd3-selection';
// Adds transition() and interrupt() to selections: animated moves, and d3-zoom's double click.
import 'd3-transition';
import { zoom, zoomIdentity, zoomTransform, type D3ZoomEvent, type ZoomBehavior } from 'd3-zoom';
import { scaleOf, type View } from './projection.ts';

/** Which hint to show a moment: the page scrolled over an embedded map (cooperative gestures). */
export type GestureHint = 'wheel' | 'touch';

export interface GestureOptions {
  /** Every change of the view, from a gesture (`byVisitor`) or from code. */
  onView(view: View, byVisitor: boolean): void;
  /** True while the map has the screen to itself (full screen): every gesture moves it. */
  owned(): boolean;
  onHint(hint: GestureHint): void;
}

/** What d3-transition adds to a selection (its types are not installed; d3-zoom takes either). */
type Stage = Selection<HTMLElement, unknown, null, undefined> & {
  transition(): { duration(ms: number): Selection<HTMLElement, unknown, null, undefined> };
  interrupt(): Selection<HTMLElement, unknown, null, undefined>;
};

/** Pointer movement (px) under which a press is still a click on a pin, not a drag. */
const CLICK_DISTANCE = 5;

/** Pixels of wheel movement to a zoom level: a mouse wheel's notch (100 px in Chromium and Firefox). */
const WHEEL_PIXELS_PER_LEVEL = 100;
/** Under this a ctrl + wheel event is a trackpad's pinch (a few pixels an event), not a notch. */
const PINCH_PIXELS = 50;
/** A pinch's levels a pixel: d3-zoom's own (0.002 × its 10 for ctrl), which feels like the fingers. */
const PINCH_LEVELS_PER_PIXEL = 0.02;

/**
 * Zoom levels for a wheel event: one a notch, never more in one event. (d3-zoom's own gives a
 * ctrl + wheel notch two levels, meant for a pinch's small steps: one notch jumped two levels.)
 */
export function wheelLevels(event: WheelEvent): number {
  const pixels = event.deltaY * (event.deltaMode === 1 ? WHEEL_PIXELS_PER_LEVEL / 3 : event.deltaMode === 2 ? WHEEL_PIXELS_PER_LEVEL : 1);
  const levels =
    event.ctrlKey && event.deltaMode === 0 && Math.abs(pixels) < PINCH_PIXELS ? -pixels * PINCH_LEVELS_PER_PIXEL : -pixels / WHEEL_PIXELS_PER_LEVEL;
  return Math.max(-1, Math.min(1, levels));
}

/**
 * The map's gestures, by d3-zoom: drag, wheel, pinch, double click and double tap, touch-aware.
 * Cooperative while the map is part of a page: a plain wheel and a one-finger drag scroll the
 * page (the map shows a hint), ctrl or ⌘ + wheel (a trackpad's pinch too) and two fingers move the
 * map; in full screen every gesture moves it. Views are transforms in projection.ts's terms.
 */
export class MapGestures {
  readonly #stage: Stage;
  readonly #behavior: ZoomBehavior<HTMLElement, unknown>;
  readonly #options: GestureOptions;

  constructor(stage: HTMLElement, options: GestureOptions) {
    this.#options = options;
    this.#stage = select(stage) as Stage;
    this.#behavior = zoom<HTMLElement, unknown>()
      .clickDistance(CLICK_DISTANCE)
      .filter((event: Event) => this.#allows(event))
      .wheelDelta(wheelLevels)
      .on('zoom', (event: D3ZoomEvent<HTMLElement, unknown>) => {
        const { k, x, y } = event.transform;
        options.onView({ k, x, y }, Boolean(event.sourceEvent));
      });
    this.#stage.call(this.#behavior);
    // One finger on an embedded map scrolls the page: say how to move the map instead.
    stage.addEventListener('touchmove', (event) => {
      if (event.touches.length === 1 && !options.owned()) options.onHint('touch');
    });
  }

  #allows(event: Event): boolean {
    const owned = this.#options.owned();
    if (event.type === 'wheel') {
      const wheel = event as WheelEvent;
      if (owned || wheel.ctrlKey || wheel.metaKey) return true;
      this.#options.onHint('wheel');
      return false;
    }
    if (event.type === 'touchstart') return owned || (event as TouchEvent).touches.length >= 2;
    const mouse = event as MouseEvent;
    return !mouse.ctrlKey && !mouse.button;
  }

  /** Zooms between these levels (whole or not). */
  setZoomBounds(minZoom: number, maxZoom: number): void {
    this.#behavior.scaleExtent([scaleOf(minZoom), scaleOf(maxZoom)]);
  }

  get view(): View {
    const { k, x, y } = zoomTransform(this.#stage.node()!);
    return { k, x, y };
  }

  /** Moves to `view`, animated for `duration` ms (0: at once). */
  moveTo(view: View, duration = 0): void {
    const transform = zoomIdentity.translate(view.x, view.y).scale(view.k);
    this.#target(duration).call(this.#behavior.transform, transform);
  }

  /** A transition of `duration` ms, or the stage itself (a move in progress stops) for 0. */
  #target(duration: number): Selection<HTMLElement, unknown, null, undefined> {
    return duration > 0 ? this.#stage.transition().duration(duration) : this.#stage.interrupt();
  }

  /** Zooms by 2^`levels` about a point on screen (the middle when not given). */
  zoomBy(levels: number, duration = 0, point?: [number, number]): void {
    this.#target(duration).call(this.#behavior.scaleBy, 2 ** levels, point);
  }

  /** Pans by pixels on screen. */
  panBy(dx: number, dy: number, duration = 0): void {
    const k = this.view.k;
    this.#target(duration).call(this.#behavior.translateBy, dx / k, dy / k);
  }

  destroy(): void {
    this.#stage.interrupt().on('.zoom', null);
  }
}
