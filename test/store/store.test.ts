import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupStore } from '../../server/ops/backup.ts';
import Database from 'better-sqlite3';
import { openStore, writeLockFree, WriteHealth, type Store } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

const dirs: string[] = [];
const stores: Store[] = [];
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'estate-store-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('store', () => {
  it('opens a WAL database with full sync in DATA_DIR', () => {
    const dir = tempDir();
    const store = openStore(join(dir, 'nested'));
    stores.push(store);
    expect(store.file).toBe(join(dir, 'nested', 'relay.db'));
    expect(tablesOf(store).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(tablesOf(store).pragma('synchronous', { simple: true })).toBe(2); // FULL
  });

  it('applies each migration once, in order, and only new ones on reopen', () => {
    const dir = tempDir();
    const first = openStore(dir, [{ id: '001-a', sql: 'CREATE TABLE a (x INTEGER) STRICT' }]);
    tablesOf(first).prepare('INSERT INTO a VALUES (1)').run();
    first.close();
    const second = openStore(dir, [
      { id: '001-a', sql: 'CREATE TABLE a (x INTEGER) STRICT' },
      { id: '002-b', sql: 'ALTER TABLE a ADD COLUMN y TEXT' },
    ]);
    stores.push(second);
    const ids = tablesOf(second).prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all();
    expect(ids).toEqual(['001-a', '002-b']);
    expect(tablesOf(second).prepare('SELECT x, y FROM a').get()).toEqual({ x: 1, y: null });
  });

  it('rolls a failing migration back whole', () => {
    const dir = tempDir();
    expect(() => openStore(dir, [{ id: '001-bad', sql: 'CREATE TABLE t (x INTEGER); INSERT INTO nowhere VALUES (1);' }])).toThrow(/nowhere/);
    const store = openStore(dir, []);
    stores.push(store);
    const tables = tablesOf(store).prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 't'").all();
    expect(tables).toEqual([]);
  });

  describe('file modes (only the relay user may read personal data)', () => {
    it('creates DATA_DIR 0700 and the store, its WAL and shared memory 0600', async () => {
      const previous = process.umask(0o022);
      try {
        const dir = tempDir();
        const dataDir = join(dir, 'data');
        const store = openStore(dataDir);
        stores.push(store);
        tablesOf(store).prepare('INSERT INTO crm_budget (day, used) VALUES (?, ?)').run('2026-01-01', 1);
        expect(modeOf(dataDir)).toBe('700');
        for (const suffix of ['', '-wal', '-shm']) expect([suffix, modeOf(`${store.file}${suffix}`)]).toEqual([suffix, '600']);
        const backup = join(dir, 'backup.db');
        await backupStore(dataDir, backup);
        expect(modeOf(backup)).toBe('600');
      } finally {
        process.umask(previous);
      }
    });

    it('tightens a DATA_DIR and store that others could read, and says so', () => {
      const dir = tempDir();
      const dataDir = join(dir, 'data');
      mkdirSync(dataDir);
      chmodSync(dataDir, 0o755);
      closeSync(openSync(join(dataDir, 'relay.db'), 'w'));
      chmodSync(join(dataDir, 'relay.db'), 0o644);
      const warnings: string[] = [];
      const store = openStore(dataDir, undefined, { warn: (message) => warnings.push(message) });
      stores.push(store);
      expect(modeOf(dataDir)).toBe('700');
      expect(modeOf(store.file)).toBe('600');
      expect(warnings).toEqual([
        'DATA_DIR was readable by others (mode 755); tightened to 700',
        'store file was readable by others (mode 644); tightened to 600',
      ]);
    });
  });

  describe('write health (a lock held by another connection)', () => {
    it('holds writers off after a lock failure and lets them back within a probe of the release, without waiting on the lock', () => {
      const dir = tempDir();
      const store = openStore(dir);
      stores.push(store);
      tablesOf(store).pragma('busy_timeout = 50'); // the relay waits 5 s; the test need not
      let clock = 1_000;
      const writes = new WriteHealth(
        () => writeLockFree(tablesOf(store)),
        () => clock,
      );
      const other = new Database(store.file);
      try {
        other.exec('BEGIN IMMEDIATE');
        let error: unknown;
        try {
          tablesOf(store).prepare('INSERT INTO crm_budget (day, used) VALUES (?, 1)').run('2026-01-01');
        } catch (caught) {
          error = caught;
        }
        expect(writes.failed(error)).toBe(true);
        expect(writes.heldUntil()).toBe(2_000);
        clock = 2_000;
        const started = performance.now();
        expect(writes.heldUntil(), 'still locked: held another second').toBe(3_000);
        expect(performance.now() - started, 'the probe does not wait for the lock').toBeLessThan(40);
        other.exec('ROLLBACK');
        expect(writes.heldUntil(), 'not probed again before its time').toBe(3_000);
        clock = 3_000;
        expect(writes.heldUntil()).toBeUndefined();
        tablesOf(store).prepare('INSERT INTO crm_budget (day, used) VALUES (?, 1)').run('2026-01-01');
      } finally {
        other.close();
      }
    });

    it('ignores errors that are not the store being unavailable', () => {
      const writes = new WriteHealth();
      expect(writes.failed(new Error('a bug'))).toBe(false);
      expect(writes.heldUntil()).toBeUndefined();
    });
  });
});
