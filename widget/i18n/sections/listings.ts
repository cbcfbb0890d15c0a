import type { SectionLoaders } from '../../shared/translations.ts';

/** The `listings` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/listings.ts'),
  ar: () => import('../ar/listings.ts'),
  vi: () => import('../vi/listings.ts'),
  el: () => import('../el/listings.ts'),
  ko: () => import('../ko/listings.ts'),
  it: () => import('../it/listings.ts'),
  'zh-Hant': () => import('../zh-Hant/listings.ts'),
  es: () => import('../es/listings.ts'),
  hi: () => import('../hi/listings.ts'),
} satisfies SectionLoaders;
