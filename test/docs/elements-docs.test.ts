import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeElements, customElementsOf, elementTablesMarkdown, serialiseManifest, type Manifest } from '../../scripts/docs-elements.ts';
import { readBetweenMarkers, replaceBetweenMarkers } from '../../scripts/docs-markdown.ts';
import { ELEMENTS_FILE, MANIFEST_FILE, elementsPageTables, projectRoot } from '../../scripts/docs-build.ts';

// A tiny element written the way the widget's elements are (static properties, JSDoc header,
// a tag held in a constant, internal state, an event name passed through a helper).
const SAMPLE_ELEMENT = `
import { LitElement, html } from 'lit';
export const SAMPLE_TAG = 'estate-sample';
/**
 * @summary Shows a sample.
 * @slot - Shown above the list.
 * @slot empty - Shown when nothing matches.
 * @csspart card - Each card.
 * @cssprop [--estate-sample-gap=1rem] - Gap between cards.
 * @fires {CustomEvent<{ id: number }>} estate-sample-select - A card was chosen.
 */
export class EstateSample extends LitElement {
  static override properties = {
    /** Cards per page. */
    pageSize: { type: Number, attribute: 'page-size' },
    /** Listings the host already has. */
    listings: { attribute: false },
    busy: { state: true },
  };
  declare pageSize: number;
  declare listings: string[] | null;
  declare busy: boolean;
  constructor() {
    super();
    this.pageSize = 12;
    this.listings = null;
    this.busy = false;
  }
  /** Loads again. */
  reload(): void {}
  private emit(name: string) {
    this.dispatchEvent(new CustomEvent(name));
  }
  override render() { return html\`<slot></slot>\`; }
}
if (!customElements.get(SAMPLE_TAG)) customElements.define(SAMPLE_TAG, EstateSample);
`;

describe('element reference from a sample element', () => {
  let dir: string;
  let manifest: Manifest;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'estate-cem-'));
    mkdirSync(join(dir, 'widget', 'sample'), { recursive: true });
    // The analyzer's config loader walks up to a package.json; without one it never returns.
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    copyFileSync(join(projectRoot, 'custom-elements-manifest.config.mjs'), join(dir, 'custom-elements-manifest.config.mjs'));
    writeFileSync(join(dir, 'widget', 'sample', 'sample.ts'), SAMPLE_ELEMENT);
    writeFileSync(join(dir, 'widget', 'sample', 'sample.test.ts'), 'export const notAnElement = 1;');
    writeFileSync(
      join(dir, 'widget', 'sample', 'format.ts'),
      '/** An internal helper. */\nexport function price(value: number): string { return String(value); }',
    );
    manifest = await analyzeElements(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves the tag constant and leaves tests and helper modules out', () => {
    expect(customElementsOf(manifest).map((element) => element.tagName)).toEqual(['estate-sample']);
    expect(manifest.modules.map((module) => module.path)).toEqual(['widget/sample/sample.ts']);
  });

  it('writes tables of attributes, properties, methods, events, slots, parts and CSS properties', () => {
    const markdown = elementTablesMarkdown(manifest);
    expect(markdown).toContain('## `<estate-sample>`');
    expect(markdown).toContain('Class `EstateSample`, source [widget/sample/sample.ts](widget/sample/sample.ts).');
    expect(elementTablesMarkdown(manifest, { sourceBase: '../' })).toContain('source [widget/sample/sample.ts](../widget/sample/sample.ts).');
    expect(markdown).toContain('| `page-size` | `pageSize` | `number` | `12` | Cards per page. |');
    expect(markdown).toContain('| `listings` | `string[] \\| null` | `null` | Listings the host already has. |');
    expect(markdown).toContain('| `reload(): void` | Loads again. |');
    expect(markdown).toContain('| `estate-sample-select` | `CustomEvent<{ id: number }>` | A card was chosen. |');
    expect(markdown).toContain('| (default) | Shown above the list. |');
    expect(markdown).toContain('| `empty` | Shown when nothing matches. |');
    expect(markdown).toContain('| `card` | Each card. |');
    expect(markdown).toContain('| `--estate-sample-gap` | `1rem` | Gap between cards. |');
    // Internal state is not an attribute; a helper's `new CustomEvent(name)` is not an event called "name".
    expect(markdown).not.toMatch(/`busy`|`name`/);
  });
});

describe('committed element docs', () => {
  let fresh: Manifest;
  beforeAll(async () => {
    fresh = await analyzeElements(projectRoot);
  }, 60_000);

  it('custom-elements.json is what the analyzer produces from the code now (run `npm run docs` when this fails)', () => {
    const committed = readFileSync(join(projectRoot, MANIFEST_FILE), 'utf8');
    expect(committed).toBe(serialiseManifest(fresh));
  });

  it('the docs/elements.md tables are the ones the manifest produces (run `npm run docs` when this fails)', () => {
    const page = readFileSync(join(projectRoot, ELEMENTS_FILE), 'utf8');
    const expected = replaceBetweenMarkers(page, 'elements', elementsPageTables(fresh), ELEMENTS_FILE);
    expect(readBetweenMarkers(page, 'elements')).toBeDefined();
    expect(readBetweenMarkers(page, 'elements')).toBe(readBetweenMarkers(expected, 'elements'));
  });

  it('documents every tag the widget registers', () => {
    const registered = new Set<string>();
    const walk = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          const source = readFileSync(path, 'utf8');
          // A literal tag in a define call, or a tag constant (ENQUIRY_TAG = 'estate-enquiry').
          for (const pattern of [/customElements\.define\(\s*['"](estate-[a-z-]+)['"]/g, /_TAG\s*=\s*['"](estate-[a-z-]+)['"]/g]) {
            for (const match of source.matchAll(pattern)) registered.add(match[1]);
          }
        }
      }
    };
    walk(join(projectRoot, 'widget'));
    const documented = customElementsOf(fresh).map((element) => element.tagName);
    expect(registered.size).toBeGreaterThan(0);
    for (const tag of registered) expect(documented).toContain(tag);
  });
});
