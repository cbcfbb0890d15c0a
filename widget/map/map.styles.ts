import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { featureStyles, iconStyles, keepStyles } from '../shared/listing-parts.styles.ts';

/**
 * The map draws everything itself (no library CSS): tiles and markers are absolutely placed in
 * the stage and moved through the CSSOM (tiles by `transform`, markers and labels by `translate`,
 * so a lit pin's `scale` grows it where it is). Targets are at least 28 px (WCAG 2.2's
 * 24 px minimum), and every colour keeps 4.5:1 (text) or 3:1 (markers, focus) on the ground.
 */
export const styles = [
  resetStyles,
  featureStyles,
  iconStyles,
  keepStyles,
  css`
    :host {
      display: block;
      --_height: var(--estate-map-height, 28rem);
      --_ground: var(--estate-map-background, #e8ecef);
      --_pin: var(--estate-map-pin, var(--_estate-accent));
      --_pin-lit: var(--estate-map-pin-highlight, #b3261e);
      --_cluster: var(--estate-map-cluster, #1f2328);
    }

    /* Important: a page's own position for the map (the demo's sticky one) must not hold it in the page. */
    :host([fullscreen]) {
      position: fixed !important;
      inset: 0 !important;
      z-index: 2147483000;
      background: var(--_estate-surface);
      --_height: 100%;
    }

    .base {
      position: relative;
      height: 100%;
    }

    /* A phone beside a list (phone-layout.ts): the map fills the visible viewport less the page
       above it, the row of links under it and the switch; the list shows instead on "List". */
    :host([phone-show='map']:not([fullscreen])) {
      --_height: max(18rem, calc(100dvh - var(--_phone-top, 0px) - 7rem));
    }

    :host([phone-show='list']:not([fullscreen])) .base {
      display: none;
    }

    .phone-switch {
      position: fixed;
      left: 50%;
      bottom: max(0.75rem, env(safe-area-inset-bottom));
      translate: -50% 0;
      z-index: 1000;
      display: flex;
      padding: 0.25rem;
      gap: 0.25rem;
      border-radius: 999px;
      background: #1f2328;
      box-shadow: 0 2px 8px rgb(0 0 0 / 0.35);
    }

    .phone-switch button {
      min-width: 5.5rem;
      min-height: 44px;
      padding: 0 1.25rem;
      border: 0;
      border-radius: 999px;
      background: transparent;
      color: #ffffff;
      font-weight: 600;
      cursor: pointer;
    }

    .phone-switch button[aria-pressed='true'] {
      background: #ffffff;
      color: #1f2328;
    }

    .phone-switch button:focus-visible {
      outline: 3px solid #ffffff;
      outline-offset: 2px;
    }

    :host([fullscreen]) .phone-switch {
      display: none;
    }

    .frame {
      position: relative;
      height: var(--_height);
      overflow: hidden;
      overflow: clip;
      border-radius: var(--_estate-radius);
      border: 1px solid var(--_estate-border);
      background: var(--_ground);
    }

    :host([fullscreen]) .base {
      display: flex;
      flex-direction: column;
    }

    :host([fullscreen]) .frame {
      flex: 1;
      border-radius: 0;
    }

    .stage {
      position: absolute;
      inset: 0;
      /* clip, not only hidden: a hidden box still scrolls when a pin near its edge is focused or
         scrolled into view, which would shift every marker off its place. */
      overflow: hidden;
      overflow: clip;
      cursor: grab;
      /* An embedded map lets one finger scroll the page; two fingers are the map's (gestures.ts). */
      touch-action: pan-x pan-y;
      user-select: none;
      -webkit-user-select: none;
      /* Its own stacking order: a pin raised over the names never rises over the controls beside the stage. */
      isolation: isolate;
    }

    :host([fullscreen]) .stage {
      touch-action: none;
    }

    .stage:focus-visible {
      outline-offset: -4px;
    }

    .tiles,
    .label-tiles,
    .labels,
    .markers {
      position: absolute;
      inset: 0;
    }

    .labels,
    .label-tiles,
    .tiles {
      pointer-events: none;
    }

    /* The relay's labels layer: place names above the markers at rest, so a pin never hides a
       suburb's name; the pin pointed at, focused or open comes above them (z-index 3), so its price
       reads whole. It takes no pointer: a tap on a name over a pin is the pin's. */
    .label-tiles {
      z-index: 2;
    }

    .tile,
    .label-tile {
      position: absolute;
      left: 0;
      top: 0;
      max-width: none;
      transform-origin: 0 0;
    }

    .tile.failed,
    .label-tile.failed {
      visibility: hidden;
    }

    .label {
      position: absolute;
      left: 0;
      top: 0;
      /* Centred on its place (which the inline translate sets). */
      transform: translateX(-50%);
      font-size: 0.8125rem;
      font-weight: 600;
      color: #3d444d;
      white-space: nowrap;
    }

    .marker {
      position: absolute;
      left: 0;
      top: 0;
      display: grid;
      place-items: center;
      padding: 0;
      border: 2px solid #ffffff;
      border-radius: 50%;
      font: inherit;
      font-weight: 700;
      cursor: pointer;
      box-shadow: 0 1px 3px rgb(0 0 0 / 0.4);
    }

    /* A price pin: a label above its point, its tail on the point. Moved above its point by
       transform; lit, it grows about its middle (the origin is where the transform puts the
       middle: 13 px of half height and the 7 px tail above the point), so it stays under the pointer. */
    .pin {
      display: block;
      height: 26px;
      min-width: 28px;
      padding: 0 0.5rem;
      border-radius: 13px;
      transform: translate(-50%, calc(-100% - 7px));
      transform-origin: 0 -20px;
      background: var(--_pin);
      color: var(--_estate-accent-contrast, #ffffff);
      font-size: 0.8125rem;
      line-height: 22px;
      white-space: nowrap;
    }

    .pin::after {
      content: '';
      position: absolute;
      left: 50%;
      top: 100%;
      translate: -50% 1px;
      border: 6px solid transparent;
      border-top-color: var(--_pin);
      border-bottom: 0;
    }

    .pin.highlighted,
    .pin.open,
    .pin:hover {
      background: var(--_pin-lit);
      z-index: 3;
      scale: 1.2;
    }

    .pin.highlighted::after,
    .pin.open::after,
    .pin:hover::after {
      border-top-color: var(--_pin-lit);
    }

    .location-pin {
      width: 28px;
      height: 28px;
      min-width: 0;
      padding: 0;
      border-radius: 50%;
      transform: none;
      margin: -14px 0 0 -14px;
      display: grid;
    }

    .location-pin::after {
      position: static;
      translate: none;
      width: 8px;
      height: 8px;
      border: 0;
      border-radius: 50%;
      background: #ffffff;
    }

    .cluster {
      --_size: 32px;
      width: var(--_size);
      height: var(--_size);
      margin: calc(var(--_size) / -2) 0 0 calc(var(--_size) / -2);
      background: var(--_cluster);
      color: #ffffff;
      font-size: 0.8125rem;
    }

    .cluster.medium {
      --_size: 40px;
    }

    .cluster.large {
      --_size: 48px;
    }

    .marker:focus-visible {
      outline: 3px solid var(--_estate-focus);
      outline-offset: 2px;
      z-index: 3;
    }

    .area {
      position: absolute;
      left: 0;
      top: 0;
      width: 160px;
      height: 160px;
      margin: -80px 0 0 -80px;
      border-radius: 50%;
      border: 3px solid var(--_pin);
      background: color-mix(in srgb, var(--_pin) 18%, transparent);
    }

    .location-pin {
      cursor: default;
    }

    .top {
      position: absolute;
      top: 0.5rem;
      left: 0.5rem;
      /* Clear of the zoom buttons on the right. */
      max-width: calc(100% - 4rem);
      z-index: 3;
      /* The switch, then "Search this area" (or "Filters") under it when there is no room beside: never a button on two lines. */
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: flex-start;
      /* Only its controls take taps: a pin in the gap between them (or beside a wrapped row) is reachable. */
      pointer-events: none;
    }

    .top > * {
      pointer-events: auto;
    }

    .follow {
      display: inline-flex;
      align-items: center;
      gap: 0.5rem;
      min-height: 2.5rem;
      padding: 0.25rem 0.75rem 0.25rem 0.5rem;
      border: 1px solid var(--_estate-border);
      border-radius: 999px;
      background: var(--_estate-surface);
      font-size: 0.875rem;
      font-weight: 600;
      cursor: pointer;
      box-shadow: 0 1px 4px rgb(0 0 0 / 0.2);
    }

    .follow input {
      width: 1.125rem;
      height: 1.125rem;
      margin: 0;
      accent-color: var(--_estate-accent);
    }

    /* Under the close button: the card's text keeps its width. */
    .card .keep {
      position: absolute;
      top: 2.5rem;
      inset-inline-end: 0.375rem;
      display: grid;
      place-items: center;
      width: 2rem;
      height: 2rem;
      padding: 0;
      border: 0;
      border-radius: 50%;
      background: transparent;
      color: inherit;
      cursor: pointer;
    }

    .controls {
      position: absolute;
      top: 0.5rem;
      right: 0.5rem;
      z-index: 3;
      display: flex;
      flex-direction: column;
      gap: 0.25rem;
    }

    button {
      font: inherit;
    }

    .control {
      display: grid;
      place-items: center;
      width: 2.5rem;
      height: 2.5rem;
      padding: 0;
      border: 1px solid var(--_estate-border);
      border-radius: var(--_estate-radius);
      background: var(--_estate-surface);
      color: inherit;
      font-size: 1.375rem;
      line-height: 1;
      cursor: pointer;
    }

    .action {
      white-space: nowrap;
      min-height: 2.5rem;
      padding: 0.375rem 1rem;
      border: 1px solid var(--_estate-accent);
      border-radius: 999px;
      background: var(--_estate-accent);
      color: var(--_estate-accent-contrast);
      font-weight: 600;
      cursor: pointer;
      box-shadow: 0 1px 4px rgb(0 0 0 / 0.3);
    }

    .action.secondary {
      background: var(--_estate-surface);
      color: var(--_estate-accent);
    }

    .hint,
    .state {
      position: absolute;
      left: 50%;
      translate: -50% 0;
      z-index: 3;
      margin: 0;
      padding: 0.375rem 0.75rem;
      border-radius: var(--_estate-radius);
      background: rgb(31 35 40 / 0.9);
      color: #ffffff;
      font-size: 0.875rem;
      pointer-events: none;
    }

    .hint {
      top: 50%;
      translate: -50% -50%;
    }

    .state {
      bottom: 2.25rem;
    }

    .state.error {
      display: flex;
      align-items: center;
      gap: 0.75rem;
      pointer-events: auto;
      background: var(--_estate-surface);
      color: var(--_estate-danger);
      border: 1px solid currentColor;
    }

    .attribution {
      position: absolute;
      right: 0;
      bottom: 0;
      z-index: 3;
      margin: 0;
      padding: 0.125rem 0.375rem;
      background: rgb(255 255 255 / 0.9);
      color: #1f2328;
      font-size: 0.75rem;
      border-top-left-radius: 0.25rem;
    }

    .card {
      position: absolute;
      inset-inline-start: 0.5rem;
      bottom: 2rem;
      /* A sideways swipe is the card's own (the next pin); up and down still scroll the page. */
      touch-action: pan-y;
      z-index: 4;
      display: flex;
      gap: 0.75rem;
      width: min(24rem, calc(100% - 1rem));
      padding: 0.625rem;
      /* Room for the close button and the heart under it. */
      padding-inline-end: 2.75rem;
      min-height: 4.75rem;
      border: 1px solid var(--_estate-border);
      border-radius: var(--_estate-radius);
      background: var(--_estate-surface);
      box-shadow: 0 4px 16px rgb(0 0 0 / 0.25);
    }

    .card:focus-visible {
      outline: 3px solid var(--_estate-focus);
    }

    .card-image {
      flex: none;
      width: 7.5rem;
      height: 5rem;
      object-fit: cover;
      border-radius: calc(var(--_estate-radius) / 2);
    }

    .card-body {
      min-width: 0;
    }

    .card-body p {
      margin: 0;
    }

    .price {
      font-weight: 700;
    }

    .card-link {
      color: var(--_estate-accent);
      font-weight: 600;
    }

    /* Right to left, the steps' arrows point the other way (the map itself is never mirrored). */
    :host(:dir(rtl)) .step .icon {
      transform: scaleX(-1);
    }

    .card-steps {
      display: flex;
      gap: 0.5rem;
      margin-top: 0.375rem;
    }

    .step {
      display: grid;
      place-items: center;
      width: 2rem;
      height: 2rem;
      padding: 0;
      border: 1px solid var(--_estate-border);
      border-radius: 50%;
      background: transparent;
      color: inherit;
      cursor: pointer;
    }

    .features {
      display: flex;
      gap: 0.75rem;
      margin: 0.25rem 0 0;
      padding: 0;
      list-style: none;
    }

    .close {
      position: absolute;
      top: 0.375rem;
      inset-inline-end: 0.375rem;
      display: grid;
      place-items: center;
      width: 2rem;
      height: 2rem;
      padding: 0;
      border: 0;
      border-radius: 50%;
      background: transparent;
      color: inherit;
      cursor: pointer;
    }

    .list-toggle {
      margin-top: 0.5rem;
      padding: 0.375rem 0;
      min-height: 2rem;
      border: 0;
      background: none;
      color: var(--_estate-accent);
      text-decoration: underline;
      cursor: pointer;
    }

    /* "Get alerts" beside "List the properties": apart, as two links are. */
    .list-toggle + .list-toggle {
      margin-inline-start: 1.25rem;
    }

    :host([fullscreen]) .list-toggle,
    :host([fullscreen]) #view-list {
      display: none;
    }

    .view-list ul {
      margin: 0.5rem 0;
      padding-inline-start: 1.25rem;
    }

    .view-list li {
      margin: 0.25rem 0;
    }

    .view-list a {
      color: var(--_estate-accent);
    }

    .list-price {
      margin-inline-start: 0.5rem;
      color: var(--_estate-muted);
    }

    .list-heading {
      font-weight: 600;
      margin: 0.5rem 0 0;
    }

    .location {
      margin: 0;
      --_height: var(--estate-map-height, 14rem);
    }

    .location .stage {
      position: relative;
      height: var(--_height);
      overflow: hidden;
      border-radius: var(--_estate-radius);
      border: 1px solid var(--_estate-border);
      background: var(--_ground);
      cursor: default;
    }

    .caption {
      margin-top: 0.25rem;
      color: var(--_estate-muted);
      font-size: 0.875rem;
    }

    .location .attribution {
      bottom: auto;
      top: calc(var(--_height) - 1.375rem);
    }
  `,
];
