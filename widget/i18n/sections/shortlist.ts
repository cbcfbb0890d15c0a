import type { SectionLoaders } from '../../shared/translations.ts';

/** The `shortlist` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/shortlist.ts'),
  ar: () => import('../ar/shortlist.ts'),
  vi: () => import('../vi/shortlist.ts'),
  el: () => import('../el/shortlist.ts'),
  ko: () => import('../ko/shortlist.ts'),
  it: () => import('../it/shortlist.ts'),
  'zh-Hant': () => import('../zh-Hant/shortlist.ts'),
  es: () => import('../es/shortlist.ts'),
  hi: () => import('../hi/shortlist.ts'),
} satisfies SectionLoaders;
