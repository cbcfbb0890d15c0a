import { html, nothing, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { Photo } from '../../contract/relay-api.ts';
import { relayUrl } from '../shared/relay.ts';

/**
 * Responsive photos from the relay's mirror: a `<picture>` with a WebP `srcset` and a JPEG
 * fallback, `sizes` from the layout, and the intrinsic `width`/`height` so the browser reserves
 * the box before a byte arrives. Photo URLs may be relay-relative, so they are resolved against
 * the relay rather than the host page.
 */
export interface PictureOptions {
  relay: string | null | undefined;
  sizes: string;
  alt: string;
  loading?: 'lazy' | 'eager';
  fetchPriority?: 'high' | 'low' | 'auto';
  part?: string;
  /** Extra class on the img (layout). */
  className?: string;
}

function absolute(relay: string | null | undefined, url: string): string {
  if (/^(https?:)?\/\//i.test(url) || url.startsWith('data:') || url.startsWith('blob:')) return url;
  return relayUrl(relay, url);
}

/** Rewrites each candidate of a `srcset` string ("a.webp 320w, b.webp 640w") to an absolute URL. */
export function resolveSrcset(relay: string | null | undefined, srcset: string): string {
  return srcset
    .split(/,\s+/)
    .map((candidate) => candidate.trim())
    .filter(Boolean)
    .map((candidate) => {
      const [url, ...descriptor] = candidate.split(/\s+/);
      return [absolute(relay, url!), ...descriptor].join(' ');
    })
    .join(', ');
}

export function photoSrcset(relay: string | null | undefined, photo: Photo, format: 'webp' | 'jpeg'): string {
  const variants = (photo.variants ?? []).filter((variant) => variant.format === format).sort((a, b) => a.width - b.width);
  if (variants.length) return variants.map((variant) => `${absolute(relay, variant.url)} ${variant.width}w`).join(', ');
  return photo.srcset?.[format] ? resolveSrcset(relay, photo.srcset[format]) : '';
}

/** The largest JPEG the relay made (for a lightbox, an external viewer or JSON-LD). */
export function largestPhotoUrl(relay: string | null | undefined, photo: Photo): string {
  const jpegs = (photo.variants ?? []).filter((variant) => variant.format === 'jpeg').sort((a, b) => b.width - a.width);
  return absolute(relay, jpegs[0]?.url ?? photo.url);
}

export function photoUrl(relay: string | null | undefined, photo: Photo): string {
  return absolute(relay, photo.url);
}

export function renderPicture(photo: Photo, options: PictureOptions): TemplateResult {
  const webp = photoSrcset(options.relay, photo, 'webp');
  const jpeg = photoSrcset(options.relay, photo, 'jpeg');
  return html`<picture part=${ifDefined(options.part ? `${options.part}-picture` : undefined)}>
    ${webp ? html`<source type="image/webp" srcset=${webp} sizes=${options.sizes} />` : nothing}
    <img
      part=${ifDefined(options.part)}
      class=${ifDefined(options.className)}
      src=${photoUrl(options.relay, photo)}
      srcset=${ifDefined(jpeg || undefined)}
      sizes=${ifDefined(jpeg ? options.sizes : undefined)}
      width=${photo.width}
      height=${photo.height}
      alt=${options.alt}
      loading=${options.loading ?? 'lazy'}
      decoding="async"
      fetchpriority=${options.fetchPriority ?? 'auto'}
    />
  </picture>`;
}
