// The operator CLI (`npm run relay -- <command>`) against a relay with data: a whole relay in demo
// mode (embedded CRM simulator, real SQLite file), its listings synced, enquiries accepted over
// HTTP. Figures are checked against independent sources: the relay's public API, the simulator's
// own request counter, the files on disk.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingSummary, Page } from '../../contract/relay-api.ts';
import { runCli } from '../../server/cli.ts';
import { PID_FILE } from '../../server/ops/instance.ts';
import type { RelayStatus } from '../../server/ops/status.ts';
import { STORE_FILE } from '../../server/store/store.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';
import { validSavedSearch } from '../saved-searches/support.ts';

let relay: TestRelay;
const scratch = mkdtempSync(join(tmpdir(), 'estate-cli-'));

/** Runs a CLI command as `npm run relay --` would, with DATA_DIR (and more) in its environment. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { DATA_DIR: relay.dataDir, ...env },
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function status(): Promise<RelayStatus> {
  const result = await cli(['status', '--json']);
  expect(result.err).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.out) as RelayStatus;
}

let enquiriesPosted = 0;

/** A question about `listingId`; each its own message, so each is its own lead (one lead per intent: the same one again within a day is not). */
async function postEnquiry(listingId: number, extra: Record<string, unknown> = {}): Promise<Response> {
  enquiriesPosted += 1;
  return fetch(`${relay.url}/api/v1/enquiries`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      originalId: randomUUID(),
      listingId,
      fullName: 'Priya Raman',
      email: 'priya.raman@example.com',
      message: `Could we see it on Saturday? (${enquiriesPosted})`,
      elapsedMs: 20_000,
      ...extra,
    }),
  });
}

async function apiTotal(query: string): Promise<number> {
  const response = await fetch(`${relay.url}/api/v1/listings?${query}&pageSize=1`);
  expect(response.status).toBe(200);
  return ((await response.json()) as Page<ListingSummary>).total;
}

function filesUnder(dir: string): { files: number; bytes: number } {
  if (!existsSync(dir)) return { files: 0, bytes: 0 };
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return { files: entries.length, bytes: entries.reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0) };
}

function rows(dataDir: string): { listings: unknown[]; outbox: unknown[] } {
  const db = new Database(join(dataDir, STORE_FILE), { readonly: true });
  try {
    return {
      listings: db.prepare('SELECT * FROM listings ORDER BY id').all(),
      // sending_since is what restore changes on purpose (queued entries: "outcome unknown").
      outbox: db
        .prepare('SELECT * FROM enquiry_outbox ORDER BY seq')
        .all()
        .map((row) => ({ ...(row as object), sending_since: null })),
    };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  // Workers off: the test syncs by hand and keeps enquiries queued, so the figures hold still.
  // Agent confirmation: a saved search is queued for the CRM at once (by e-mail it would wait for its owner's click, saved-searches tests).
  relay = await startTestRelay({ ENQUIRY_MIN_FILL_MS: '1000', ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000', SAVED_SEARCH_CONFIRMATION: 'agent' }, { workers: false });
  const report = await relay.listings.sync.run('full');
  expect(report.error).toBeUndefined();
}, 90_000);

afterAll(async () => {
  await relay?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('npm run relay -- status', () => {
  it('reports what the store holds: listings by type and status, photos, outbox, CRM use, last sync', async () => {
    const [first, second] = ((await (await fetch(`${relay.url}/api/v1/listings?pageSize=2`)).json()) as Page<ListingSummary>).items;
    for (const listing of [first!, second!]) expect((await postEnquiry(listing.id)).status).toBe(202);
    // A filled honeypot is accepted as far as the sender can tell, and kept in the quarantine.
    expect((await postEnquiry(first!.id, { website: 'http://spam.example' })).status).toBe(202);
    const savedSearch = await fetch(`${relay.url}/api/v1/saved-searches`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(validSavedSearch()),
    });
    expect(savedSearch.status).toBe(202);

    // A second on, so the queues' ages are whole seconds old (an age stuck at 0 would not pass).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const asked = Date.now();
    const figures = await status();
    const answered = Date.now();
    /** A queue's age must be whole seconds from its oldest entry to a moment during the status call. */
    const expectAgeOf = (queue: { oldestQueuedAt: string | null; oldestQueuedSeconds: number | null }, what: string) => {
      const oldest = Date.parse(queue.oldestQueuedAt!);
      expect(queue.oldestQueuedSeconds, what).toBeGreaterThanOrEqual(Math.round((asked - oldest) / 1000));
      expect(queue.oldestQueuedSeconds, what).toBeLessThanOrEqual(Math.round((answered - oldest) / 1000));
      expect(queue.oldestQueuedSeconds, what).toBeGreaterThanOrEqual(1);
    };

    for (const [type, byStatus] of Object.entries(figures.listings)) {
      for (const [state, count] of Object.entries(byStatus)) expect(count, `${type} ${state}`).toBe(await apiTotal(`type=${type}&status=${state}`));
    }
    expect(figures.listingsTotal).toBeGreaterThan(0);
    expect(figures.listings.sale?.available).toBeGreaterThan(0);

    expect(figures.outbox).toMatchObject({ queued: 2, delivered: 0, dead: 0, spam: 0, quarantined: 1 });
    expect(figures.outbox.oldestQueuedAt).not.toBeNull();
    expect(figures.outbox.oldestQueuedSeconds).toBeGreaterThanOrEqual(0);
    // The saved-search queue beside the outbox: one waiting for the CRM (the workers are off), its age.
    expect(figures.savedSearches).toMatchObject({ queued: 1, unconfirmed: 0, saved: 0, unsubscribed: 0, expired: 0, dead: 0, spam: 0, quarantined: 0 });
    expect(Date.parse(figures.savedSearches.oldestQueuedAt!)).toBeLessThanOrEqual(Date.now());
    expect(figures.savedSearches.oldestQueuedSeconds).toBeGreaterThanOrEqual(0);
    expectAgeOf(figures.outbox, 'the outbox');
    expectAgeOf(figures.savedSearches, 'the saved searches');

    // The simulator counts what it received per key: the relay's daily budget must agree.
    const counters = (await (await fetch(`${relay.simulator!.origin}/__sim/counters`)).json()) as { perKey: Record<string, { usedToday: number }> };
    const [usage] = Object.values(counters.perKey);
    expect(figures.crm).toMatchObject({ used: usage!.usedToday, limit: relay.config.crm.dailyLimit });
    expect(figures.crm.remaining).toBe(relay.config.crm.dailyLimit - usage!.usedToday);

    const disk = filesUnder(join(relay.dataDir, 'photos'));
    expect(figures.photos).toMatchObject({ files: disk.files, diskBytes: disk.bytes });
    expect(figures.photos.mirrored).toBeGreaterThan(0);
    expect(figures.photos.images).toBeGreaterThan(0);

    expect(figures.sync.lastOutcome).toBe('ok');
    expect(figures.sync.cacheAgeSeconds).toBeLessThan(120);
    expect(figures.sync.lastFullSweepAt).not.toBeNull();
  });

  it('prints the same figures for people, and says when the last sync failed', async () => {
    await fetch(`${relay.simulator!.origin}/__sim/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ match: '/properties/**', errorRate: 1, errorStatus: 401 }),
    });
    try {
      const report = await relay.listings.sync.run('incremental');
      expect(report.error).toBeDefined();
    } finally {
      await fetch(`${relay.simulator!.origin}/__sim/faults`, { method: 'DELETE' });
    }
    const { code, out } = await cli(['status']);
    expect(code).toBe(0);
    expect(out).toMatch(/Last sync\s+FAILED at \S+: .+/);
    expect(out).toMatch(/Enquiry outbox\s+2 queued, 0 delivered, 0 dead, 0 spam, 1 quarantined \(oldest queued \S+, \d+ s ago\)/);
    expect(out).toMatch(
      /Saved searches\s+1 queued, 0 awaiting their owner's confirmation, 0 saved, 0 not written \(contact unsubscribed\), 0 expired, 0 dead, 0 spam, 0 quarantined \(oldest queued \S+, \d+ s ago\)/,
    );
    expect(out).toMatch(/CRM requests\s+\d+ of 10000 today/);
    const figures = await status();
    expect(figures.sync.lastOutcome).toBe('failed');
  });

  it('says so when DATA_DIR holds no store, instead of creating one', async () => {
    const empty = join(scratch, 'nothing-here');
    const { code, err } = await cli(['status'], { DATA_DIR: empty });
    expect(code).toBe(1);
    expect(err).toContain('No relay store');
    expect(existsSync(empty)).toBe(false);
  });
});

describe('npm run relay -- sync', () => {
  it('runs one sync in this process against the CRM of the environment and reports it', async () => {
    const dataDir = join(scratch, 'fresh');
    const env = {
      DATA_DIR: dataDir,
      CRM_BASE_URL: relay.config.crm.baseUrl!,
      CRM_API_KEY: relay.config.crm.apiKey!,
      CRM_ACCESS_TOKEN: relay.config.crm.accessToken!,
      PHOTO_HOSTS: new URL(relay.simulator!.origin).host,
      PUBLIC_URL: 'https://relay.agency.test',
      LOG_LEVEL: 'silent',
    };
    const result = await cli(['sync', '--full'], env);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^full sync: \d+ listings written, 0 removed, \d+ photos downloaded \(0 failed\)/);
    const written = Number(/full sync: (\d+) listings written/.exec(result.out)![1]);
    const figures = JSON.parse((await cli(['status', '--json'], env)).out) as RelayStatus;
    expect(figures.listingsTotal).toBe(written);
    expect(figures.sync.lastOutcome).toBe('ok');
  }, 60_000);

  it('refuses in demo mode with no relay running (the simulator lives inside the relay)', async () => {
    const { code, err } = await cli(['sync']);
    expect(code).toBe(1);
    expect(err).toContain('Demo mode');
  });
});

describe('npm run relay -- backup / restore', () => {
  it('backs up while the relay serves and writes, and restoring gives back the same listings and outbox', async () => {
    const file = join(scratch, 'relay-backup.db');
    // Enquiries land while the backup runs: the copy is consistent either way.
    const [listing] = ((await (await fetch(`${relay.url}/api/v1/listings?pageSize=1`)).json()) as Page<ListingSummary>).items;
    const [backup] = await Promise.all([cli(['backup', file]), postEnquiry(listing!.id), postEnquiry(listing!.id)]);
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.out).toMatch(/integrity check ok/);

    const db = new Database(file, { readonly: true });
    const backedUpOutbox = db.prepare('SELECT COUNT(*) FROM enquiry_outbox').pluck().get() as number;
    db.close();
    expect([3, 4, 5]).toContain(backedUpOutbox);

    // A second backup to the same name needs --force.
    expect((await cli(['backup', file])).code).toBe(1);

    // Restore into a new DATA_DIR (a new machine): same listings and outbox, photos fetched again.
    const elsewhere = join(scratch, 'restored');
    const restored = await cli(['restore', file], { DATA_DIR: elsewhere });
    expect(restored.err).toBe('');
    expect(restored.code).toBe(0);
    const expected = (() => {
      const source = new Database(file, { readonly: true });
      try {
        return {
          listings: source.prepare('SELECT id, type, status, public_json FROM listings ORDER BY id').all(),
          outbox: source
            .prepare('SELECT * FROM enquiry_outbox ORDER BY seq')
            .all()
            .map((row) => ({ ...(row as object), sending_since: null })),
        };
      } finally {
        source.close();
      }
    })();
    const target = new Database(join(elsewhere, STORE_FILE), { readonly: true });
    try {
      expect(target.prepare('SELECT id, type, status, public_json FROM listings ORDER BY id').all()).toEqual(expected.listings);
      const outbox = target.prepare('SELECT * FROM enquiry_outbox ORDER BY seq').all() as Array<{ status: string; sending_since: number | null }>;
      expect(outbox.map((row) => ({ ...row, sending_since: null }))).toEqual(expected.outbox);
      // Queued enquiries come back as "outcome unknown": the CRM is asked before any resend.
      expect(outbox.filter((row) => row.status === 'queued').every((row) => row.sending_since !== null)).toBe(true);
      // No photo files came along: none is claimed as mirrored, and the next sync is a full sweep.
      expect(target.prepare('SELECT COUNT(*) FROM photos WHERE hash IS NOT NULL').pluck().get()).toBe(0);
      expect(target.prepare("SELECT COUNT(*) FROM listing_sync_state WHERE key = 'lastFullSweepAt'").pluck().get()).toBe(0);
    } finally {
      target.close();
    }
    expect(restored.out).toMatch(/images are not in DATA_DIR\/photos/);
  }, 60_000);

  it('restores in place once the relay has stopped, keeping the replaced store', async () => {
    const file = join(scratch, 'in-place.db');
    expect((await cli(['backup', file])).code).toBe(0);
    const before = rows(relay.dataDir);
    const [listing] = ((await (await fetch(`${relay.url}/api/v1/listings?pageSize=1`)).json()) as Page<ListingSummary>).items;
    expect((await postEnquiry(listing!.id)).status).toBe(202); // after the backup: not in it

    const dataDir = relay.dataDir;
    await relay.listings.sync.stop();
    relay.store.close();
    const result = await cli(['restore', file], { DATA_DIR: dataDir });
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const after = rows(dataDir);
    expect(after.listings).toEqual(before.listings);
    expect(after.outbox).toEqual(before.outbox);
    const kept = readdirSync(dataDir).filter((name) => name.startsWith(`${STORE_FILE}.before-restore-`) && !/-(wal|shm)$/.test(name));
    expect(kept).toHaveLength(1);
    const replaced = new Database(join(dataDir, kept[0]!), { readonly: true });
    expect(replaced.prepare('SELECT COUNT(*) FROM enquiry_outbox').pluck().get()).toBe(before.outbox.length + 1);
    replaced.close();
  }, 60_000);

  it('refuses to restore while a relay runs on the DATA_DIR, and refuses a damaged backup', async () => {
    const dataDir = join(scratch, 'guarded');
    const file = join(scratch, 'relay-backup.db');
    // Another live process claims the DATA_DIR, as a running relay does.
    const stand_in: ChildProcess = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((resolve) => stand_in.once('spawn', resolve));
      rmSync(dataDir, { recursive: true, force: true });
      await cli(['restore', file], { DATA_DIR: dataDir });
      writeFileSync(join(dataDir, PID_FILE), JSON.stringify({ pid: stand_in.pid, startedAt: new Date().toISOString() }));
      const refused = await cli(['restore', file], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/A relay \(pid \d+.*\) is running on .*: stop it first/);
    } finally {
      stand_in.kill();
    }

    const damaged = join(scratch, 'damaged.db');
    writeFileSync(damaged, Buffer.alloc(8192, 7));
    const result = await cli(['restore', damaged], { DATA_DIR: join(scratch, 'never') });
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/not a (readable )?SQLite database/);
    expect(existsSync(join(scratch, 'never', STORE_FILE))).toBe(false);
  }, 30_000);
});
