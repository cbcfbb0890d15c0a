// custom-elements.json from the elements' JSDoc (`cem analyze --litelement`, settings in
// custom-elements-manifest.config.mjs), and the per-element tables of docs/elements.md from that manifest.
import { cli } from '@custom-elements-manifest/analyzer/cli.js';
import { cell, code, markdownTable } from './docs-markdown.ts';

/** The parts of the Custom Elements Manifest schema the tables read. */
interface Described {
  name: string;
  description?: string;
  summary?: string;
  type?: { text: string };
  default?: string;
  deprecated?: boolean | string;
}
interface ManifestMember extends Described {
  kind: 'field' | 'method';
  static?: boolean;
  privacy?: 'public' | 'private' | 'protected';
  readonly?: boolean;
  attribute?: string;
  parameters?: Described[];
  return?: { type?: { text: string } };
}
interface ManifestAttribute extends Described {
  fieldName?: string;
}
export interface ManifestElement extends Described {
  kind: 'class';
  customElement?: boolean;
  tagName?: string;
  attributes?: ManifestAttribute[];
  members?: ManifestMember[];
  events?: Described[];
  slots?: Described[];
  cssParts?: Described[];
  cssProperties?: (Described & { syntax?: string })[];
}
export interface Manifest {
  schemaVersion: string;
  modules: { kind: string; path: string; declarations?: (ManifestElement | Described)[] }[];
}

/**
 * Runs the analyzer in memory (nothing written) with the config file found in `cwd`. The config
 * sets `packagejson: false`, so the analyzer never edits package.json either.
 */
export async function analyzeElements(cwd: string): Promise<Manifest> {
  const manifest = (await cli({ argv: ['analyze', '--quiet'], cwd, noWrite: true })) as Manifest | undefined;
  if (!manifest) throw new Error(`cem analyze failed in ${cwd} (see the message above).`);
  return manifest;
}

/** The serialised form the analyzer writes, so the committed file and a fresh run compare byte for byte. */
export function serialiseManifest(manifest: Manifest): string {
  // The analyzer lists modules in the order its file globbing finished, which varies from run to
  // run on a busy machine: sort by path so the committed file and a fresh run compare stably.
  const modules = [...manifest.modules].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return `${JSON.stringify({ ...manifest, modules }, null, 2)}\n`;
}

/** Every declared custom element with a tag, sorted by tag so the page's order is stable. */
export function customElementsOf(manifest: Manifest): (ManifestElement & { path: string })[] {
  const elements: (ManifestElement & { path: string })[] = [];
  for (const module of manifest.modules) {
    for (const declaration of module.declarations ?? []) {
      const element = declaration as ManifestElement;
      if (element.customElement && element.tagName) elements.push({ ...element, path: module.path });
    }
  }
  return elements.sort((a, b) => a.tagName!.localeCompare(b.tagName!));
}

const typeText = (item: { type?: { text: string } }) => (item.type?.text ? code(item.type.text) : '');
const defaultText = (item: { default?: string }) => (item.default !== undefined ? code(item.default) : '');
const describe = (item: Described) => {
  const text = [item.summary, item.description].filter(Boolean).join(' ');
  return item.deprecated ? `**Deprecated.** ${text}` : text;
};

function isPublicMember(member: ManifestMember): boolean {
  return !member.static && (member.privacy ?? 'public') === 'public' && !member.name.startsWith('_') && !member.name.startsWith('#');
}

function section(title: string, headers: string[], rows: string[][]): string[] {
  if (!rows.length) return [];
  return [`### ${title}`, '', markdownTable(headers, rows), ''];
}

/**
 * One section per element: attributes, properties, methods, events, slots, parts, CSS properties.
 * `sourceBase` goes before each source link (`../` for a page in docs/, whose links are relative to it).
 */
export function elementTablesMarkdown(manifest: Manifest, { sourceBase = '' }: { sourceBase?: string } = {}): string {
  const elements = customElementsOf(manifest);
  if (!elements.length) return '_No elements found: the widget has no documented custom elements yet._';
  const out: string[] = [];
  for (const element of elements) {
    out.push(`## \`<${element.tagName}>\``, '');
    const intro = [element.summary, element.description]
      .filter(Boolean)
      .map((text) => cell(text!))
      .join('\n\n');
    if (intro) out.push(intro, '');
    out.push(`Class \`${element.name}\`, source [${element.path}](${sourceBase}${element.path}).`, '');

    const members = (element.members ?? []).filter(isPublicMember);
    const fields = members.filter((member) => member.kind === 'field');
    const attributes = element.attributes ?? [];
    const attributeRows = attributes.map((attribute) => {
      const field = fields.find((candidate) => candidate.name === attribute.fieldName);
      return [
        code(attribute.name),
        attribute.fieldName ? code(attribute.fieldName) : '',
        typeText(attribute.type ? attribute : (field ?? attribute)),
        defaultText(attribute.default !== undefined ? attribute : (field ?? attribute)),
        describe(attribute.description || attribute.summary ? attribute : (field ?? attribute)),
      ];
    });
    out.push(...section('Attributes', ['Attribute', 'Property', 'Type', 'Default', 'Description'], attributeRows));

    const withAttribute = new Set(attributes.map((attribute) => attribute.fieldName).filter(Boolean));
    const propertyRows = fields
      .filter((field) => !withAttribute.has(field.name))
      .map((field) => [code(field.name), typeText(field), defaultText(field), `${field.readonly ? '(read-only) ' : ''}${describe(field)}`]);
    out.push(...section('Properties (JavaScript only, no attribute)', ['Property', 'Type', 'Default', 'Description'], propertyRows));

    const methodRows = members
      .filter((member) => member.kind === 'method')
      .map((method) => {
        const parameters = (method.parameters ?? []).map((parameter) => `${parameter.name}${parameter.type ? `: ${parameter.type.text}` : ''}`);
        const returns = method.return?.type?.text ? `: ${method.return.type.text}` : '';
        return [code(`${method.name}(${parameters.join(', ')})${returns}`), describe(method)];
      });
    out.push(...section('Methods', ['Method', 'Description'], methodRows));

    const eventRows = (element.events ?? []).filter((event) => event.name).map((event) => [code(event.name), typeText(event), describe(event)]);
    out.push(...section('Events', ['Event', 'Type', 'Description'], eventRows));

    const slotRows = (element.slots ?? []).map((slot) => [slot.name ? code(slot.name) : '(default)', describe(slot)]);
    out.push(...section('Slots', ['Slot', 'Description'], slotRows));

    const partRows = (element.cssParts ?? []).map((part) => [code(part.name), describe(part)]);
    out.push(...section('CSS parts', ['Part', 'Description'], partRows));

    const propertyCssRows = (element.cssProperties ?? []).map((property) => [
      code(property.name),
      property.default !== undefined ? code(property.default) : '',
      describe(property),
    ]);
    out.push(...section('CSS custom properties', ['Property', 'Default', 'Description'], propertyCssRows));
  }
  return out.join('\n').trim();
}
