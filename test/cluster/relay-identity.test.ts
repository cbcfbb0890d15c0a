// A relay's identity on a shared database (issue 24): the random id in DATA_DIR/relay-id and a
// nonce per process. Two containers with the same host name and volume path (or a copied DATA_DIR)
// both held the sync lease and delivered enquiries twice; now the second live process with one id
// is refused at start, and a restart (clean, or after a crash once the old heartbeat lapses) works.
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import type { RunningRelay } from '../../server/compose/relay.ts';
import { ConfigError } from '../../server/runtime/config.ts';
import { RELAY_ID_FILE } from '../../server/store/relay-identity.ts';
import { DB_NOW, HEARTBEAT_MS, RELAY_ALIVE_MS, RelayIdConflictError, SharedDatabase, type RelayIdentity } from '../../server/store/shared-database.ts';
import { queryDatabase } from '../compose/pg-rig.ts';
import { freshDatabase } from '../support/postgres.ts';
import { startRelayOnDatabase } from './relay-on-database.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const identity = (nonce: string): RelayIdentity => ({
  id: '7d3c1c1e-54c9-4c8e-9a43-6f0e8f0b0c11',
  host: 'relay.internal',
  dataDir: '/var/lib/estate-embed',
  version: '0.1.0',
  nonce,
  pid: 1,
});

describe.skipIf(skipped)(`the relay registry: one live process per relay id${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  async function opened(url: string): Promise<SharedDatabase> {
    const database = await SharedDatabase.open(url);
    cleanups.push(() => database.close());
    return database;
  }

  it('a second process with the id of a live one is refused, naming the copied DATA_DIR; the first keeps its row', async () => {
    const url = await freshDatabase((postgres as { url: string }).url, 'identity');
    const first = await opened(url);
    await first.startHeartbeat(identity('first'));
    const second = await opened(url);
    const started = Date.now();
    const refused = await second.startHeartbeat(identity('second')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RelayIdConflictError);
    expect((refused as Error).message).toMatch(
      /another relay process is running with this relay's id .*pid 1 on host relay\.internal.*share one DATA_DIR or a copy of it.*delete \/var\/lib\/estate-embed\/relay-id/,
    );
    // Refused once the live one beat again: within a heartbeat or so, never the whole lapse.
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_MS + 3_000);
    const [row] = await queryDatabase<{ nonce: string }>(url, 'SELECT nonce FROM relay_key.relays');
    expect(row!.nonce).toBe('first');
  }, 30_000);

  it('a restart after a clean stop takes the id at once; after a crash, once the old heartbeat has lapsed', async () => {
    const url = await freshDatabase((postgres as { url: string }).url, 'identity');
    const first = await opened(url);
    await first.startHeartbeat(identity('first'));
    await first.close();
    const clean = await opened(url);
    let started = Date.now();
    await clean.startHeartbeat(identity('after-clean-stop'));
    expect(Date.now() - started).toBeLessThan(1_000);
    // A crash: the row still says alive (last heard 2 s before it lapses), and nobody renews it.
    clean['heartbeatTimer'] && clearInterval(clean['heartbeatTimer']);
    await queryDatabase(url, `UPDATE relay_key.relays SET last_seen = ${DB_NOW} - $1`, [RELAY_ALIVE_MS - 2_000]);
    const restarted = await opened(url);
    restarted.claimPollMs = 100;
    started = Date.now();
    await restarted.startHeartbeat(identity('after-crash'));
    expect(Date.now() - started).toBeGreaterThan(1_500);
    expect(Date.now() - started).toBeLessThan(5_000);
    const [row] = await queryDatabase<{ nonce: string }>(url, 'SELECT nonce FROM relay_key.relays');
    expect(row!.nonce).toBe('after-crash');
  }, 30_000);
});

describe.skipIf(skipped)(`relays started from a copied DATA_DIR${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let sim: RunningSimulator;
  let databaseUrl: string;
  const dirs: string[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ listings: 4, seed: 5 });
    databaseUrl = await freshDatabase((postgres as { url: string }).url, 'identity_relays');
  }, 30_000);
  afterAll(async () => {
    await sim?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const start = (dataDir: string): Promise<RunningRelay> => startRelayOnDatabase(sim, databaseUrl, dataDir, {}, { workers: false });

  it('the second relay (same host, a copy of the first one’s DATA_DIR) refuses to start; the first restarts normally', async () => {
    const first = mkdtempSync(join(tmpdir(), 'estate-identity-'));
    const copy = mkdtempSync(join(tmpdir(), 'estate-identity-copy-'));
    dirs.push(first, copy);
    let relay = await start(first);
    cleanups.push(() => relay.close());
    const id = readFileSync(join(first, RELAY_ID_FILE), 'utf8').trim();
    expect(statSync(join(first, RELAY_ID_FILE)).mode & 0o777).toBe(0o600);
    expect(relay.sharedSync).toBeDefined();
    expect(relay.enquiries.outbox.owner).toBe(id);

    // The whole DATA_DIR copied (a cloned volume, an image with it baked in), relay-id included.
    cpSync(first, copy, { recursive: true });
    const refused = await start(copy).then(
      (twin) => {
        cleanups.push(() => twin.close());
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain(`another relay process is running with this relay's id ${id}`);
    expect((refused as Error).message).toContain(`delete ${copy}/relay-id`);

    // The first relay, stopped and started again on its DATA_DIR: the same id, at once.
    await relay.close();
    const restartedAt = Date.now();
    relay = await start(first);
    expect(Date.now() - restartedAt).toBeLessThan(HEARTBEAT_MS);
    const rows = await queryDatabase<{ id: string; host: string }>(databaseUrl, 'SELECT id, host FROM relay_key.relays');
    expect(rows.map((row) => row.id)).toEqual([id]);
  }, 60_000);
});
