import type { SectionLoaders } from '../../shared/translations.ts';

/** The `map` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/map.ts'),
  ar: () => import('../ar/map.ts'),
  vi: () => import('../vi/map.ts'),
  el: () => import('../el/map.ts'),
  ko: () => import('../ko/map.ts'),
  it: () => import('../it/map.ts'),
  'zh-Hant': () => import('../zh-Hant/map.ts'),
  es: () => import('../es/map.ts'),
  hi: () => import('../hi/map.ts'),
} satisfies SectionLoaders;
