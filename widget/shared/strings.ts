// Words merged over words: a language over the base language (translations.ts), and the host's
// overrides (the `strings` property or JSON attribute) over the language's.

/** Merges host overrides (property or JSON attribute) over the defaults, one level deep for maps. */
export function mergeStrings<T extends object>(defaults: T, overrides: unknown): T {
  if (!overrides || typeof overrides !== 'object') return defaults;
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [key, value] of Object.entries(overrides as Record<string, unknown>)) {
    if (!(key in defaults)) continue;
    const base = (defaults as Record<string, unknown>)[key];
    if (typeof base === 'string' && typeof value === 'string') merged[key] = value;
    else if (base && typeof base === 'object' && value && typeof value === 'object') merged[key] = { ...base, ...value };
    // A plain string where plural forms are expected applies to every count.
    else if (base && typeof base === 'object' && typeof value === 'string') merged[key] = { other: value };
  }
  return merged as T;
}
