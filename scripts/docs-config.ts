// Builds the configuration reference (docs/configuration.md) from the zod schema in server/runtime/config.ts, so the
// table can never list a variable the relay does not read, or miss one it does.
import type { z } from 'zod';
import { markdownTable, code } from './docs-markdown.ts';

export interface ConfigEntry {
  name: string;
  /** Markdown for the default column: a code span, or a word such as "required". */
  defaultText: string;
  description: string;
}

/** The zod internals we walk: every schema has `def.type`; wrappers carry `innerType` or `in`. */
interface Introspectable {
  description?: string;
  def: {
    type: string;
    innerType?: Introspectable;
    in?: Introspectable;
    defaultValue?: unknown;
    entries?: Record<string, string | number>;
  };
  isOptional(): boolean;
}

/** The schema itself and every wrapper inside it (default, optional, pipe, …), outermost first. */
function layers(schema: Introspectable): Introspectable[] {
  const found: Introspectable[] = [];
  let current: Introspectable | undefined = schema;
  while (current && found.length < 20) {
    found.push(current);
    current = current.def.innerType ?? current.def.in;
  }
  return found;
}

function formatDefault(value: unknown): string {
  if (Array.isArray(value)) return value.length ? code(value.join(',')) : '(empty)';
  return code(String(value));
}

function entryFor(name: string, schema: Introspectable): ConfigEntry {
  const chain = layers(schema);
  const description = chain.find((layer) => layer.description)?.description;
  if (!description) {
    throw new Error(`server/runtime/config.ts: ${name} has no .describe(): every variable needs one for docs/configuration.md.`);
  }
  const withDefault = chain.find((layer) => layer.def.type === 'default' || layer.def.type === 'prefault');
  const enumLayer = chain.find((layer) => layer.def.type === 'enum');
  let defaultText: string;
  if (withDefault) defaultText = formatDefault(withDefault.def.defaultValue);
  else if (schema.isOptional()) defaultText = '(unset)';
  else defaultText = '**required**';
  const choices = enumLayer?.def.entries ? Object.values(enumLayer.def.entries) : [];
  const meaning = choices.length ? `${description} One of ${choices.map((choice) => code(String(choice))).join(', ')}.` : description;
  return { name, defaultText, description: meaning };
}

/** Every variable of the schema, in the schema's order. */
export function configEntries(schema: z.ZodType): ConfigEntry[] {
  const shape = (schema as unknown as { shape?: Record<string, Introspectable> }).shape;
  if (!shape) throw new Error('configSchema is not a zod object: cannot list its variables.');
  return Object.entries(shape).map(([name, field]) => entryFor(name, field));
}

/** The markdown table that goes between the config markers of docs/configuration.md. */
export function configReferenceMarkdown(schema: z.ZodType): string {
  const rows = configEntries(schema).map((entry) => [code(entry.name), entry.defaultText, entry.description]);
  return markdownTable(['Variable', 'Default', 'Meaning'], rows);
}
