import type { SectionLoaders } from '../../shared/translations.ts';

/** The `similarListings` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/similarListings.ts'),
  ar: () => import('../ar/similarListings.ts'),
  vi: () => import('../vi/similarListings.ts'),
  el: () => import('../el/similarListings.ts'),
  ko: () => import('../ko/similarListings.ts'),
  it: () => import('../it/similarListings.ts'),
  'zh-Hant': () => import('../zh-Hant/similarListings.ts'),
  es: () => import('../es/similarListings.ts'),
  hi: () => import('../hi/similarListings.ts'),
} satisfies SectionLoaders;
