/**
 * The pseudo-locale of the project's own tests (`en-XA`): en-AU's words with every letter accented
 * and about 40 % longer, in brackets: `[Ŝéàŕçĥ ···]`. A test in it finds any word not taken from
 * the registry (it shows unbracketed, unaccented) and any box that breaks when words grow.
 * `{placeholders}` stay as they are. Made from the words registered when it is called, never
 * shipped: no element imports this module.
 */
import { registerTranslation, wordsFor, type Section, type Translation } from '../shared/localize.ts';
import { PSEUDO_LOCALE } from './languages.ts';

const ACCENTED: Record<string, string> = {
  a: 'à',
  b: 'ƀ',
  c: 'ç',
  d: 'ð',
  e: 'é',
  f: 'ƒ',
  g: 'ĝ',
  h: 'ĥ',
  i: 'î',
  j: 'ĵ',
  k: 'ķ',
  l: 'ļ',
  m: 'ɱ',
  n: 'ñ',
  o: 'ö',
  p: 'þ',
  q: 'ǫ',
  r: 'ŕ',
  s: 'š',
  t: 'ţ',
  u: 'û',
  v: 'ṽ',
  w: 'ŵ',
  x: 'ẋ',
  y: 'ý',
  z: 'ž',
  A: 'À',
  B: 'Ɓ',
  C: 'Ç',
  D: 'Ð',
  E: 'É',
  F: 'Ƒ',
  G: 'Ĝ',
  H: 'Ĥ',
  I: 'Î',
  J: 'Ĵ',
  K: 'Ķ',
  L: 'Ļ',
  M: 'Ṁ',
  N: 'Ñ',
  O: 'Ö',
  P: 'Þ',
  Q: 'Ǫ',
  R: 'Ŕ',
  S: 'Ŝ',
  T: 'Ţ',
  U: 'Û',
  V: 'Ṽ',
  W: 'Ŵ',
  X: 'Ẋ',
  Y: 'Ý',
  Z: 'Ž',
};

/** Every section's words, accented and lengthened, except `{placeholders}`. */
export function pseudoLocalize(text: string): string {
  const accented = text
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? part : part.replace(/[A-Za-z]/g, (letter) => ACCENTED[letter] ?? letter)))
    .join('');
  // About 40 % longer, as German or Greek often is: padding after the text, at least one dot.
  const padding = '·'.repeat(Math.max(1, Math.round(text.replace(/\{\w+\}/g, '').length * 0.4)));
  return `[${accented} ${padding}]`;
}

function pseudoWords(words: unknown): unknown {
  if (typeof words === 'string') return pseudoLocalize(words);
  if (words && typeof words === 'object') return Object.fromEntries(Object.entries(words).map(([key, value]) => [key, pseudoWords(value)]));
  return words;
}

const SECTIONS: Section[] = [
  'listings',
  'listing',
  'enquiry',
  'leads',
  'shortlist',
  'map',
  'savedSearch',
  'similarListings',
  'recentlyViewed',
  'team',
  'agent',
];

/**
 * Registers `en-XA` from the en-AU words registered now: call it once the elements under test are
 * imported (a section registered later, as the filter bar's words are, needs another call).
 * `propertyTypes`, a list the appraisal form splits on `|`, keeps its separators.
 */
export function registerPseudoLocale(): void {
  const translation: Record<string, unknown> = { $code: PSEUDO_LOCALE };
  for (const section of SECTIONS) {
    const words = wordsFor(section, 'en-AU') as unknown;
    if (!words) continue;
    const pseudo = pseudoWords(words) as Record<string, unknown>;
    if (section === 'leads')
      pseudo.propertyTypes = String((words as { propertyTypes: string }).propertyTypes)
        .split('|')
        .map(pseudoLocalize)
        .join('|');
    translation[section] = pseudo;
  }
  registerTranslation(translation as Translation);
}
