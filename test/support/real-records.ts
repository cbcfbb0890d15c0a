import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The real v1.3 records (../shared/reference/real-v13-sold-list.json beside the checkout, as CI
 * has it; kept current there), else the copy under test/contract/fixtures for a clone without it.
 */
const shared = fileURLToPath(new URL('../../../shared/reference/real-v13-sold-list.json', import.meta.url));
const copy = fileURLToPath(new URL('../contract/fixtures/real-v13-sold-list.json', import.meta.url));

export const realRecordsPath = existsSync(shared) ? shared : copy;

/** The dump's text, as the CRM answered it. */
export function readRealRecords(): string {
  return readFileSync(realRecordsPath, 'utf8');
}
