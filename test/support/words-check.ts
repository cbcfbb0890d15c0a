// What a language's words must be beside en-AU's (the relay's page words, its e-mail words): every
// key, none left in English, the same {placeholders}, and for a plural every category of the
// language and no other. The problems found, one line each (none: an empty list).

type Plural = Record<string, string> & { other: string };

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).sort();
const hasWords = (text: string) => /\p{L}/u.test(text.replace(/\{\w+\}/g, ''));

export function wordProblems(code: string, english: object, words: object): string[] {
  const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories as string[];
  const theirs = words as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, en] of Object.entries(english)) {
    const value = theirs[key];
    if (value === undefined) problems.push(`${key}: missing`);
    else if (typeof en === 'string') {
      if (typeof value !== 'string') problems.push(`${key}: not a string`);
      else {
        if (hasWords(en) && value === en) problems.push(`${key}: left in English`);
        if (placeholders(value).join() !== placeholders(en).join()) problems.push(`${key}: placeholders ${placeholders(value)}, English ${placeholders(en)}`);
      }
    } else {
      const forms = value as Plural;
      const enOther = (en as Plural).other;
      for (const category of categories) if (!(category in forms)) problems.push(`${key}: no "${category}" form`);
      for (const [category, form] of Object.entries(forms)) {
        if (!categories.includes(category)) problems.push(`${key}: "${category}" is no plural category of ${code}`);
        if (placeholders(form).some((name) => !placeholders(enOther).includes(name))) problems.push(`${key}.${category}: a placeholder English has not`);
        if (Object.values(en as Plural).includes(form)) problems.push(`${key}.${category}: left in English`);
      }
      if (placeholders(forms.other).join() !== placeholders(enOther).join()) problems.push(`${key}.other: placeholders differ from English's`);
    }
  }
  for (const key of Object.keys(theirs)) if (!(key in english)) problems.push(`${key}: not a key of en-AU`);
  return problems;
}
