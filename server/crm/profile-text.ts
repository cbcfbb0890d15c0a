import sanitizeHtml from 'sanitize-html';
import type { AgentProfileText } from '../../contract/relay-api.ts';
import { plainText } from './plain-text.ts';

/*
 * A staff member's `profile` as the CRM keeps it: some agencies paste HTML from their old site
 * (paragraphs, bold, lists, a link to their reviews), most type plain text with entities like the
 * listings' descriptions. HTML is cleaned here, on its way into the cache, to what a profile needs
 * and a page can insert as is; plain text stays text. sanitize-html (a maintained allow-list
 * sanitizer on htmlparser2) does the parsing: a hand-written one would miss what browsers repair.
 */

/** A tag of any kind: the text is HTML, not plain text that happens to hold a `<`. */
const LOOKS_LIKE_HTML = /<\/?[a-z][a-z0-9]*(?:\s[^<>]*)?\/?>/i;

const PROFILE_HTML: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'em', 'b', 'i', 'ul', 'ol', 'li', 'a'],
  // rel is the relay's own (transformTags sets it on every link); whatever rel or target the CRM had is replaced.
  allowedAttributes: { a: ['href', 'rel'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // A script's or style's text is dropped with it; other unknown tags leave their text.
  disallowedTagsMode: 'discard',
  // A paragraph or list item left with no words (Word's `<p>&nbsp;</p>` spacers) is a gap on the page, not content.
  exclusiveFilter: (frame) => (frame.tag === 'p' || frame.tag === 'li') && /^(?:\s|&nbsp;|&#160;|\u00a0)*$/i.test(frame.text),
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...(attribs.href ? { href: attribs.href } : {}), rel: 'nofollow noopener' } }),
  },
};

/** The profile as published: cleaned HTML when the CRM's text has tags, else plain text; null when nothing is left. */
export function profileText(raw: string | null | undefined): AgentProfileText | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  if (LOOKS_LIKE_HTML.test(raw)) {
    const html = sanitizeHtml(raw, PROFILE_HTML).trim();
    // Only tags and no words (a lone script, empty paragraphs): nothing to show.
    if (sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} }).trim() === '') return null;
    return { format: 'html', html };
  }
  const text = plainText(raw);
  return text ? { format: 'text', text } : null;
}
