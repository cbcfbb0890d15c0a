// The front door and the docs pages: every relative link leads to a file in the repository (and,
// for `#anchor` links into markdown, to a heading there), and the README stays a front door.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/docs-build.ts';
import { brokenLinks, githubSlug, headingAnchors, markdownLinks, projectMarkdownFiles } from './markdown-links.ts';

/** The README is the front door: what it is, the commands, the tag, a real CRM account, where to go next. */
const README_MAX_LINES = 250;

describe('links in README.md, docs/*.md and crm-sim/README.md', () => {
  const files = projectMarkdownFiles(projectRoot);

  it('covers the README, the docs pages and the simulator README', () => {
    const names = files.map((file) => file.slice(projectRoot.length + 1));
    expect(names).toContain('README.md');
    expect(names).toContain('docs/README.md');
    expect(names).toContain('docs/elements.md');
    expect(names).toContain('crm-sim/README.md');
    expect(names).toContain('server/cluster/README.md');
  });

  it('every relative link resolves to a file in the repository, and every #anchor to a heading', () => {
    expect(brokenLinks(projectRoot, files)).toEqual([]);
  });

  it('every docs page is linked from docs/README.md', () => {
    const index = join(projectRoot, 'docs', 'README.md');
    const linked = new Set(markdownLinks(index, readFileSync(index, 'utf8')).map((link) => link.target.split('#')[0]));
    const pages = files.filter((file) => file.startsWith(join(projectRoot, 'docs') + '/') && !file.endsWith('/README.md'));
    expect(pages.map((file) => file.slice(projectRoot.length + 6)).filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('README.md is a front door', () => {
  it(`is at most ${README_MAX_LINES} lines (move the details into a page in docs/)`, () => {
    const lines = readFileSync(join(projectRoot, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe('the link checker', () => {
  const root = mkdtempSync(join(tmpdir(), 'estate-links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('slugs headings as GitHub does', () => {
    expect(githubSlug("The relay's HTTP API")).toBe('the-relays-http-api');
    expect(githubSlug('PostgreSQL (two or more relays)')).toBe('postgresql-two-or-more-relays');
    expect(githubSlug('<estate-enquiry>')).toBe('estate-enquiry');
    expect(githubSlug('React 19 and Vue 3')).toBe('react-19-and-vue-3');
    expect([...headingAnchors('# A\n## Attributes\n```\n# not a heading\n```\n### Attributes\n## `<x-y>`\n')]).toEqual([
      'a',
      'attributes',
      'attributes-1',
      'x-y',
    ]);
  });

  it('reports a missing file, a missing heading and a path outside the repository; passes good links', () => {
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'README.md'), '# Home\n\n## Start here\n');
    writeFileSync(
      join(root, 'docs', 'page.md'),
      [
        '# Page',
        '[home](../README.md), [start](../README.md#start-here), [self](#page), [web](https://example.com/x)',
        '`[not a link](nowhere.md)`',
        '```',
        '[in a code block](nowhere.md)',
        '```',
        '[gone](gone.md)',
        '[no heading](../README.md#finish-here)',
        '[outside](../../shared/spec/crm-api.md)',
      ].join('\n'),
    );
    const problems = brokenLinks(root, [join(root, 'README.md'), join(root, 'docs', 'page.md')]);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^docs\/page\.md:7: gone\.md: no such file/);
    expect(problems[1]).toMatch(/^docs\/page\.md:8: \.\.\/README\.md#finish-here: README\.md has no heading #finish-here/);
    expect(problems[2]).toMatch(/^docs\/page\.md:9: \.\.\/\.\.\/shared\/spec\/crm-api\.md: outside the repository/);
  });
});
