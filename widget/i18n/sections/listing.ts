import type { SectionLoaders } from '../../shared/translations.ts';

/** The `listing` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/listing.ts'),
  ar: () => import('../ar/listing.ts'),
  vi: () => import('../vi/listing.ts'),
  el: () => import('../el/listing.ts'),
  ko: () => import('../ko/listing.ts'),
  it: () => import('../it/listing.ts'),
  'zh-Hant': () => import('../zh-Hant/listing.ts'),
  es: () => import('../es/listing.ts'),
  hi: () => import('../hi/listing.ts'),
} satisfies SectionLoaders;
