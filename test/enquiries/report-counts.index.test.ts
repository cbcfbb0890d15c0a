import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';

// The seller's report reads one listing's leads over a few weeks (server/enquiries/report-counts.ts):
// with a busy outbox of many listings, SQLite must find them by the index, never by reading every row.

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the outbox's rows for a listing's report", () => {
  it('are found by listing and acceptance time through an index', () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-report-index-'));
    dirs.push(dir);
    const store = openStore(dir);
    stores.push(store);
    // The shape listingLeadCounts asks (its select and where, in that order).
    const plan = tablesOf(store)
      .prepare(
        'EXPLAIN QUERY PLAN SELECT accepted_at, status, spam_reason, payload FROM enquiry_outbox WHERE listing_id = ? AND accepted_at >= ? AND accepted_at < ?',
      )
      .all(7, 0, 1) as Array<{ detail: string }>;
    const steps = plan.map((step) => step.detail).join('\n');
    expect(steps).toMatch(/USING INDEX enquiry_outbox_listing \(listing_id=\? AND accepted_at>\? AND accepted_at<\?\)/);
    expect(steps).not.toMatch(/^SCAN enquiry_outbox$/m);
  });
});
