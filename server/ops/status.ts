import Database from 'better-sqlite3';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CAPABILITIES, missingCapabilities, readKeyAccess, type KeyAccess, type MissingCapability } from '../crm/access.ts';
import { utcDay } from '../crm/limiter.ts';
import type { Db } from '../store/store.ts';
import { STORE_FILE } from '../store/store.ts';

/** What `npm run relay -- status` reports; every figure read from the store and DATA_DIR. */
export interface RelayStatus {
  dataDir: string;
  store: { file: string; bytes: number };
  sync: {
    lastSuccessAt: string | null;
    /** Seconds since the last successful sync started: how stale the cache can be. */
    cacheAgeSeconds: number | null;
    lastFullSweepAt: string | null;
    /** The most recent sync: ok, failed (with its error) or never run. */
    lastOutcome: 'ok' | 'failed' | 'never';
    lastError: string | null;
    lastErrorAt: string | null;
  };
  /** Listings by type, then status. */
  listings: Record<string, Record<string, number>>;
  listingsTotal: number;
  agents: number;
  photos: {
    /** Photo, floorplan and portrait records, by state. */
    mirrored: number;
    pending: number;
    failed: number;
    /** Distinct images stored (a picture used twice is stored once). */
    images: number;
    files: number;
    diskBytes: number;
  };
  outbox: Record<'queued' | 'delivered' | 'dead' | 'spam', number> & { oldestQueuedAt: string | null };
  crm: { day: string; used: number; limit: number; remaining: number };
  /** What the CRM key and token allow (null: the relay has not checked yet), and what the agency must grant. */
  crmAccess: (KeyAccess & { missing: MissingCapability[] }) | null;
}

/** Opens the store read-only: status never changes anything, and never creates a store that is not there. */
export function openStoreReadOnly(dataDir: string): Db {
  const file = join(resolve(dataDir), STORE_FILE);
  if (!existsSync(file)) throw new Error(`No relay store at ${file}. Is DATA_DIR right? (The relay creates it at its first start.)`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

export function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function iso(ms: number | null): string | null {
  return ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

/** Files and bytes under a folder (the photo mirror), without following links. */
export function folderSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  if (!existsSync(dir)) return { files, bytes };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = folderSize(path);
      files += inner.files;
      bytes += inner.bytes;
    } else if (entry.isFile()) {
      files += 1;
      bytes += statSync(path).size;
    }
  }
  return { files, bytes };
}

export function collectStatus(dataDir: string, dailyLimit: number, now = new Date()): RelayStatus {
  const absoluteDir = resolve(dataDir);
  const db = openStoreReadOnly(absoluteDir);
  try {
    const storeFile = join(absoluteDir, STORE_FILE);
    const storeBytes = [storeFile, `${storeFile}-wal`].filter(existsSync).reduce((sum, file) => sum + statSync(file).size, 0);

    const state = new Map<string, string>();
    if (tableExists(db, 'listing_sync_state')) {
      for (const row of db.prepare('SELECT key, value FROM listing_sync_state').all() as Array<{ key: string; value: string }>) {
        state.set(row.key, row.value);
      }
    }
    const stateNumber = (key: string) => (state.has(key) ? Number(state.get(key)) : null);
    const lastSuccessAt = stateNumber('lastSuccessAt');
    const lastErrorAt = stateNumber('lastErrorAt');
    const lastOutcome = lastErrorAt !== null && (lastSuccessAt === null || lastErrorAt >= lastSuccessAt) ? 'failed' : lastSuccessAt !== null ? 'ok' : 'never';

    const listings: Record<string, Record<string, number>> = {};
    let listingsTotal = 0;
    let agents = 0;
    if (tableExists(db, 'listings')) {
      for (const row of db.prepare('SELECT type, status, COUNT(*) AS n FROM listings GROUP BY type, status ORDER BY type, status').all() as Array<{ type: string; status: string; n: number }>) {
        (listings[row.type] ??= {})[row.status] = row.n;
        listingsTotal += row.n;
      }
      agents = db.prepare('SELECT COUNT(*) FROM agents WHERE show_on_web = 1').pluck().get() as number;
    }

    const photos = { mirrored: 0, pending: 0, failed: 0, images: 0, files: 0, diskBytes: 0 };
    if (tableExists(db, 'photos')) {
      const row = db
        .prepare(
          `SELECT SUM(hash IS NOT NULL) AS mirrored, SUM(hash IS NULL AND error IS NULL) AS pending, SUM(hash IS NULL AND error IS NOT NULL) AS failed FROM photos`,
        )
        .get() as { mirrored: number | null; pending: number | null; failed: number | null };
      photos.mirrored = row.mirrored ?? 0;
      photos.pending = row.pending ?? 0;
      photos.failed = row.failed ?? 0;
      photos.images = db.prepare('SELECT COUNT(*) FROM photo_files').pluck().get() as number;
    }
    const disk = folderSize(join(absoluteDir, 'photos'));
    photos.files = disk.files;
    photos.diskBytes = disk.bytes;

    const outbox = { queued: 0, delivered: 0, dead: 0, spam: 0, oldestQueuedAt: null as string | null };
    if (tableExists(db, 'enquiry_outbox')) {
      for (const row of db.prepare('SELECT status, COUNT(*) AS n FROM enquiry_outbox GROUP BY status').all() as Array<{ status: keyof typeof outbox; n: number }>) {
        (outbox as Record<string, unknown>)[row.status] = row.n;
      }
      outbox.oldestQueuedAt = iso((db.prepare("SELECT MIN(accepted_at) FROM enquiry_outbox WHERE status = 'queued'").pluck().get() as number | null) ?? null);
    }

    const day = utcDay(now);
    const used = tableExists(db, 'crm_budget') ? ((db.prepare('SELECT used FROM crm_budget WHERE day = ?').pluck().get(day) as number | undefined) ?? 0) : 0;

    return {
      dataDir: absoluteDir,
      store: { file: storeFile, bytes: storeBytes },
      sync: {
        lastSuccessAt: iso(lastSuccessAt),
        cacheAgeSeconds: lastSuccessAt === null ? null : Math.max(0, Math.round((now.getTime() - lastSuccessAt) / 1000)),
        lastFullSweepAt: iso(stateNumber('lastFullSweepAt')),
        lastOutcome,
        lastError: state.get('lastError') ?? null,
        lastErrorAt: iso(lastErrorAt),
      },
      listings,
      listingsTotal,
      agents,
      photos,
      outbox,
      crm: { day, used, limit: dailyLimit, remaining: Math.max(0, dailyLimit - used) },
      crmAccess: accessOf(db),
    };
  } finally {
    db.close();
  }
}

function accessOf(db: Db): RelayStatus['crmAccess'] {
  const access = readKeyAccess(db);
  return access ? { ...access, missing: missingCapabilities(access) } : null;
}

/** The CRM access lines: each capability, what is missing and whom to ask, the scopes, the key's usage. */
function formatAccess(access: RelayStatus['crmAccess']): string[] {
  if (!access || access.checkedAt === null) return ['CRM access      not checked yet (the relay checks at start)'];
  const states = Object.entries(access.capabilities).map(([name, state]) => `${name} ${state.available === true ? 'ok' : state.available === false ? `REFUSED (${state.status})` : 'unknown'}`);
  const lines = [`CRM access      ${states.join(', ')} (checked ${access.checkedAt})`];
  for (const gap of access.missing) {
    lines.push(`  MISSING ${gap.capability}: ${gap.serves} cannot work. Ask the agency to grant this integration ${gap.grant} (${CAPABILITIES[gap.capability].proof} was refused).`);
  }
  lines.push(`CRM scopes      ${access.scopes === null ? 'could not be read' : access.scopes.length ? access.scopes.join(', ') : '(none listed)'}`);
  if (access.usage) {
    const { usage } = access;
    lines.push(
      `CRM key usage   ${usage.used} requests today by every tool on the key${usage.remaining === null ? '' : `, ${usage.remaining} left`} (at ${usage.checkedAt})` +
        (usage.others > 0 ? `; SHARED: other tools spent ${usage.others}, this relay ${usage.ours}` : ''),
    );
  }
  return lines;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatAge(seconds: number | null): string {
  if (seconds === null) return 'never synced';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

/** The human-readable report. */
export function formatStatus(status: RelayStatus): string {
  const listingLines = Object.entries(status.listings).map(
    ([type, byStatus]) => `    ${type.padEnd(6)} ${Object.entries(byStatus).map(([name, n]) => `${n} ${name}`).join(', ')}`,
  );
  const syncLine =
    status.sync.lastOutcome === 'never'
      ? 'never run'
      : status.sync.lastOutcome === 'ok'
        ? `ok at ${status.sync.lastSuccessAt}`
        : `FAILED at ${status.sync.lastErrorAt}: ${status.sync.lastError}`;
  const share = status.crm.limit > 0 ? Math.round((status.crm.used / status.crm.limit) * 100) : 0;
  return [
    `Relay store ${status.store.file} (${formatBytes(status.store.bytes)})`,
    '',
    `Listing cache   age ${formatAge(status.sync.cacheAgeSeconds)}${status.sync.lastFullSweepAt ? `, last full sweep ${status.sync.lastFullSweepAt}` : ''}`,
    `Last sync       ${syncLine}`,
    `Listings        ${status.listingsTotal}${status.listingsTotal ? '' : ' (none cached yet)'}`,
    ...listingLines,
    `Agents          ${status.agents} shown on the web`,
    `Photos          ${status.photos.mirrored} mirrored, ${status.photos.pending} pending, ${status.photos.failed} failed; ` +
      `${status.photos.images} images in ${status.photos.files} files, ${formatBytes(status.photos.diskBytes)} on disk`,
    `Enquiry outbox  ${status.outbox.queued} queued, ${status.outbox.delivered} delivered, ${status.outbox.dead} dead, ${status.outbox.spam} spam` +
      (status.outbox.oldestQueuedAt ? ` (oldest queued ${status.outbox.oldestQueuedAt})` : ''),
    `CRM requests    ${status.crm.used} of ${status.crm.limit} today (${status.crm.day} UTC, ${share}%), ${status.crm.remaining} left`,
    ...formatAccess(status.crmAccess),
  ].join('\n');
}
