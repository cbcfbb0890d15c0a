import { css, html, nothing, svg, type ReactiveController, type TemplateResult } from 'lit';
import { readArea, unwrappedCorners } from '../../contract/drawn-area.ts';
import { fromScreen, toScreen } from './projection.ts';
import { DrawSession, type DrawAreaHost, type DrawAreaMap } from './draw-session.ts';

/**
 * "Draw an area", as the portals' Draw: the button ("Remove area" with one applied) and the
 * applied outline, SVG over the map (attributes, no inline style: a strict CSP holds), redrawn at
 * each view. The drawing itself is a session of its own (draw-session.ts: the surface, the
 * pointer, the keyboard's cross-hair). Not fetched lazily: a part entry of its own would add its
 * manifest line to every page's loader (about 100 gzip bytes, past the listing page's goal) to
 * save the map page about 1.2 KB it has room for (page-weight bench).
 */
export class DrawAreaController implements ReactiveController {
  #session: DrawSession | null = null;
  readonly #host: DrawAreaHost;
  readonly #map: DrawAreaMap;

  constructor(host: DrawAreaHost, map: DrawAreaMap) {
    this.#host = host;
    this.#map = map;
    host.addController(this);
  }

  hostDisconnected(): void {
    this.#session = null;
  }

  /** Drawing now: the surface is over the map. */
  get drawing(): boolean {
    return this.#session !== null;
  }

  /** The buttons: "Draw an area", or "Remove area" with one applied; the session's "Finish" and "Cancel" while drawing. */
  renderControls(): TemplateResult {
    if (this.#session) return this.#session.renderControls();
    const text = this.#map.words();
    return html`<div part="draw-controls" class="draw-controls">
      ${
        this.#map.area()
          ? html`<button type="button" part="button remove-area" class="action secondary" @click=${this.#remove}>${text.removeArea}</button>`
          : html`<button type="button" part="button draw-area" class="action secondary" @click=${this.start}>${text.drawArea}</button>`
      }
    </div>`;
  }

  /** Inside the stage: the applied outline, or while drawing the session's surface. */
  renderOverlay(): TemplateResult | typeof nothing {
    if (this.#session) return this.#session.renderSurface();
    const placed = this.#map.view();
    const applied = this.#map.area();
    const corners = applied ? readArea(applied) : null;
    if (!placed || !corners || typeof corners === 'string') return nothing;
    // One shape across the antimeridian, drawn the turn of the world nearest the view's middle.
    const shape = unwrappedCorners(corners);
    const [middle] = fromScreen(placed.view, placed.size.width / 2, placed.size.height / 2);
    const turn = 360 * Math.round((middle - shape[0]!.lng) / 360);
    const points = shape.map((corner) => toScreen(placed.view, corner.lng + turn, corner.lat).join(',')).join(' ');
    return html`<svg class="draw-layer" aria-hidden="true">${svg`<polygon part="drawn-area" class="drawn-area" points=${points}></polygon>`}</svg>`;
  }

  /** "Draw an area": lays a drawing session's surface over the map. */
  readonly start = (): void => {
    if (this.#session || !this.#map.view()) return;
    const session = new DrawSession(this.#host, this.#map, () => {
      if (this.#session === session) this.#session = null;
      this.#host.requestUpdate();
    });
    this.#session = session;
    session.start();
  };

  readonly #remove = (): void => {
    this.#map.apply(null);
    void (this.#host as unknown as { updateComplete: Promise<unknown> }).updateComplete.then(() =>
      this.#host.renderRoot.querySelector<HTMLElement>('[part~="draw-area"]')?.focus(),
    );
  };
}

/** The outline and the drawing surface (with the map's styles). */
export const drawAreaStyles = css`
  .draw-controls {
    display: inline-flex;
    gap: 0.375rem;
  }

  .draw-surface {
    position: absolute;
    inset: 0;
    z-index: 2;
    cursor: crosshair;
    /* One finger draws here: no scroll, no pinch, while drawing. */
    touch-action: none;
    user-select: none;
    -webkit-user-select: none;
  }

  .draw-surface:focus-visible {
    outline: 3px solid var(--_estate-accent, #1d4ed8);
    outline-offset: -3px;
  }

  .draw-layer {
    position: absolute;
    inset: 0;
    width: 100%;
    height: 100%;
    overflow: visible;
    pointer-events: none;
  }

  .drawn-area,
  .drawing {
    fill: color-mix(in srgb, var(--_pin, #1d4ed8) 14%, transparent);
    stroke: var(--_pin, #1d4ed8);
    stroke-width: 3;
    stroke-linejoin: round;
  }

  polyline.drawing {
    fill: none;
  }

  .corner {
    fill: var(--_estate-surface, #fff);
    stroke: var(--_pin, #1d4ed8);
    stroke-width: 2;
  }

  .corner.first {
    fill: none;
    stroke-width: 3;
  }

  .crosshair line,
  .crosshair circle {
    stroke: #111;
    stroke-width: 2;
    fill: none;
  }

  .crosshair.near line,
  .crosshair.near circle {
    stroke: var(--_pin, #1d4ed8);
    stroke-width: 3;
  }
`;
