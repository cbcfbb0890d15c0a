import type { SectionLoaders } from '../../shared/translations.ts';

/** The `enquiry` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/enquiry.ts'),
  ar: () => import('../ar/enquiry.ts'),
  vi: () => import('../vi/enquiry.ts'),
  el: () => import('../el/enquiry.ts'),
  ko: () => import('../ko/enquiry.ts'),
  it: () => import('../it/enquiry.ts'),
  'zh-Hant': () => import('../zh-Hant/enquiry.ts'),
  es: () => import('../es/enquiry.ts'),
  hi: () => import('../hi/enquiry.ts'),
} satisfies SectionLoaders;
