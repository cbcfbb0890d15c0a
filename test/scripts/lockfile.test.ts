// `npm ci` refuses a lockfile that lacks an optional dependency some package declares (the
// platform binaries of @swc/core, rollup, esbuild…: a lockfile written on one machine by an
// `npm install` that pruned them). Then the first `npm start` of a fresh clone printed ~130
// `npm error` lines and fell back to `npm install`, which rewrote the lockfile in the user's tree.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

interface LockEntry {
  optionalDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/** Where npm would find `name` for the package at `path`: its own node_modules, then each folder above. */
function resolves(packages: Record<string, LockEntry>, path: string, name: string): boolean {
  for (let dir = path; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    if (packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (!dir) return false;
  }
}

/** Optional dependencies the lockfile declares but does not record. */
function missingOptional(lock: { packages: Record<string, LockEntry> }): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!resolves(lock.packages, path, name)) missing.push(`${path || '(root)'} → ${name}`);
    }
  }
  return missing;
}

describe('package-lock.json', () => {
  it("records every package's optional dependencies, for every platform, so npm ci takes it", () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    expect(missingOptional(lock)).toEqual([]);
  });

  it('the check finds a pruned platform package (the check itself works)', () => {
    const lock = {
      packages: {
        '': { dependencies: { rollup: '^4' } },
        'node_modules/rollup': { optionalDependencies: { '@rollup/rollup-linux-x64-gnu': '4.0.0', '@rollup/rollup-darwin-arm64': '4.0.0' } },
        'node_modules/@rollup/rollup-linux-x64-gnu': {},
      },
    };
    expect(missingOptional(lock)).toEqual(['node_modules/rollup → @rollup/rollup-darwin-arm64']);
  });
});
