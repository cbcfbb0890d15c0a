import type { SectionLoaders } from '../../shared/translations.ts';

/** The `recentlyViewed` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/recentlyViewed.ts'),
  ar: () => import('../ar/recentlyViewed.ts'),
  vi: () => import('../vi/recentlyViewed.ts'),
  el: () => import('../el/recentlyViewed.ts'),
  ko: () => import('../ko/recentlyViewed.ts'),
  it: () => import('../it/recentlyViewed.ts'),
  'zh-Hant': () => import('../zh-Hant/recentlyViewed.ts'),
  es: () => import('../es/recentlyViewed.ts'),
  hi: () => import('../hi/recentlyViewed.ts'),
} satisfies SectionLoaders;
