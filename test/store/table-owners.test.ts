// "A module owns its tables": the migration that creates a table names its owner
// (`<number>-<concern>-<what>`, the concern being a folder of server/), and no file outside that
// folder writes SQL against it. With the dependency-cruiser rule that only repository files reach
// the connection (store/tables.ts), this keeps every module's SQL in its own files.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../server/store/migrations.ts';

const root = join(import.meta.dirname, '..', '..');

/** The folders of server/, longest first: a migration `130-saved-searches` names `saved-searches`, not `saved`. */
const FOLDERS = readdirSync(join(root, 'server'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort((a, b) => b.length - a.length);

function owners(): Map<string, string> {
  const owner = new Map<string, string>([['schema_migrations', 'store']]);
  for (const migration of migrations) {
    const named = migration.id.replace(/^\d+-/, '');
    const concern = FOLDERS.find((folder) => named === folder || named.startsWith(`${folder}-`)) ?? named.split('-')[0]!;
    for (const [, table] of migration.sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)) if (!owner.has(table!)) owner.set(table!, concern);
  }
  return owner;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Table names a file's SQL reads or writes. */
function tablesIn(source: string, known: Map<string, string>): string[] {
  const found = new Set<string>();
  for (const [, table] of source.matchAll(/\b(?:FROM|INTO|UPDATE|JOIN|TABLE)\s+([a-z_]+)/g)) if (known.has(table!)) found.add(table!);
  return [...found];
}

describe('table ownership', () => {
  const owner = owners();

  it('every table has an owning folder of server/ (named by the migration that creates it)', () => {
    expect(owner.get('enquiry_outbox')).toBe('enquiries');
    expect(owner.get('listings')).toBe('listings');
    expect(owner.get('photos')).toBe('photos');
    expect(owner.get('crm_budget')).toBe('crm');
    for (const concern of new Set(owner.values())) expect(readdirSync(join(root, 'server')), concern).toContain(concern);
  });

  it("no file writes SQL against another module's tables", () => {
    const trespasses: string[] = [];
    for (const file of sourceFiles(join(root, 'server'))) {
      const path = relative(root, file).split('\\').join('/');
      // The two schema files create every module's tables: they are where ownership is declared.
      if (path === 'server/store/migrations.ts' || path === 'server/store/pg-migrations.ts') continue;
      const folder = path.split('/')[1]!;
      for (const table of tablesIn(readFileSync(file, 'utf8'), owner)) {
        if (owner.get(table) !== folder) trespasses.push(`${path} uses ${table} (owned by server/${owner.get(table)}/)`);
      }
    }
    expect(trespasses).toEqual([]);
  });

  it('catches a trespass (the check itself works)', () => {
    expect(tablesIn("db.prepare('SELECT COUNT(*) FROM enquiry_outbox')", owner)).toEqual(['enquiry_outbox']);
  });
});
