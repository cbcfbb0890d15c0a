import { css, html, nothing, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import type { Photo } from '../../contract/relay-api.ts';
import { resetStyles } from '../shared/reset.styles.ts';
import { fill, formatNumber, resolveLocale } from '../shared/format.ts';
import { renderPicture } from '../shared/picture.ts';
import { chevronLeft, chevronRight, closeIcon } from '../shared/icons.ts';
import { type ListingStrings } from '../listing/strings.ts';
import '../listing/strings.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';

/** A horizontal move this long (CSS px), and mostly sideways, is a swipe. */
const SWIPE_DISTANCE = 40;

export interface LightboxChangeDetail {
  index: number;
  open: boolean;
}

/**
 * A full-screen photo viewer in a modal `<dialog>`: arrow keys, Home/End and swipes move between
 * photos, Escape or the close button closes it and focus goes back to what opened it; Tab stays
 * inside while it is open. Slides animate only when the visitor has not asked for reduced motion.
 * Used by `<estate-listing>`; usable alone through `show()`.
 *
 * @summary Modal photo viewer with keyboard, swipe and focus handling.
 *
 * @attr relay - Base URL of the relay (photo URLs may be relative to it).
 * @attr label - Accessible name of the dialog.
 * @attr locale - Locale for the counter's numbers.
 *
 * @csspart lightbox - The dialog.
 * @csspart lightbox-counter - "3 of 12" and the caption (a live region).
 * @csspart lightbox-close - The close button.
 * @csspart lightbox-stage - The photo area (swipe here).
 * @csspart lightbox-image - The photo.
 * @csspart lightbox-previous - Previous photo button.
 * @csspart lightbox-next - Next photo button.
 *
 * @cssprop --estate-lightbox-backdrop - Colour behind the photo (default near-black).
 *
 * @fires {CustomEvent<LightboxChangeDetail>} estate-lightbox-change - Opened, closed or moved.
 */
export class EstateLightbox extends EstateElement {
  static override localizedSections: Section[] = ['listing'];
  static override properties = {
    label: { type: String },
    locale: { type: String },
    strings: { attribute: false },
    photos: { state: true },
    index: { state: true },
    direction: { state: true },
  };

  declare label: string;
  declare locale: string | null;
  /** Its words (the `listing` section); `<estate-listing>` hands down its own. Default: the page's language. */
  declare strings: Partial<ListingStrings> | null;
  declare protected photos: Photo[];

  declare protected index: number;
  declare protected direction: 'next' | 'previous' | 'none';

  private opener: HTMLElement | null = null;
  private swipeStart: { id: number; x: number; y: number } | null = null;

  constructor() {
    super();
    this.label = '';
    this.locale = null;
    this.strings = null;
    this.photos = [];
    this.index = 0;
    this.direction = 'none';
  }

  get open(): boolean {
    return this.dialog?.open ?? false;
  }

  /** The photo shown now (0-based). */
  get currentIndex(): number {
    return this.index;
  }

  private get dialog(): HTMLDialogElement | null {
    return this.renderRoot?.querySelector('dialog') ?? null;
  }

  /** Opens the viewer on `photos[index]`; focus returns to `opener` (default: the focused element) on close. */
  async show(photos: Photo[], index = 0, opener: HTMLElement | null = null): Promise<void> {
    if (!photos.length) return;
    this.opener = opener ?? deepActiveElement();
    this.photos = photos;
    this.index = clamp(index, photos.length);
    this.direction = 'none';
    await this.updateComplete;
    const dialog = this.dialog;
    if (dialog && !dialog.open) dialog.showModal();
    this.emitChange();
  }

  close(): void {
    if (this.dialog?.open) this.dialog.close();
  }

  /** Moves by `step` photos, wrapping around at either end. */
  move(step: number): void {
    if (this.photos.length < 2) return;
    this.direction = step > 0 ? 'next' : 'previous';
    this.index = (this.index + step + this.photos.length) % this.photos.length;
    this.emitChange();
  }

  private goTo(index: number): void {
    if (index === this.index) return;
    this.direction = index > this.index ? 'next' : 'previous';
    this.index = clamp(index, this.photos.length);
    this.emitChange();
  }

  private emitChange(): void {
    this.emit<LightboxChangeDetail>('estate-lightbox-change', { index: this.index, open: this.open });
  }

  private onKeydown(event: KeyboardEvent): void {
    switch (event.key) {
      // Right to left, the next photo is the one to the left.
      case 'ArrowRight':
        event.preventDefault();
        this.move(this.matches(':dir(rtl)') ? -1 : 1);
        break;
      case 'ArrowLeft':
        event.preventDefault();
        this.move(this.matches(':dir(rtl)') ? 1 : -1);
        break;
      case 'Home':
        event.preventDefault();
        this.goTo(0);
        break;
      case 'End':
        event.preventDefault();
        this.goTo(this.photos.length - 1);
        break;
      case 'Tab':
        this.keepFocusInside(event);
        break;
      default:
    }
  }

  /** A modal dialog makes the page inert, but Tab would still leave for the browser's own UI. */
  private keepFocusInside(event: KeyboardEvent): void {
    const focusable = [...this.renderRoot.querySelectorAll<HTMLElement>('dialog button:not([disabled]):not([hidden])')];
    if (!focusable.length) return;
    const active = (this.renderRoot as ShadowRoot).activeElement;
    const position = active ? focusable.indexOf(active as HTMLElement) : -1;
    const nextPosition = event.shiftKey ? (position <= 0 ? focusable.length - 1 : position - 1) : position >= focusable.length - 1 ? 0 : position + 1;
    event.preventDefault();
    focusable[nextPosition]!.focus();
  }

  private onClose(): void {
    const opener = this.opener;
    this.opener = null;
    this.swipeStart = null;
    if (opener?.isConnected) opener.focus();
    this.emitChange();
  }

  private onDialogClick(event: MouseEvent): void {
    // A click on the backdrop (the dialog box itself, outside its content) closes.
    if (event.target === this.dialog) this.close();
  }

  private onPointerDown(event: PointerEvent): void {
    if (event.pointerType === 'mouse' && event.button !== 0) return;
    this.swipeStart = { id: event.pointerId, x: event.clientX, y: event.clientY };
  }

  private onPointerUp(event: PointerEvent): void {
    const start = this.swipeStart;
    this.swipeStart = null;
    if (!start || start.id !== event.pointerId) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    if (Math.abs(dx) >= SWIPE_DISTANCE && Math.abs(dx) > Math.abs(dy) * 1.5) this.move(dx < 0 !== this.matches(':dir(rtl)') ? 1 : -1);
  }

  private onPointerCancel(): void {
    this.swipeStart = null;
  }

  override render(): TemplateResult {
    const text = this.localize.words('listing', this.strings);
    const locale = resolveLocale(this.locale, this.localize.lang);
    const photo = this.photos[this.index];
    const several = this.photos.length > 1;
    const counter = fill(text.lightboxCounter, {
      index: formatNumber(locale, this.index + 1),
      total: formatNumber(locale, this.photos.length),
    });
    return html`<dialog part="lightbox" aria-label=${this.label || text.photos} @keydown=${this.onKeydown} @close=${this.onClose} @click=${this.onDialogClick}>
      <div class="top">
        <p part="lightbox-counter" class="counter" aria-live="polite" aria-atomic="true">
          ${counter}${photo?.caption ? html`<span class="caption"> · ${photo.caption}</span>` : nothing}
        </p>
        <button type="button" part="lightbox-close" class="round" aria-label=${text.close} @click=${this.close}>
          <svg viewBox="0 0 24 24" aria-hidden="true">${closeIcon}</svg>
        </button>
      </div>
      <div
        part="lightbox-stage"
        class="stage"
        data-direction=${this.direction}
        @pointerdown=${this.onPointerDown}
        @pointerup=${this.onPointerUp}
        @pointercancel=${this.onPointerCancel}
      >
        ${
          photo
            ? keyed(
                `${this.index}:${photo.id}`,
                renderPicture(photo, {
                  relay: this.relay,
                  sizes: '100vw',
                  alt: photo.caption ?? '',
                  loading: 'eager',
                  part: 'lightbox-image',
                  className: 'photo',
                }),
              )
            : nothing
        }
      </div>
      <button type="button" part="lightbox-previous" class="round nav previous" aria-label=${text.previous} ?hidden=${!several} @click=${() => this.move(-1)}>
        <svg viewBox="0 0 24 24" aria-hidden="true">${chevronLeft}</svg>
      </button>
      <button type="button" part="lightbox-next" class="round nav next" aria-label=${text.next} ?hidden=${!several} @click=${() => this.move(1)}>
        <svg viewBox="0 0 24 24" aria-hidden="true">${chevronRight}</svg>
      </button>
    </dialog>`;
  }

  static override styles = [
    resetStyles,
    css`
      :host {
        display: contents;
      }

      dialog {
        width: 100vw;
        max-width: 100vw;
        height: 100dvh;
        max-height: 100dvh;
        margin: 0;
        padding: 0;
        border: 0;
        background: var(--estate-lightbox-backdrop, #0b0f14);
        color: #f6f8fa;
        overflow: hidden;
      }

      dialog::backdrop {
        background: var(--estate-lightbox-backdrop, #0b0f14);
      }

      dialog[open] {
        display: grid;
        grid-template-rows: auto minmax(0, 1fr);
      }

      .top {
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 1rem;
        padding: 0.5rem 0.75rem 0.5rem 1rem;
      }

      .counter {
        margin: 0;
        font-weight: 600;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }

      .caption {
        font-weight: 400;
      }

      .stage {
        position: relative;
        min-height: 0;
        /* Horizontal gestures are ours (swipe); vertical ones still scroll and pinch still zooms. */
        touch-action: pan-y pinch-zoom;
        user-select: none;
      }

      /* Absolutely placed, so the photo's limits resolve against a definite box. */
      .stage picture {
        position: absolute;
        inset: 0 0.5rem 1rem;
        display: flex;
        align-items: center;
        justify-content: center;
      }

      .photo {
        max-width: 100%;
        max-height: 100%;
        width: auto;
        height: auto;
        object-fit: contain;
        -webkit-user-drag: none;
      }

      @media (prefers-reduced-motion: no-preference) {
        .stage[data-direction='next'] .photo {
          animation: estate-slide-from-right 220ms ease-out;
        }

        .stage[data-direction='previous'] .photo {
          animation: estate-slide-from-left 220ms ease-out;
        }
      }

      @keyframes estate-slide-from-right {
        from {
          opacity: 0;
          transform: translateX(2.5rem);
        }
      }

      @keyframes estate-slide-from-left {
        from {
          opacity: 0;
          transform: translateX(-2.5rem);
        }
      }

      .round {
        display: inline-grid;
        place-items: center;
        width: 3rem;
        height: 3rem;
        padding: 0;
        border: 1px solid rgb(255 255 255 / 0.35);
        border-radius: 50%;
        background: rgb(11 15 20 / 0.75);
        color: #ffffff;
        cursor: pointer;
      }

      .round:hover {
        background: rgb(40 48 58 / 0.9);
      }

      .round svg {
        width: 1.5rem;
        height: 1.5rem;
        fill: none;
        stroke: currentColor;
        stroke-width: 2;
        stroke-linecap: round;
        stroke-linejoin: round;
      }

      .nav {
        position: absolute;
        top: 50%;
        transform: translateY(-50%);
      }

      .previous {
        inset-inline-start: 0.75rem;
      }

      .next {
        inset-inline-end: 0.75rem;
      }

      /* Right to left the next photo is to the left: the buttons change sides, their arrows and the slide turn round (the photos are never mirrored). */
      :host(:dir(rtl)) .nav svg {
        transform: scaleX(-1);
      }

      @media (prefers-reduced-motion: no-preference) {
        :host(:dir(rtl)) .stage[data-direction='next'] .photo {
          animation-name: estate-slide-from-left;
        }

        :host(:dir(rtl)) .stage[data-direction='previous'] .photo {
          animation-name: estate-slide-from-right;
        }
      }

      :focus-visible {
        outline: 3px solid #ffffff;
        outline-offset: 2px;
      }
    `,
  ];
}

function clamp(index: number, length: number): number {
  return Math.min(Math.max(0, Math.floor(index) || 0), Math.max(0, length - 1));
}

/** The focused element, looking through open shadow roots. */
function deepActiveElement(): HTMLElement | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-lightbox': EstateLightbox;
  }
  interface GlobalEventHandlersEventMap {
    'estate-lightbox-change': CustomEvent<LightboxChangeDetail>;
  }
}
