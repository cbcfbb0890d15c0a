/**
 * A listing's description as the relay publishes it: plain text, entities already decoded (once,
 * by the relay: server/crm/plain-text.ts), rendered as text nodes, so `<img onerror=…>` in a
 * description stays the characters a reader sees. Nothing here decodes again: a second decoding
 * would turn an agency's `&lt;` into `<`.
 */

/**
 * Splits a description into paragraphs (blank lines) of lines (single breaks). The element renders
 * each paragraph as a `<p>` and each line break as a `<br>`, all text nodes.
 */
export function descriptionParagraphs(description: string | null | undefined): string[][] {
  if (!description) return [];
  return description
    .replace(/\r\n?/g, '\n')
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
