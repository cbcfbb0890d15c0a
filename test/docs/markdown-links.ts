// Relative links in the project's markdown pages, and whether they lead anywhere: the file must
// exist inside the repository (a clone has nothing outside it), and a `#anchor` into a markdown
// file must name one of its headings, slugged as GitHub does.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

/** The lines outside fenced code blocks, with inline code spans blanked (their text is not markdown). */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(raw);
    if (fence) {
      if (opening && opening[1][0] === fence[0] && opening[1].length >= fence.length && raw.trim() === opening[1]) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening[1];
      return;
    }
    out.push({
      line: index + 1,
      text: raw.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, (span) => (span.startsWith('``') ? 'code' : span.replace(/[[\]()]/g, '.'))),
    });
  });
  return out;
}

/** Every inline link and image target on the page (`[text](target)`, `![alt](target)`). */
export function markdownLinks(file: string, text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  const pattern = /\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  for (const { line, text: prose } of proseLines(text)) {
    for (const match of prose.matchAll(pattern)) links.push({ file, line, target: match[1] });
  }
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces become hyphens. */
export function githubSlug(heading: string): string {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text stays, its target goes
    .replace(/<[^>]+>/g, (tag) => (/^<[a-z][a-z0-9-]*>$/i.test(tag) ? tag : '')) // HTML tags go, a written `<tag>` stays as text
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors a markdown page offers: one per heading, repeats numbered `-1`, `-2` as GitHub does. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLinesKeepingCode(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = githubSlug(heading[1].replace(/`/g, ''));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** Lines outside fenced code blocks, inline code left as it is (a heading's code span is part of its anchor). */
function proseLinesKeepingCode(text: string): { line: number; text: string }[] {
  const lines = text.split('\n');
  return proseLines(text).map(({ line }) => ({ line, text: lines[line - 1] }));
}

/** What is wrong with one link, or undefined when it leads somewhere. */
export function brokenLink(root: string, link: MarkdownLink): string | undefined {
  const { target } = link;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // http:, mailto: …: not ours to check
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = decodeURIComponent(pathPart);
  const file = path === '' ? link.file : resolve(dirname(link.file), path);
  const inside = relative(root, file);
  if (inside.startsWith('..') || inside.startsWith(sep) || resolve(root, inside) !== file)
    return `${target}: outside the repository (a clone does not have it)`;
  if (!existsSync(file)) return `${target}: no such file (${inside})`;
  if (anchor === undefined || anchor === '' || !file.endsWith('.md') || statSync(file).isDirectory()) return undefined;
  if (!headingAnchors(readFileSync(file, 'utf8')).has(anchor.toLowerCase())) return `${target}: ${inside} has no heading #${anchor}`;
  return undefined;
}

/** README.md, every page in docs/ and crm-sim/README.md. */
export function projectMarkdownFiles(root: string): string[] {
  const docs = join(root, 'docs');
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((name) => name.endsWith('.md'))
        .map((name) => join(docs, name))
    : [];
  // The READMEs beside the code (crm-sim/, server/cluster/, …): the folders that explain themselves.
  const folderReadmes = ['crm-sim', ...readdirSync(join(root, 'server')).map((name) => join('server', name))]
    .map((folder) => join(root, folder, 'README.md'))
    .filter((file) => existsSync(file));
  return [join(root, 'README.md'), ...pages.sort(), ...folderReadmes];
}

/** Every broken relative link in the given pages, as `file:line: problem`. */
export function brokenLinks(root: string, files: string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    for (const link of markdownLinks(file, readFileSync(file, 'utf8'))) {
      const problem = brokenLink(root, link);
      if (problem) problems.push(`${relative(root, file)}:${link.line}: ${problem}`);
    }
  }
  return problems;
}
