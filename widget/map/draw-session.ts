import { html, nothing, svg, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { canonicalArea, formatArea } from '../../contract/drawn-area.ts';
import { fill } from '../shared/fill.ts';
import { fromScreen, wrapLongitude, type Size, type View } from './projection.ts';
import { simplifyOutline, type ScreenPoint } from './simplify.ts';
import type { MapStrings } from './strings.ts';

/*
 * Drawing an area, from a press of "Draw an area" to Finish or Cancel (draw-area.ts keeps the
 * buttons and the applied outline): the surface over the map that takes the pointer and the keys.
 */

/** The element drawn on: a Lit element (its shadow root holds the buttons and the surface). */
export type DrawAreaHost = ReactiveControllerHost & HTMLElement & { readonly renderRoot: HTMLElement | DocumentFragment };

/** What the drawing needs of the map. */
export interface DrawAreaMap {
  /** The view and the stage's size now (null before the map has one). */
  view(): { view: View; size: Size } | null;
  /** The applied outline (`lat,lng;…`), or null. */
  area(): string | null;
  /** Applies an outline (or null: removes it), a history entry, and says so. */
  apply(area: string | null): void;
  /** Says it in the map's live region. */
  announce(message: string): void;
  words(): MapStrings;
}

/** Corners a freehand outline keeps at most (the relay takes up to 100: contract/drawn-area.ts). */
export const DRAWN_CORNERS_MAX = 50;
/** Pixels an arrow key moves the cross-hair; with Shift, BIG_STEP. */
const STEP = 10;
const BIG_STEP = 50;
/** How near the first corner the cross-hair closes the outline with Enter. */
const CLOSE_PX = 12;
/** Pixels a pointer moves before its next point is kept (a drag gives one every few pixels). */
const MIN_STEP_PX = 3;

/**
 * One drawing: a drag (a mouse, a pen or one finger) draws a freehand outline, simplified to at
 * most DRAWN_CORNERS_MAX corners, or the keyboard's cross-hair places corners one by one (arrows
 * move it, Enter or Space adds a corner, Enter on the first corner or "Finish" closes it,
 * Backspace takes the last back, Escape cancels). The surface takes every pointer and key, so the
 * map does not move under the pen.
 */
export class DrawSession {
  /** The keyboard's corners, or the pointer's points while it is down (screen pixels of the stage). */
  #points: ScreenPoint[] = [];
  #pointer: number | null = null;
  #cursor: ScreenPoint = [0, 0];
  #nearFirst = false;
  readonly #host: DrawAreaHost;
  readonly #map: DrawAreaMap;
  /** Tells the controller drawing is over (closed or cancelled). */
  readonly #end: () => void;

  constructor(host: DrawAreaHost, map: DrawAreaMap, end: () => void) {
    this.#host = host;
    this.#map = map;
    this.#end = end;
  }

  /** "Finish" and "Cancel". */
  renderControls(): TemplateResult {
    const text = this.#map.words();
    const ready = this.#pointer === null && this.#points.length >= 3;
    return html`<div part="draw-controls" class="draw-controls">
      <button type="button" part="button draw-finish" class="action" aria-disabled=${ready ? 'false' : 'true'} @click=${this.#finish}>
        ${text.finishArea}
      </button>
      <button type="button" part="button draw-cancel" class="action secondary" @click=${this.#cancel}>${text.cancelDrawing}</button>
    </div>`;
  }

  /** The surface over the stage, with what is drawn so far. */
  renderSurface(): TemplateResult | typeof nothing {
    if (!this.#map.view()) return nothing;
    const text = this.#map.words();
    const points = this.#points.map((point) => point.join(',')).join(' ');
    const [x, y] = this.#cursor;
    const first = this.#points[0];
    return html`<div
      part="draw-surface"
      class="draw-surface"
      tabindex="0"
      role="application"
      aria-roledescription=${text.drawingRole}
      aria-label=${text.drawingLabel}
      aria-describedby="draw-instructions"
      @pointerdown=${this.#onPointerDown}
      @pointermove=${this.#onPointerMove}
      @pointerup=${this.#onPointerUp}
      @pointercancel=${this.#onPointerCancel}
      @mousedown=${stop}
      @touchstart=${stop}
      @touchmove=${stop}
      @wheel=${stop}
      @dblclick=${stop}
      @keydown=${this.#onKeydown}
    >
      <svg class="draw-layer" aria-hidden="true">
        ${this.#pointer === null ? svg`<polygon class="drawing" points=${points}></polygon>` : svg`<polyline class="drawing" points=${points}></polyline>`}
        ${this.#pointer === null ? this.#points.map(([cx, cy]) => svg`<circle class="corner" cx=${cx} cy=${cy} r="5"></circle>`) : nothing}
        ${
          this.#pointer === null
            ? svg`<g class=${this.#nearFirst ? 'crosshair near' : 'crosshair'}>
                <line x1=${x - 12} y1=${y} x2=${x + 12} y2=${y}></line><line x1=${x} y1=${y - 12} x2=${x} y2=${y + 12}></line>
                <circle cx=${x} cy=${y} r="4"></circle></g>`
            : nothing
        }
        ${first && this.#nearFirst ? svg`<circle class="corner first" cx=${first[0]} cy=${first[1]} r="9"></circle>` : nothing}
      </svg>
      <p id="draw-instructions" class="visually-hidden">${text.drawingInstructions}</p>
    </div>`;
  }

  /** The surface over the map, focused, the cross-hair in the middle. */
  start(): void {
    const placed = this.#map.view()!;
    this.#cursor = [Math.round(placed.size.width / 2), Math.round(placed.size.height / 2)];
    this.#map.announce(this.#map.words().drawingStarted);
    this.#host.requestUpdate();
    void this.#afterRender(() => this.#surface()?.focus());
  }

  #surface(): HTMLElement | null {
    return this.#host.renderRoot.querySelector<HTMLElement>('[part~="draw-surface"]') ?? null;
  }

  async #afterRender(then: () => void): Promise<void> {
    await (this.#host as unknown as { updateComplete: Promise<unknown> }).updateComplete;
    then();
  }

  #at(event: PointerEvent): ScreenPoint {
    const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
    return [event.clientX - box.left, event.clientY - box.top];
  }

  readonly #onPointerDown = (event: PointerEvent): void => {
    if (!event.isPrimary || (event.pointerType === 'mouse' && event.button !== 0)) return;
    // No mouse events after it (d3-zoom's drag listens to them), no text selection.
    event.preventDefault();
    event.stopPropagation();
    try {
      // The drag goes on past the map's edge; a pointer the browser no longer has (synthetic, lifted) cannot be captured.
      (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
    } catch {
      /* drawn without capture */
    }
    this.#pointer = event.pointerId;
    this.#points = [this.#at(event)];
    this.#host.requestUpdate();
  };

  readonly #onPointerMove = (event: PointerEvent): void => {
    if (event.pointerId !== this.#pointer) return;
    const point = this.#at(event);
    const last = this.#points.at(-1)!;
    if (Math.hypot(point[0] - last[0], point[1] - last[1]) < MIN_STEP_PX) return;
    this.#points.push(point);
    this.#host.requestUpdate();
  };

  readonly #onPointerUp = (event: PointerEvent): void => {
    if (event.pointerId !== this.#pointer) return;
    this.#onPointerMove(event);
    this.#pointer = null;
    const drawn = simplifyOutline(this.#points, DRAWN_CORNERS_MAX);
    this.#points = [];
    // A tap, or a stroke with no width: keep drawing.
    if (!this.#close(drawn)) this.#host.requestUpdate();
  };

  readonly #onPointerCancel = (event: PointerEvent): void => {
    if (event.pointerId !== this.#pointer) return;
    this.#pointer = null;
    this.#points = [];
    this.#host.requestUpdate();
  };

  readonly #onKeydown = (event: KeyboardEvent): void => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const placed = this.#map.view();
    if (!placed) return;
    const step = event.shiftKey ? BIG_STEP : STEP;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const move = moves[event.key];
    const text = this.#map.words();
    if (move) {
      const [x, y] = this.#cursor;
      this.#cursor = [clamp(x + move[0], 0, placed.size.width), clamp(y + move[1], 0, placed.size.height)];
      const near = this.#nearFirstCorner();
      if (near && !this.#nearFirst) this.#map.announce(text.onFirstCorner);
      this.#nearFirst = near;
    } else if (event.key === 'Enter' || event.key === ' ') {
      if (this.#nearFirst) {
        this.#finish();
      } else {
        this.#points.push(this.#cursor);
        this.#nearFirst = false;
        this.#map.announce(fill(this.#points.length >= 3 ? text.cornerAddedReady : text.cornerAdded, { count: String(this.#points.length) }));
      }
    } else if (event.key === 'Backspace' || event.key === 'Delete') {
      if (!this.#points.length) return;
      this.#points.pop();
      this.#nearFirst = this.#nearFirstCorner();
      this.#map.announce(fill(text.cornerRemoved, { count: String(this.#points.length) }));
    } else if (event.key === 'Escape') {
      this.#cancel();
    } else {
      return;
    }
    // The map's own keys (arrows pan, Escape leaves full screen) are not for it while drawing.
    event.preventDefault();
    event.stopPropagation();
    this.#host.requestUpdate();
  };

  #nearFirstCorner(): boolean {
    const first = this.#points[0];
    return this.#points.length >= 3 && first !== undefined && Math.hypot(first[0] - this.#cursor[0], first[1] - this.#cursor[1]) <= CLOSE_PX;
  }

  /** "Finish" (or Enter on the first corner): the keyboard's corners close. */
  readonly #finish = (): void => {
    if (this.#pointer !== null) return;
    if (!this.#close(this.#points)) {
      this.#map.announce(this.#map.words().areaTooSmall);
      this.#surface()?.focus();
    }
  };

  /** Applies the outline of these corners, or says false when they enclose nothing. */
  #close(corners: readonly ScreenPoint[]): boolean {
    const placed = this.#map.view();
    if (!placed || corners.length < 3) return false;
    const area = canonicalArea(
      formatArea(
        corners.map(([x, y]) => {
          // The map's longitudes run on past ±180 when panned across the antimeridian; the area's are -180..180.
          const [lng, lat] = fromScreen(placed.view, x, y);
          return { lat, lng: wrapLongitude(lng) };
        }),
      ),
    );
    if (area === undefined) return false;
    this.#end();
    this.#map.apply(area);
    this.#host.requestUpdate();
    void this.#afterRender(() => this.#host.renderRoot.querySelector<HTMLElement>('[part~="remove-area"]')?.focus());
    return true;
  }

  readonly #cancel = (): void => {
    this.#end();
    this.#map.announce(this.#map.words().drawingCancelled);
    this.#host.requestUpdate();
    void this.#afterRender(() => this.#host.renderRoot.querySelector<HTMLElement>('[part~="draw-area"], [part~="remove-area"]')?.focus());
  };
}

const stop = (event: Event): void => event.stopPropagation();
const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));
