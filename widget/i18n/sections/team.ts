import type { SectionLoaders } from '../../shared/translations.ts';

/** The `team` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/team.ts'),
  ar: () => import('../ar/team.ts'),
  vi: () => import('../vi/team.ts'),
  el: () => import('../el/team.ts'),
  ko: () => import('../ko/team.ts'),
  it: () => import('../it/team.ts'),
  'zh-Hant': () => import('../zh-Hant/team.ts'),
  es: () => import('../es/team.ts'),
  hi: () => import('../hi/team.ts'),
} satisfies SectionLoaders;
