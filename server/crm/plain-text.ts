/**
 * The CRM's texts (descriptions, highlights) are plain text with Windows line breaks and HTML
 * entities (`&#x2022;`, `&amp;`, `&eacute;`). The relay decodes them here, once, into the plain
 * text with `\n` line breaks it publishes: the elements render it as text nodes, never as HTML,
 * and decode nothing again (a CRM's `&amp;lt;` stays the `&lt;` the agency typed).
 */

/** Named entities seen in agency copy; anything else is left as written. */
const NAMED_ENTITIES: Record<string, string> = {
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

/**
 * The text decoded: numeric entities (`&#8211;`, `&#x2022;`; an invalid code point is left as
 * written) and the named ones above (as written, else in lower case: `&NBSP;`), line breaks as `\n`.
 * Null for an empty or missing text.
 */
export function plainText(value: string | null | undefined): string | null {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text) return null;
  return text.replace(/\r\n?/g, '\n').replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,31});/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
