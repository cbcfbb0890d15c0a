// Every lead queue's status route (enquiries, saved searches) gives the same answer, so the contract
// names it once: LeadStatusResponse in contract/relay-api.ts. A second name for it (an alias, or an
// interface of the same shape) lets the two routes' types drift apart unnoticed; this fails on one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CONTRACT = join(import.meta.dirname, '../../contract');

/** The status answers each contract module exports, by module: types named …StatusResponse, and aliases of the status 'accepted'. */
function statusTypes(): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const file of readdirSync(CONTRACT).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(CONTRACT, file), 'utf8');
    const names = [
      ...[...text.matchAll(/^export (?:type|interface) (\w*StatusResponse)\b/gm)].map((match) => match[1]!),
      ...[...text.matchAll(/^export type (\w+) = 'accepted';/gm)].map((match) => match[1]!),
    ];
    if (names.length > 0) found[file] = names;
  }
  return found;
}

describe('the lead status answer', () => {
  it('is one type, LeadStatusResponse, in contract/relay-api.ts', () => {
    expect(statusTypes()).toEqual({ 'relay-api.ts': ['LeadStatusResponse'] });
  });
});
