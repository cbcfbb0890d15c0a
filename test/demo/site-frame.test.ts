// The demo is a static agency site, as a customer's would be: each page carries its own header and
// footer (no templating of ours). What keeps those copies honest is this check: one header, one
// footer, the current page marked in the menu (issue 22 found a contact page with a header of its own).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';

const demoDir = join(projectRoot, 'demo');
const pages = readdirSync(demoDir).filter((file) => file.endsWith('.html'));
const read = (file: string) => readFileSync(join(demoDir, file), 'utf8');
const between = (html: string, start: RegExp, end: string) => {
  const from = html.search(start);
  const to = html.indexOf(end, from);
  return from < 0 || to < 0 ? undefined : html.slice(from, to + end.length);
};
const header = (html: string) => between(html, /<header class="site-header">/, '</header>');
/** The footer's first line, the agency's: the rest says what the page shows, and differs. */
const footer = (html: string) => between(between(html, /<footer class="site-footer">/, '</footer>') ?? '', /<p>/, '</p>');
/**
 * The header with the menu's "you are here" mark taken out, and the link it was on: the page itself
 * (aria-current="page"), or the section a page without its own menu item belongs to ("true": an
 * agent's page is in "Our team").
 */
const unmarked = (html: string) => {
  const marked = /<a href="([^"]+)" aria-current="(page|true)">/.exec(html);
  return { frame: html.replace(/ aria-current="(page|true)"/, ''), current: marked?.[1], kind: marked?.[2] };
};
/** The section of the menu a page belongs to, for pages that are not in the menu themselves. */
const SECTION_OF: Record<string, string> = { 'agent.html': '/team' };

describe('the demo site’s pages', () => {
  it('all carry the same header and the same agency line in the footer, with the menu marking at most the page itself', () => {
    expect(pages.length).toBeGreaterThan(5);
    const reference = unmarked(header(read('index.html'))!).frame;
    const referenceFooter = footer(read('index.html'));
    expect(reference).toContain('aria-label="Main"');
    expect(referenceFooter).toBeDefined();
    for (const page of pages) {
      const html = read(page);
      const found = header(html);
      expect(found, `${page}: a site header`).toBeDefined();
      const { frame, current, kind } = unmarked(found!);
      expect(frame, `${page}: the same header as index.html`).toBe(reference);
      expect(footer(html), `${page}: the footer's agency line as index.html's`).toBe(referenceFooter);
      const name = page.replace(/\.html$/, '');
      if (kind === 'page') expect(['/', `/${name}`, `/${page}`, `/listings/${name}`], `${page}: marks ${current}`).toContain(current);
      else expect(current, `${page}: marks its section`).toBe(SECTION_OF[page]);
    }
  });
});
