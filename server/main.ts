import { ConfigError, loadConfig } from './runtime/config.ts';
import { installLastResortHandlers } from './runtime/last-resort.ts';
import { createRelayLogger } from './runtime/log.ts';
import { startRelay, type RunningRelay } from './compose/relay.ts';
import { widgetScriptTags } from './ops/script-tags.ts';
import { startBanner } from './ops/start-banner.ts';
import { claimInstance } from './ops/instance.ts';
import { DataDirInUseError, lockDataDir } from './store/data-dir-lock.ts';
import { SYNC_SIGNAL, takeSyncRequest } from './ops/sync-request.ts';
import { watchSyncProgress } from './ops/sync-progress.ts';
import { RELOAD_SIGNAL, takeReloadRequest, writeReloadResult } from './compose/reload-request.ts';
import type { AgencySet } from './compose/agency-set.ts';
import { FILLING, readinessOf } from './compose/agency-state.ts';
import { listingStatus } from './listings/cache.ts';
import { formatStartTable } from './ops/start-table.ts';
import { collectWhenIdle } from './runtime/idle-memory.ts';

const SHUTDOWN_GRACE_MS = 10_000;
/** How long the start-up table (AGENCIES_FILE) waits for the agencies' first syncs: past it, those still filling show as filling. */
const START_TABLE_WAIT_MS = 30_000;

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

// One relay per DATA_DIR (store/data-dir-lock.ts), taken before anything is opened or claimed.
let releaseDataDir: () => void;
try {
  releaseDataDir = lockDataDir(config.dataDir);
} catch (error) {
  if (error instanceof DataDirInUseError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const log = await createRelayLogger({ level: config.logLevel, format: config.logFormat }, process.stdout.isTTY === true);
installLastResortHandlers(log);
let relay: RunningRelay;
try {
  // DATABASE_URL: another process took this relay's id (a copy of DATA_DIR started while this one was unheard): stop, exit 1.
  relay = await startRelay(config, { log, onDisplaced: () => shutdown('displaced', 1) });
} catch (error) {
  // Settings refused at start (e.g. a sync that would spend too much of the CRM's daily limit).
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
log.info({ url: relay.url, dataDir: relay.store.dataDir }, `estate-embed relay listening on ${relay.url}`);
const scriptTags = widgetScriptTags(config.http.publicUrl ?? relay.url);
log.info({ latest: scriptTags.latest, pinned: scriptTags.pinned?.url, integrity: scriptTags.pinned?.integrity }, 'widget script tags');
// Each agency's sites paste the tag of its own path: its elements then call /a/<slug>/api/v1/….
const agencyTags = (relay.agencies?.list() ?? []).map((running) => ({
  slug: running.entry.slug,
  name: running.entry.name,
  tag: widgetScriptTags(`${config.http.publicUrl ?? relay.url}/a/${running.entry.slug}`).latest,
}));
for (const { slug, tag } of agencyTags) log.info({ agency: slug, latest: tag }, 'widget script tag');
// AGENCIES_FILE on a terminal: once each agency's first sync has ended (or START_TABLE_WAIT_MS), a table of them with their tags.
if (config.agenciesFile && relay.agencies && process.stdout.isTTY) void printStartTable(relay.agencies, agencyTags);
if (!config.agenciesFile && (process.stdout.isTTY || config.demoMode)) {
  console.log(
    startBanner({
      url: relay.url,
      publicUrl: config.http.publicUrl,
      demoMode: config.demoMode,
      simulator: relay.simulator,
      mailCaught: relay.simulator !== undefined && !config.mail.smtpUrl,
      tags: scriptTags,
      otherAgencies: agencyTags,
    }),
  );
}

// Memory back to the machine once the relay goes quiet after a sync or visitors (runtime/idle-memory.ts).
collectWhenIdle();

// The operator CLI: `restore` refuses while this file names a live process; `sync` signals it.
const releaseInstance = claimInstance(relay.store.dataDir);
process.on(SYNC_SIGNAL, () => {
  try {
    const { kind, agency } = takeSyncRequest(relay.store.dataDir);
    log.info({ kind, ...(agency ? { agency } : {}) }, 'sync requested by the operator CLI');
    // Every agency (the one at the root unless AGENCIES_FILE, and those under /a/<slug>/), or the one named.
    // DATABASE_URL: the relay holding each agency's sync runs it, whichever relay was asked.
    const runOrPass = (target: {
      sharedSync?: { requestSync(kind: 'full' | 'incremental'): Promise<void> };
      listings: { sync: { run(kind: 'full' | 'incremental'): Promise<unknown> } };
    }) =>
      target.sharedSync
        ? target.sharedSync
            .requestSync(kind)
            .catch((error: unknown) => log.error({ err: error }, 'could not pass the sync request to the relay holding the sync'))
        : void target.listings.sync.run(kind);
    if (!config.agenciesFile && agency === undefined) void runOrPass(relay);
    for (const running of relay.agencies?.list() ?? []) if (agency === undefined || running.entry.slug === agency) void runOrPass(running.agency);
  } catch (error) {
    log.error({ err: error }, 'could not take the sync request of the operator CLI');
  }
});
// AGENCIES_FILE: SIGHUP (or `npm run relay -- agencies reload`) re-reads the file; the answer goes where the CLI waits for it.
if (relay.agencies && config.agenciesFile) {
  const agencies = relay.agencies;
  // A file that cannot be read or written (DATA_DIR full or unwritable) is logged: a throw in a signal handler would end the relay.
  process.on(RELOAD_SIGNAL, () => {
    let id: string | null = null;
    try {
      id = takeReloadRequest(relay.store.dataDir);
    } catch (error) {
      log.error({ err: error }, 'could not take the reload request of the operator CLI; reloading anyway');
    }
    log.info({ byCli: id !== null }, 'reloading AGENCIES_FILE');
    agencies
      .reload()
      .then(
        (report) => writeReloadResult(relay.store.dataDir, { id, at: new Date().toISOString(), report }),
        (error: unknown) => log.error({ err: error }, 'AGENCIES_FILE reload failed; the agencies running keep serving'),
      )
      .catch((error: unknown) => log.error({ err: error }, 'AGENCIES_FILE reloaded, but its result for the operator CLI could not be written'));
  });
}
// The first sync (empty cache) can take minutes: counts and rates on a terminal, one log line per step.
if (!config.agenciesFile && relay.listings.cache.readState().lastSuccessAt === null) {
  const stopProgress = watchSyncProgress(relay.store, { log });
  relay.listings.sync.whenLoaded().then(
    () => stopProgress(),
    (error: Error) => stopProgress({ error: error.message }),
  );
}

async function printStartTable(agencies: AgencySet, tags: Array<{ slug: string; tag: string }>): Promise<void> {
  const deadline = Date.now() + START_TABLE_WAIT_MS;
  const rows = () =>
    agencies.list().map((running) => ({
      slug: running.entry.slug,
      name: running.entry.name,
      readiness: readinessOf(running.agency),
      listings: listingStatus(running.agency.store).total,
      tag: tags.find((tag) => tag.slug === running.entry.slug)?.tag ?? '',
    }));
  try {
    // Each agency's first sync ended and its access checked: the table then says why one is not ready.
    const settled = () =>
      agencies.list().every((running) => running.agency.access.current().checkedAt !== null) && rows().every((row) => row.readiness.reason !== FILLING);
    while (Date.now() < deadline && !settled()) await new Promise((resolve) => setTimeout(resolve, 250));
    const keyRefused = agencies
      .list()
      .flatMap((running) => running.agency.access.problems())
      .find((problem) => problem.cause === 'key')?.reason;
    console.log(formatStartTable(rows(), keyRefused));
  } catch (error) {
    // The relay may be closing meanwhile (a store closed under the table): the log says the rest.
    log.warn({ err: error }, 'could not print the agencies table');
  }
}

function shutdown(signal: string, code = 0) {
  log.info({ signal }, 'shutting down');
  // If something hangs, exit anyway; unref so the timer itself never keeps the process alive.
  setTimeout(() => {
    log.error('shutdown took too long; exiting');
    process.exit(1);
  }, SHUTDOWN_GRACE_MS).unref();
  relay.close().then(
    () => {
      releaseInstance();
      releaseDataDir();
      process.exit(code);
    },
    (error) => {
      log.error({ err: error }, 'error during shutdown');
      process.exit(1);
    },
  );
}
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
