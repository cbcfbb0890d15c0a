// What a language's words must be beside en-AU's (the elements' sections, the relay's page words,
// its e-mail words): every key, none left in English, the same {placeholders}, and for a plural
// every category of the language and no other (a form for one number may say it in words and
// leave {count} out, never add a placeholder). The problems found, one line each (none: []).

type Plural = Record<string, string> & { other: string };

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).sort();
const hasWords = (text: string) => /\p{L}/u.test(text.replace(/\{\w+\}/g, ''));

const isPlural = (value: unknown): value is Plural => typeof value === 'object' && value !== null && 'other' in value;

/** `sameAsEnglish`: keys (as `key` or `outer.inner`) whose words a language really shares with English (Ctrl, an example address). */
export function wordProblems(code: string, english: object, words: object, sameAsEnglish: (key: string) => boolean = () => false): string[] {
  const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories as string[];
  const problems: string[] = [];
  check(english, words as Record<string, unknown>, '');
  for (const key of Object.keys(words)) if (!(key in english)) problems.push(`${key}: not a key of en-AU`);
  return problems;

  function check(englishWords: object, theirs: Record<string, unknown>, prefix: string): void {
    for (const [name, en] of Object.entries(englishWords)) {
      const key = `${prefix}${name}`;
      const value = theirs[name];
      if (value === undefined) problems.push(`${key}: missing`);
      else if (typeof en === 'string') {
        if (typeof value !== 'string') problems.push(`${key}: not a string`);
        else {
          if (hasWords(en) && value === en && !sameAsEnglish(key)) problems.push(`${key}: left in English`);
          if (placeholders(value).join() !== placeholders(en).join()) problems.push(`${key}: placeholders ${placeholders(value)}, English ${placeholders(en)}`);
        }
      } else if (!isPlural(en)) {
        if (typeof value !== 'object' || value === null) problems.push(`${key}: not an object`);
        else check(en, value as Record<string, unknown>, `${key}.`);
      } else {
        if (!isPlural(value)) {
          problems.push(`${key}: no plural forms`);
          continue;
        }
        const forms = value;
        const enOther = (en as Plural).other;
        for (const category of categories) if (!(category in forms)) problems.push(`${key}: no "${category}" form`);
        for (const [category, form] of Object.entries(forms)) {
          if (!categories.includes(category)) problems.push(`${key}: "${category}" is no plural category of ${code}`);
          if (placeholders(form).some((placeholder) => !placeholders(enOther).includes(placeholder)))
            problems.push(`${key}.${category}: a placeholder English has not`);
          if (hasWords(form) && Object.values(en as Plural).includes(form)) problems.push(`${key}.${category}: left in English`);
        }
        if (placeholders(forms.other).join() !== placeholders(enOther).join()) problems.push(`${key}.other: placeholders differ from English's`);
      }
    }
  }
}
