import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configEntries, configReferenceMarkdown } from '../../scripts/docs-config.ts';
import { readBetweenMarkers, replaceBetweenMarkers } from '../../scripts/docs-markdown.ts';
import { CONFIG_FILE, projectRoot } from '../../scripts/docs-build.ts';
import { configSchema } from '../../server/runtime/config.ts';

describe('configuration reference', () => {
  it('lists every variable of the schema, in order, with its default', () => {
    const entries = configEntries(configSchema);
    expect(entries.map((entry) => entry.name)).toEqual(Object.keys(configSchema.shape));
    const byName = Object.fromEntries(entries.map((entry) => [entry.name, entry]));
    expect(byName.PORT.defaultText).toBe('`8787`');
    expect(byName.CRM_API_KEY.defaultText).toBe('(unset)');
    expect(byName.ALLOWED_ORIGINS.defaultText).toBe('(empty)');
    expect(byName.LOG_LEVEL.description).toContain('One of `fatal`, `error`');
  });

  it('marks a variable without a default as required and refuses one without a description', () => {
    const entries = configEntries(z.object({ NEEDED: z.string().describe('Must be set.'), LIST: z.string().default('a|b').describe('Pipes | escape.') }));
    expect(entries[0]).toMatchObject({ name: 'NEEDED', defaultText: '**required**' });
    expect(configReferenceMarkdown(z.object({ LIST: z.string().default('a|b').describe('x | y') }))).toContain('`a\\|b` | x \\| y |');
    expect(() => configEntries(z.object({ SILENT: z.string().default('x') }))).toThrow(/SILENT has no \.describe\(\)/);
  });

  it('finds a description given before .default()', () => {
    const [entry] = configEntries(z.object({ LATE: z.coerce.number().describe('Described early.').default(3) }));
    expect(entry).toMatchObject({ defaultText: '`3`', description: 'Described early.' });
  });

  it('the docs/configuration.md table is the one the schema produces now (run `npm run docs` when this fails)', () => {
    const page = readFileSync(join(projectRoot, CONFIG_FILE), 'utf8');
    const expected = replaceBetweenMarkers(page, 'config', configReferenceMarkdown(configSchema), CONFIG_FILE);
    expect(readBetweenMarkers(page, 'config')).toBeDefined();
    expect(readBetweenMarkers(page, 'config')).toBe(readBetweenMarkers(expected, 'config'));
  });
});
