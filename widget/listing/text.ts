/**
 * The CRM's descriptions are plain text with `\r\n` line breaks and HTML entities (`&#x2022;`,
 * `&amp;`). We decode the entities ourselves, as pure string work, and render the result as text
 * nodes: nothing here ever reaches an HTML parser, so `<img onerror=…>` in a description stays
 * the characters a reader sees.
 */

/** Named entities seen in agency copy; anything else is left as written. */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  bull: '\u2022',
  middot: '\u00b7',
  lsquo: '\u2018',
  rsquo: '\u2019',
  sbquo: '\u201a',
  ldquo: '\u201c',
  rdquo: '\u201d',
  bdquo: '\u201e',
  laquo: '\u00ab',
  raquo: '\u00bb',
  prime: '\u2032',
  Prime: '\u2033',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  deg: '\u00b0',
  sup2: '\u00b2',
  sup3: '\u00b3',
  frac12: '\u00bd',
  frac14: '\u00bc',
  frac34: '\u00be',
  times: '\u00d7',
  divide: '\u00f7',
  plusmn: '\u00b1',
  euro: '\u20ac',
  pound: '\u00a3',
  cent: '\u00a2',
  yen: '\u00a5',
  sect: '\u00a7',
  para: '\u00b6',
  eacute: '\u00e9',
  Eacute: '\u00c9',
  egrave: '\u00e8',
  ecirc: '\u00ea',
  euml: '\u00eb',
  aacute: '\u00e1',
  agrave: '\u00e0',
  acirc: '\u00e2',
  auml: '\u00e4',
  aring: '\u00e5',
  iacute: '\u00ed',
  icirc: '\u00ee',
  iuml: '\u00ef',
  oacute: '\u00f3',
  ocirc: '\u00f4',
  ouml: '\u00f6',
  uacute: '\u00fa',
  ucirc: '\u00fb',
  uuml: '\u00fc',
  ccedil: '\u00e7',
  ntilde: '\u00f1',
  szlig: '\u00df',
  rarr: '\u2192',
  larr: '\u2190',
  check: '\u2713',
  star: '\u2606',
  hearts: '\u2665',
  shy: '\u00ad',
};

/** Decodes numeric (`&#8211;`, `&#x2022;`) and the named entities above. Invalid code points become U+FFFD. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z][a-z0-9]{1,31});/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const codePoint = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      const valid = codePoint > 0 && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff);
      return valid ? String.fromCodePoint(codePoint) : '\ufffd';
    }
    return NAMED[body] ?? whole;
  });
}

/**
 * Splits a description into paragraphs (blank lines) of lines (single breaks), decoded.
 * The element renders each paragraph as a `<p>` and each line break as a `<br>`, all text nodes.
 */
export function descriptionParagraphs(description: string | null | undefined): string[][] {
  if (!description) return [];
  const normalised = decodeEntities(description).replace(/\r\n?/g, '\n');
  return normalised
    .split(/\n[ \t\u00a0]*\n+/)
    .map((paragraph) =>
      paragraph
        .trim()
        .split('\n')
        .map((line) => line.trim()),
    )
    .filter((lines) => lines.some((line) => line !== ''));
}

/** Only http(s) links leave our elements: a `javascript:` URL from upstream must never be clickable. */
export function safeHttpUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
