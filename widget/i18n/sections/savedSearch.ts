import type { SectionLoaders } from '../../shared/translations.ts';

/** The `savedSearch` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/savedSearch.ts'),
  ar: () => import('../ar/savedSearch.ts'),
  vi: () => import('../vi/savedSearch.ts'),
  el: () => import('../el/savedSearch.ts'),
  ko: () => import('../ko/savedSearch.ts'),
  it: () => import('../it/savedSearch.ts'),
  'zh-Hant': () => import('../zh-Hant/savedSearch.ts'),
  es: () => import('../es/savedSearch.ts'),
  hi: () => import('../hi/savedSearch.ts'),
} satisfies SectionLoaders;
