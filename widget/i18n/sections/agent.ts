import type { SectionLoaders } from '../../shared/translations.ts';

/** The `agent` words of each built-in language (languages.ts), each its own chunk, fetched by a page in that language. */
export default {
  'zh-Hans': () => import('../zh-Hans/agent.ts'),
  ar: () => import('../ar/agent.ts'),
  vi: () => import('../vi/agent.ts'),
  el: () => import('../el/agent.ts'),
  ko: () => import('../ko/agent.ts'),
  it: () => import('../it/agent.ts'),
  'zh-Hant': () => import('../zh-Hant/agent.ts'),
  es: () => import('../es/agent.ts'),
  hi: () => import('../hi/agent.ts'),
} satisfies SectionLoaders;
