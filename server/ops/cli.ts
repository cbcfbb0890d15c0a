import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { usageError, wantsHelp, type CliCommand, type CliContext } from '../runtime/cli-command.ts';
import { parseOptions } from '../runtime/cli-options.ts';
import { agencyTokenSetting, createCrmClientFromConfig } from '../crm/client.ts';
import { crmListingSource } from '../crm/listing-source.ts';
import { createLogger } from '../runtime/log.ts';
import { readSyncState } from '../listings/cache.ts';
import { createListingsService, type SyncReport } from '../listings/index.ts';
import { createProgress } from '../runtime/progress.ts';
import { closeStore, openStore, openStoreReadOnly } from '../store/store.ts';
import { collectAgenciesStatus, formatKeyTotals } from './agencies-cli.ts';
import { readAgenciesFile } from '../compose/agencies-file.ts';
import { backupStore, restoreStore } from './backup.ts';
import { backupSharedStore, restoreSharedStore } from './pg-backup.ts';
import { attachPostgres, redactUrl } from '../store/postgres.ts';
import { runningRelay } from './instance.ts';
import { agencySchema, SharedDatabase } from '../store/shared-database.ts';
import { formatSharedStatus, readSharedStatus, type SharedStatus } from './relays.ts';
import { collectStatus, formatBytes, formatStatus, leadQueuesStatus, mailStatus } from './status.ts';
import { DEMO_MAIL_FROM } from '../compose/relay.ts';
import { watchSyncProgress } from './sync-progress.ts';
import { SYNC_REQUEST_FILE, SYNC_SIGNAL } from './sync-request.ts';
import { sharedGateOfKey } from '../cluster/shared-gate.ts';

export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'Cache age, listings, photos and disk, outbox and saved-search queue depth, CRM requests today, last sync.',
  usage: `Usage:
  npm run relay -- status [--json]
      What the relay's store holds now (read-only; safe while the relay runs). With DATABASE_URL
      also every relay on the database (alive or gone, last seen, how many agencies' syncs it
      holds), which relay holds this agency's sync (with AGENCIES_FILE: how many are held and
      which leases expired), and the key's CRM requests today across the relays.`,
  async run(args, context) {
    if (wantsHelp(args)) {
      context.out(this.usage);
      return 0;
    }
    const options = parseOptions(args, ['json']);
    if (typeof options === 'string' || options.positional.length)
      return usageError(this, typeof options === 'string' ? options : 'status takes no arguments', context);
    // DATABASE_URL: the relays on the shared store and the key's day across them, after this relay's own report.
    let shared: SharedStatus | undefined;
    if (context.config.databaseUrl) {
      try {
        shared = await readSharedStatus(context.config.databaseUrl, context.config.crm.apiKey);
      } catch (error) {
        context.err((error as Error).message);
        return 1;
      }
    }
    // One agency (no AGENCIES_FILE, or --agency): its schema's sync holder is named.
    const singleAgencySchema = context.config.agenciesFile ? undefined : agencySchema(context.agency?.slug);
    const sync = shared && singleAgencySchema !== undefined ? { sync: shared.syncs.find((holder) => holder.schema === singleAgencySchema) ?? null } : {};
    const sharedJson = shared ? { shared: { ...shared, ...sync } } : {};
    // Only the shared store's lines use it (without DATABASE_URL, keyStatus reads the file and reports a bad one alike).
    let agencySchemas: string[] | undefined;
    try {
      agencySchemas =
        shared && context.config.agenciesFile ? readAgenciesFile(context.config.agenciesFile).map((entry) => agencySchema(entry.slug)) : undefined;
    } catch (error) {
      context.err((error as Error).message);
      return 1;
    }
    const sharedText = shared ? `\n${formatSharedStatus(shared, context.config.crm.dailyLimit, { singleAgencySchema, agencySchemas })}` : '';
    if (context.config.agenciesFile) return keyStatus(context, options.flags.has('json'), sharedJson, sharedText);
    let status;
    try {
      status = collectStatus(
        context.config.dataDir,
        context.config.crm.dailyLimit,
        undefined,
        context.agency ? agencyTokenSetting(context.agency.slug) : undefined,
      );
      // DATABASE_URL: the relay keeps its lead queues in PostgreSQL (its agency's schema with
      // --agency), where the SQLite file holds none of their rows: counted there.
      if (context.config.databaseUrl) Object.assign(status, await queuesInPostgres(context, context.config.databaseUrl));
    } catch (error) {
      context.err((error as Error).message);
      return 1;
    }
    // Demo mode sends through the simulator's catcher, which exists only while the relay runs.
    status.mail =
      context.config.demoMode && !context.config.mail.smtpUrl
        ? {
            smtp: "the demo simulator's mail catcher",
            from: context.config.mail.from ?? DEMO_MAIL_FROM,
            alertConfirmation: context.config.savedSearches.confirmation,
          }
        : mailStatus(context.config);
    // The key's day is counted in PostgreSQL then (the SQLite count stays 0): show that one.
    if (shared?.crmUsedToday != null) status.crm = { ...status.crm, used: shared.crmUsedToday, remaining: Math.max(0, status.crm.limit - shared.crmUsedToday) };
    const relay = runningRelay(context.agency?.keyDataDir ?? context.config.dataDir);
    if (options.flags.has('json')) context.out(JSON.stringify({ ...status, relay: relay ?? null, ...sharedJson }, null, 2));
    else
      context.out(
        `${formatStatus(status)}\nRelay process   ${relay ? `running (pid ${relay.pid}, since ${relay.startedAt})` : 'not running on this DATA_DIR'}${sharedText}`,
      );
    return 0;
  },
};

/** The lead queues' counts from the PostgreSQL store the relay uses (leadQueuesStatus), over a store opened for it alone. */
async function queuesInPostgres(context: CliContext, databaseUrl: string) {
  const store = openStoreReadOnly(context.config.dataDir);
  try {
    await attachPostgres(store, databaseUrl, { schema: context.agency ? agencySchema(context.agency.slug) : undefined });
    return await leadQueuesStatus(store);
  } finally {
    await closeStore(store);
  }
}

/** With AGENCIES_FILE: the key's totals (calls today against the budget, the plan, the agencies); each agency is in `agencies`. */
function keyStatus(context: CliContext, json: boolean, sharedJson: { shared?: SharedStatus }, sharedText: string): number {
  let status;
  try {
    status = collectAgenciesStatus(context.config.agenciesFile!, context.config.dataDir, context.config.crm.dailyLimit, {
      outboxInPostgres: context.config.databaseUrl !== undefined,
      settings: context.config,
    });
  } catch (error) {
    context.err((error as Error).message);
    return 1;
  }
  const relay = runningRelay(context.config.dataDir);
  if (json) {
    const { agencies, ...totals } = status;
    context.out(
      JSON.stringify(
        {
          ...totals,
          agencies: {
            count: agencies.length,
            serving: agencies.filter((row) => row.state === 'serving').length,
            notReady: agencies.filter((row) => row.state === 'not ready').length,
            draining: agencies.filter((row) => row.state === 'draining').length,
            removedWithLeadsQueued: agencies.filter((row) => row.state === 'removed').length,
            queued: agencies.reduce((sum, row) => sum + (row.outboxQueued ?? 0), 0),
            savedSearchesQueued: agencies.reduce((sum, row) => sum + (row.savedSearches?.queued ?? 0), 0),
            savedSearchesDead: agencies.reduce((sum, row) => sum + (row.savedSearches?.dead ?? 0), 0),
          },
          // Per agency: its mail server (never the credentials) and how its saved searches are confirmed.
          mail: agencies.map((row) => ({ slug: row.slug, ...row.mail })),
          relay: relay ?? null,
          ...sharedJson,
        },
        null,
        2,
      ),
    );
  } else {
    context.out(`${formatKeyTotals(status)}
Relay process   ${relay ? `running (pid ${relay.pid}, since ${relay.startedAt})` : 'not running on this DATA_DIR'}
Each agency:    npm run relay -- agencies${sharedText}`);
  }
  return 0;
}

function describeReport(report: Pick<SyncReport, 'kind' | 'changed' | 'removed' | 'photos' | 'crmRequests' | 'seconds' | 'error'>): string {
  const line =
    `${report.kind} sync: ${report.changed} listings written, ${report.removed} removed, ` +
    `${report.photos.downloaded} photos downloaded (${report.photos.failed} failed), ${report.crmRequests} CRM requests, ${report.seconds} s`;
  return report.error ? `${line}\nFAILED: ${report.error}` : line;
}

export const syncCommand: CliCommand = {
  name: 'sync',
  summary: 'Run one listing sync now (in the running relay if there is one).',
  usage: `Usage:
  npm run relay -- sync [--full] [--timeout SECONDS]
      One listing sync now: incremental (records the CRM changed lately), or with --full a full
      sweep (every list; also removes listings that left the CRM). With a relay running on this
      DATA_DIR, the relay runs it (signal ${SYNC_SIGNAL}) and this command waits for the outcome
      (default up to 600 s); otherwise this process runs it against the CRM in the environment.`,
  async run(args, context) {
    if (wantsHelp(args)) {
      context.out(this.usage);
      return 0;
    }
    const options = parseOptions(args, ['full'], ['timeout']);
    if (typeof options === 'string' || options.positional.length)
      return usageError(this, typeof options === 'string' ? options : 'sync takes no arguments', context);
    const timeoutSeconds = options.values.timeout === undefined ? 600 : Number(options.values.timeout);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) return usageError(this, '--timeout must be a positive number of seconds', context);
    const kind = options.flags.has('full') ? 'full' : 'incremental';
    const relay = runningRelay(context.agency?.keyDataDir ?? context.config.dataDir);
    if (relay) return syncInRunningRelay(relay.pid, kind, timeoutSeconds, context);
    if (context.config.demoMode) {
      context.err(
        'Demo mode (no CRM credentials set) and no relay running on this DATA_DIR: the demo CRM simulator lives inside ' +
          'the relay. Start it (npm start), then run this again; or set CRM_BASE_URL, CRM_API_KEY and CRM_ACCESS_TOKEN.',
      );
      return 1;
    }
    return syncHere(kind, context);
  },
};

/** Runs the sync in this process, with the relay's own code and settings, against the store. */
async function syncHere(kind: 'full' | 'incremental', context: CliContext): Promise<number> {
  const { config } = context;
  const log = createLogger({ level: config.logLevel === undefined || config.logLevel === 'info' ? 'warn' : config.logLevel });
  const store = openStore(config.dataDir);
  // One agency of many: the key's budget is in DATA_DIR's store, shared with the relay and every agency.
  const keyStore = context.agency ? openStore(context.agency.keyDataDir) : undefined;
  // DATABASE_URL: the key's limits are the ones every relay shares (a sync here must not add its own 10 a second).
  let sharedDatabase: SharedDatabase | undefined;
  try {
    sharedDatabase = config.databaseUrl ? await SharedDatabase.open(config.databaseUrl, { poolSize: 2 }) : undefined;
  } catch (error) {
    store.close();
    keyStore?.close();
    context.err((error as Error).message);
    return 1;
  }
  const crm = createCrmClientFromConfig(config, store, log, {
    limiterStore: keyStore,
    agency: context.agency?.slug,
    shared: sharedDatabase ? { database: sharedDatabase, gate: sharedGateOfKey(config, sharedDatabase) } : undefined,
  });
  const stopProgress = watchSyncProgress(store, { log });
  try {
    const listings = createListingsService({ config, store, log, source: crmListingSource({ client: crm, config }) });
    const report = await listings.sync.run(kind);
    stopProgress(report.error ? { error: report.error } : {});
    context.out(describeReport(report));
    return report.error ? 1 : 0;
  } catch (error) {
    stopProgress({ error: (error as Error).message });
    context.err((error as Error).message);
    return 1;
  } finally {
    crm.close();
    store.close();
    keyStore?.close();
    await sharedDatabase?.close();
  }
}

/** Asks the running relay for a sync and waits until its outcome is in the store. */
async function syncInRunningRelay(pid: number, kind: 'full' | 'incremental', timeoutSeconds: number, context: CliContext): Promise<number> {
  const dataDir = resolve(context.config.dataDir);
  const requestedAt = Date.now();
  // The request goes where the relay reads it (DATA_DIR); the outcome is read from the agency's store.
  writeFileSync(
    join(resolve(context.agency?.keyDataDir ?? dataDir), SYNC_REQUEST_FILE),
    JSON.stringify({ kind, requestedAt, ...(context.agency ? { agency: context.agency.slug } : {}) }),
    { mode: 0o600 },
  );
  process.kill(pid, SYNC_SIGNAL);
  context.out(`Asked the running relay (pid ${pid}) for a${kind === 'full' ? ' full' : 'n incremental'} sync; waiting for it…`);
  const store = openStoreReadOnly(dataDir);
  const stopProgress = watchSyncProgress(store);
  try {
    const deadline = requestedAt + timeoutSeconds * 1000;
    while (Date.now() < deadline) {
      const state = readSyncState(store);
      // A run stamps the time it started: one that started after our request is ours (or later).
      if ((state.lastErrorAt ?? 0) >= requestedAt - 1000 && state.lastError !== null) {
        stopProgress({ error: state.lastError });
        context.err(`The sync failed: ${state.lastError}`);
        return 1;
      }
      if ((state.lastSuccessAt ?? 0) >= requestedAt - 1000) {
        stopProgress();
        context.out('The sync is done: see `npm run relay -- status`, and the relay log for its figures.');
        return 0;
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 250));
    }
    stopProgress({ error: 'timed out' });
    context.err(`No outcome within ${timeoutSeconds} s; the relay may still be syncing (a sync already running finishes first).`);
    return 1;
  } finally {
    store.close();
  }
}

export const backupCommand: CliCommand = {
  name: 'backup',
  summary: 'Online backup of the store (with DATABASE_URL: pg_dump of the shared store too) (safe while the relay runs).',
  usage: `Usage:
  npm run relay -- backup <file> [--force]
      A consistent copy of the SQLite store (listings, outbox, budget, sync state), taken with
      SQLite's online backup while the relay keeps running, then verified. --force replaces an
      existing file. Photo files are not included: they are downloaded again after a restore.
  With DATABASE_URL: npm run relay -- backup <folder> [--force]
      A folder (0700) with postgres.dump (pg_dump --format=custom of every relay schema on the
      database, every agency at once: one consistent snapshot while the relays run), relay.db
      (DATA_DIR's SQLite store) and backup.json. Needs pg_dump and pg_restore (PATH or
      /usr/lib/postgresql/*/bin) of the server's major version or newer; no --agency.`,
  async run(args, context) {
    if (wantsHelp(args)) {
      context.out(this.usage);
      return 0;
    }
    const options = parseOptions(args, ['force']);
    if (typeof options === 'string') return usageError(this, options, context);
    if (options.positional.length !== 1) return usageError(this, `backup takes one ${context.config.databaseUrl ? 'folder' : 'file'} name`, context);
    if (context.config.databaseUrl) {
      if (context.agency)
        return usageError(this, 'with DATABASE_URL the backup holds every agency (their schemas in one pg_dump): run it without --agency', context);
      try {
        const summary = await backupSharedStore(context.config.databaseUrl, context.config.dataDir, options.positional[0]!, {
          force: options.flags.has('force'),
        });
        context.out(
          `Backed up to ${summary.folder} in ${summary.seconds} s: PostgreSQL schemas ${summary.schemas.join(', ')} (${formatBytes(summary.dumpBytes)}, read back by pg_restore), ` +
            (summary.sqliteBytes === null ? 'no SQLite store in DATA_DIR.' : `DATA_DIR's store (${formatBytes(summary.sqliteBytes)}, integrity check ok).`),
        );
        return 0;
      } catch (error) {
        context.err((error as Error).message);
        return 1;
      }
    }
    const progress = createProgress('Backup', { unit: 'pages' });
    try {
      const summary = await backupStore(context.config.dataDir, options.positional[0]!, { force: options.flags.has('force'), progress });
      context.out(
        `Backed up to ${summary.file} (${formatBytes(summary.bytes)}, ${summary.listings} listings, ${summary.outbox} outbox entries) in ${summary.seconds} s; integrity check ok.`,
      );
      return 0;
    } catch (error) {
      context.err((error as Error).message);
      return 1;
    }
  },
};

export const restoreCommand: CliCommand = {
  name: 'restore',
  summary: 'Replace the store with a backup (the relay must be stopped).',
  usage: `Usage:
  npm run relay -- restore <file>
      Verifies the backup (SQLite integrity check, a schema this relay knows), then puts it in
      place of the store. Refused while a relay runs on this DATA_DIR. The replaced store is kept
      as relay.db.before-restore-<time>. Photos missing from DATA_DIR/photos are fetched again by
      the first sync after the relay starts.
  With DATABASE_URL: npm run relay -- restore <folder>
      A folder made by backup: pg_restore of its dump into the EMPTY database DATABASE_URL names
      (one transaction), queued enquiries marked to be looked up in the CRM before any is sent
      again, then relay.db into DATA_DIR as above. Every relay stopped first; no --agency.`,
  async run(args, context) {
    if (wantsHelp(args)) {
      context.out(this.usage);
      return 0;
    }
    const options = parseOptions(args, []);
    if (typeof options === 'string') return usageError(this, options, context);
    if (options.positional.length !== 1) return usageError(this, `restore takes one ${context.config.databaseUrl ? 'folder' : 'file'} name`, context);
    if (context.config.databaseUrl) {
      if (context.agency) return usageError(this, 'with DATABASE_URL a backup holds every agency: restore it without --agency', context);
      try {
        const summary = await restoreSharedStore(context.config.databaseUrl, context.config.dataDir, options.positional[0]!);
        const queued = Object.entries(summary.enquiriesToReconcile).filter(([, count]) => count > 0);
        context.out(
          [
            `Restored PostgreSQL schemas ${summary.schemas.join(', ')} into ${redactUrl(context.config.databaseUrl)}.`,
            queued.length
              ? `Queued enquiries (${queued.map(([schema, count]) => `${count} in ${schema}`).join(', ')}) may have been delivered after the backup was taken: the relays ask the CRM about each before sending it.`
              : 'No enquiry was queued in the backup.',
            summary.sqlite
              ? `DATA_DIR's store restored into ${resolve(context.config.dataDir)}${summary.sqlite.previous ? `; the store it replaced is kept as ${summary.sqlite.previous}` : ''}.`
              : 'The backup has no SQLite store: DATA_DIR is left as it is.',
            'Listing replicas and photos are rebuilt by the relays from PostgreSQL and the CRM. Enquiries accepted after the backup was taken are only in the old database.',
          ].join('\n'),
        );
        return 0;
      } catch (error) {
        context.err((error as Error).message);
        return 1;
      }
    }
    try {
      // One agency's store: the relay that holds it open runs from DATA_DIR.
      const relay = context.agency ? runningRelay(context.agency.keyDataDir) : undefined;
      if (relay)
        throw new Error(
          `A relay (pid ${relay.pid}, started ${relay.startedAt}) is running on ${resolve(context.agency!.keyDataDir)}: stop it first (systemctl stop estate-embed-relay).`,
        );
      const summary = restoreStore(context.config.dataDir, options.positional[0]!);
      context.out(
        [
          `Restored ${summary.listings} listings and ${summary.outbox} outbox entries into ${resolve(context.config.dataDir)}.`,
          summary.previous ? `The store it replaced is kept as ${summary.previous} (delete it when satisfied).` : 'There was no store before.',
          summary.photosToFetch ? `${summary.photosToFetch} images are not in DATA_DIR/photos: the next sync (a full sweep) downloads them.` : '',
          summary.enquiriesToReconcile
            ? `${summary.enquiriesToReconcile} queued enquiries may have been delivered after the backup was taken: the relay asks the CRM about each before sending it.`
            : '',
          'Enquiries accepted after the backup was taken are only in the replaced store.',
        ]
          .filter(Boolean)
          .join('\n'),
      );
      return 0;
    } catch (error) {
      context.err((error as Error).message);
      return 1;
    }
  },
};

export const operatorCommands: CliCommand[] = [statusCommand, syncCommand, backupCommand, restoreCommand];
