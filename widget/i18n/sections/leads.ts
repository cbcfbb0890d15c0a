import type { SectionLoaders } from '../../shared/translations.ts';

/** The `leads` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/leads.ts'),
  ar: () => import('../ar/leads.ts'),
  vi: () => import('../vi/leads.ts'),
  el: () => import('../el/leads.ts'),
  ko: () => import('../ko/leads.ts'),
  it: () => import('../it/leads.ts'),
  'zh-Hant': () => import('../zh-Hant/leads.ts'),
  es: () => import('../es/leads.ts'),
  hi: () => import('../hi/leads.ts'),
} satisfies SectionLoaders;
