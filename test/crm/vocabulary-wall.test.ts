// "Only server/crm/ speaks the CRM's vocabulary": the features reach the CRM through ports in the
// relay's terms (listings/source.ts, enquiries/sink.ts). An import rule (.dependency-cruiser.cjs,
// crm-behind-ports) cannot see a CRM id travelling as a plain field of a port or a column of a
// cache, so this reads the source: outside server/crm/, no file names the CRM's life ids. Where an
// enquiry goes travels as the adapter's opaque LeadDestination instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** The CRM's words for the ids of a listing's sale or lease life: saleLifeId, leaseLifeId, lifeId, sale_life_id. */
const CRM_VOCABULARY = /life_?id/i;

/**
 * Files outside server/crm/ allowed to name them: the schema histories, whose shipped migrations
 * are never edited (and whose latest converts the old life id columns to the token).
 */
const ALLOWED = new Set(['server/store/migrations.ts', 'server/store/pg-migrations.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : /\.(ts|mjs|js)$/.test(entry.name) ? [join(dir, entry.name)] : [],
  );
}

/** `path:line: text` of each line naming the CRM's life ids. */
function leaks(path: string, source: string): string[] {
  return source.split('\n').flatMap((line, index) => (CRM_VOCABULARY.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : []));
}

describe("the CRM's vocabulary stays in server/crm/", () => {
  it("no file of server/ outside server/crm/ names the CRM's life ids", () => {
    const found: string[] = [];
    for (const file of sourceFiles(join(root, 'server'))) {
      const path = relative(root, file).split('\\').join('/');
      if (path.startsWith('server/crm/') || ALLOWED.has(path)) continue;
      found.push(...leaks(path, readFileSync(file, 'utf8')));
    }
    expect(found).toEqual([]);
  });

  it('the CRM adapter does name them (the check reads the right files)', () => {
    const adapter = sourceFiles(join(root, 'server', 'crm')).flatMap((file) => leaks(relative(root, file), readFileSync(file, 'utf8')));
    expect(adapter.length).toBeGreaterThan(0);
  });

  it('catches a leak (the check itself works)', () => {
    expect(leaks('server/listings/source.ts', '  saleLifeId: number | null;')).toHaveLength(1);
    expect(leaks('server/listings/cache.ts', 'SELECT lease_life_id FROM listings')).toHaveLength(1);
    expect(leaks('server/enquiries/targets.ts', 'return { lifeId };')).toHaveLength(1);
    expect(leaks('server/listings/cache.ts', 'SELECT lead_destination FROM listings')).toEqual([]);
  });
});
