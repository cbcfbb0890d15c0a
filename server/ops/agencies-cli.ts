import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { usageError, wantsHelp, type CliCommand, type CliContext } from '../runtime/cli-command.ts';
import { parseOptions } from '../runtime/cli-options.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import { budgetUsedOn, callsOn, utcDay } from '../crm/limiter.ts';
import { outboxStatus } from '../enquiries/outbox.ts';
import { savedSearchStatus } from '../saved-searches/store.ts';
import { liveReportLinkCount } from '../reports/links.ts';
import { listingStatus, readSyncState } from '../listings/cache.ts';
import { runningRelay } from './instance.ts';
import { describeSyncHolder, readAgencySyncHolders, type SyncHolder } from './relays.ts';
import { openStoreReadOnly, STORE_FILE } from '../store/store.ts';
import { agencyConfig, agencyDataDir, agencyMailSettings, AGENCY_SLUG, readAgenciesFile } from '../compose/agencies-file.ts';
import { mailStatus, type MailStatus } from './status.ts';
import { agencyReadiness } from '../compose/agency-state.ts';
import { accessProblems, readKeyAccess } from '../crm/access.ts';
import { agencyTokenSetting } from '../crm/client.ts';
import { RELOAD_SIGNAL } from '../compose/reload-request.ts';
import { askRelayToReload, describeReload } from './relay-reload.ts';
import { EDIT_COMMANDS, editUsage, runEdit } from './agencies-edit.ts';
import { AGENCIES_STATUS_FILE, type AgenciesStatusFile } from '../compose/agency-set.ts';

/** One agency as the operator view shows it: from its store, and from the running relay's status file. */
export interface AgencyStatusRow {
  slug: string;
  name: string;
  /**
   * Serving: its cache filled and its listings readable; not ready: see `reason`; draining: removed,
   * its queued leads still being delivered; removed: not in AGENCIES_FILE nor draining, its store
   * still holding queued leads (delivered if it comes back); not started: no relay runs.
   */
  state: 'serving' | 'not ready' | 'draining' | 'removed' | 'not started';
  /** Why it is not ready, naming who must act (also while no relay runs: read from its store). */
  reason: string | null;
  /** What is wrong while it serves: a capability not granted, the last sync's failure. */
  problems: string[];
  listings: number;
  cacheAgeSeconds: number | null;
  freshness: { withWebhooksSeconds: number; withoutWebhooksSeconds: number } | null;
  crmCallsToday: number | null;
  /** null: not known (DATABASE_URL and no running relay to count it). */
  outboxQueued: number | null;
  /** Its saved-search queue beside the outbox: waiting for the CRM, dead-lettered, the oldest waiting one's age; null: not known (as outboxQueued). */
  savedSearches: { queued: number; dead: number; oldestQueuedSeconds: number | null } | null;
  /** Sellers' report links that work now (server/reports/); null: not known (as outboxQueued). */
  reportLinks: number | null;
  lastError: string | null;
  /** Which relay runs its sync (DATABASE_URL: its lease in PostgreSQL); null without DATABASE_URL (this relay does), or when the database could not be read. */
  syncHolder: SyncHolder | null;
  /** Its mail server (scheme, host, port; never the credentials) and how its saved searches are confirmed: its entry's, else the relay's settings; undefined when those were not given. */
  mail?: MailStatus;
}

export interface AgenciesStatus {
  /** When the running relay last wrote its figures (null: never ran on this DATA_DIR). */
  relayFiguresAt: string | null;
  relayRunning: boolean;
  crm: { day: string; used: number; limit: number; plannedPerDay: number | null; allowedPerDay: number | null };
  /** The CRM refuses the integrator's API key (an agency's last access check said so): every agency's fault at once. */
  keyRefused: string | null;
  agencies: AgencyStatusRow[];
}

/** Every agency of AGENCIES_FILE (and any still draining), read-only from their stores; throws a ConfigError for a bad file. */
export function collectAgenciesStatus(
  agenciesFile: string,
  dataDir: string,
  dailyLimit: number,
  options: {
    now?: Date;
    /** DATABASE_URL is set: the outboxes are in PostgreSQL, counted only by the running relay. */ outboxInPostgres?: boolean;
    /** The relay's mail settings (SMTP_URL, MAIL_FROM, SAVED_SEARCH_CONFIRMATION), the defaults of every entry. */
    settings?: Pick<Config, 'mail' | 'savedSearches'>;
  } = {},
): AgenciesStatus {
  const now = options.now ?? new Date();
  const entries = readAgenciesFile(agenciesFile);
  const figuresFile = join(resolve(dataDir), AGENCIES_STATUS_FILE);
  const figures = existsSync(figuresFile) ? (JSON.parse(readFileSync(figuresFile, 'utf8')) as AgenciesStatusFile) : undefined;
  const relay = runningRelay(dataDir);
  const fromRelay = (slug: string) => (relay && figures?.pid === relay.pid ? figures.agencies.find((row) => row.slug === slug) : undefined);
  const names = new Map(entries.map((entry) => [entry.slug, entry.name]));
  const draining = (relay && figures?.pid === relay.pid ? figures.agencies : []).filter((row) => row.state === 'draining' && !names.has(row.slug));
  for (const row of draining) names.set(row.slug, row.name);
  // Removed before a restart (or while no relay ran): a store still holding queued leads is shown, as they wait for the agency to come back.
  const removed = options.outboxInPostgres ? [] : leftBehind(dataDir, new Set([...names.keys()]));
  const slugs = [...entries.map((entry) => entry.slug), ...draining.map((row) => row.slug), ...removed];

  const day = utcDay(now);
  const ageOf = (at: number | null) => (at === null ? null : Math.max(0, Math.round((now.getTime() - at) / 1000)));
  let keyRefused: string | null = null;
  const agencies = slugs.map((slug): AgencyStatusRow => {
    const live = fromRelay(slug);
    const dir = agencyDataDir(dataDir, slug);
    const gone = removed.includes(slug);
    // Served by the running relay: ready or not, from the agency's store (as the relay's /readyz says).
    const stateOf = (ready: boolean) => (gone ? 'removed' : live ? (live.state === 'draining' ? 'draining' : ready ? 'serving' : 'not ready') : 'not started');
    const liveSearches = live?.savedSearches
      ? { queued: live.savedSearches.queued, dead: live.savedSearches.dead, oldestQueuedSeconds: ageOf(live.savedSearches.oldestQueuedAt) }
      : undefined;
    const entry = entries.find((candidate) => candidate.slug === slug);
    const mail = options.settings && entry ? { mail: mailStatus(agencyMailSettings(options.settings, entry)) } : {};
    const base = {
      ...mail,
      slug,
      name: names.get(slug) ?? slug,
      freshness: live?.freshness ?? null,
      crmCallsToday: live?.crmCallsToday ?? null,
      syncHolder: null,
    };
    if (!existsSync(join(dir, STORE_FILE))) {
      const reason = live ? 'filling: the first sync is under way' : 'never started: no store yet';
      return {
        ...base,
        state: stateOf(false),
        reason,
        problems: [],
        listings: 0,
        cacheAgeSeconds: null,
        outboxQueued: 0,
        savedSearches: { queued: 0, dead: 0, oldestQueuedSeconds: null },
        reportLinks: 0,
        lastError: null,
      };
    }
    const store = openStoreReadOnly(dir);
    try {
      const sync = readSyncState(store);
      const failed = sync.lastErrorAt !== null && (sync.lastSuccessAt === null || sync.lastErrorAt >= sync.lastSuccessAt);
      const access = readKeyAccess(store);
      const readiness = agencyReadiness(sync, access, agencyTokenSetting(slug));
      if (!gone) keyRefused ??= (access && accessProblems(access).find((problem) => problem.cause === 'key')?.reason) || null;
      const searches = options.outboxInPostgres ? null : savedSearchStatus(store);
      return {
        ...base,
        state: stateOf(readiness.ready),
        reason: gone ? 'removed from AGENCIES_FILE: its queued leads wait in its store, delivered if it is added back' : readiness.reason,
        problems: gone ? [] : readiness.problems,
        // Counted in the agency's store: shown even while the relay is down, and the same after a restart.
        crmCallsToday: live?.crmCallsToday ?? callsOn(store, day),
        listings: listingStatus(store).total,
        cacheAgeSeconds: sync.lastSuccessAt === null ? null : Math.max(0, Math.round((now.getTime() - sync.lastSuccessAt) / 1000)),
        // The running relay's count first: with DATABASE_URL the outbox is not in this file (unknown while the relay is down).
        outboxQueued: live?.outboxQueued ?? (options.outboxInPostgres ? null : outboxStatus(store).queued),
        savedSearches: liveSearches ?? (searches && { queued: searches.queued, dead: searches.dead, oldestQueuedSeconds: ageOf(searches.oldestQueuedAt) }),
        // With DATABASE_URL the links are in PostgreSQL, not in this file.
        reportLinks: options.outboxInPostgres ? null : liveReportLinkCount(store, now.getTime()),
        lastError: failed ? sync.lastError : null,
      };
    } finally {
      store.close();
    }
  });

  let used = 0;
  if (existsSync(join(resolve(dataDir), STORE_FILE))) {
    const keyStore = openStoreReadOnly(dataDir);
    try {
      used = budgetUsedOn(keyStore, day);
    } finally {
      keyStore.close();
    }
  }
  const plan = relay && figures?.pid === relay.pid ? figures.plan : null;
  return {
    relayFiguresAt: figures?.writtenAt ?? null,
    relayRunning: relay !== undefined,
    crm: { day, used, limit: dailyLimit, plannedPerDay: plan?.perDay ?? null, allowedPerDay: plan?.allowed ?? null },
    keyRefused,
    agencies,
  };
}

/**
 * Agencies no longer in AGENCIES_FILE (nor draining) whose store in DATA_DIR/agencies/ still holds
 * queued enquiries or saved searches: a removal the relay could not finish (it restarted, or the
 * file was edited while no relay ran). A removed agency's store is kept; one with nothing queued says nothing and is left out.
 */
function leftBehind(dataDir: string, known: Set<string>): string[] {
  const folder = join(resolve(dataDir), 'agencies');
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && AGENCY_SLUG.test(entry.name) && !known.has(entry.name))
    .map((entry) => entry.name)
    .filter((slug) => {
      const dir = agencyDataDir(dataDir, slug);
      if (!existsSync(join(dir, STORE_FILE))) return false;
      const store = openStoreReadOnly(dir);
      try {
        return outboxStatus(store).queued + savedSearchStatus(store).queued > 0;
      } finally {
        store.close();
      }
    })
    .sort();
}

function duration(seconds: number | null): string {
  if (seconds === null) return 'never synced';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round((seconds / 3600) * 10) / 10} h`;
}

/** The table of `npm run relay -- agencies`. */
export function formatAgencies(
  status: AgenciesStatus,
  options: { /** DATABASE_URL: which relay runs each agency's sync (without it, this relay does). */ syncColumn?: boolean } = {},
): string {
  const shared = options.syncColumn ?? false;
  const header = [
    'SLUG',
    'NAME',
    'STATE',
    ...(shared ? ['SYNC BY'] : []),
    'LISTINGS',
    'CACHE AGE',
    'FRESH (WEBHOOK / LOST)',
    'CRM CALLS TODAY',
    'OUTBOX',
    'SAVED SEARCHES',
    'REPORT LINKS',
    'PROBLEM',
  ];
  const rows = status.agencies.map((row) => [
    row.slug,
    row.name,
    row.state,
    ...(shared ? [row.syncHolder ? describeSyncHolder(row.syncHolder) : '?'] : []),
    String(row.listings),
    duration(row.cacheAgeSeconds),
    row.freshness ? `${duration(row.freshness.withWebhooksSeconds)} / ${duration(row.freshness.withoutWebhooksSeconds)}` : '-',
    row.crmCallsToday === null ? '-' : String(row.crmCallsToday),
    row.outboxQueued === null ? '-' : String(row.outboxQueued),
    savedSearchesCell(row.savedSearches),
    row.reportLinks === null ? '-' : String(row.reportLinks),
    problemOf(row, status.keyRefused),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ');
  // Mail and confirmation per agency under the table (the table is wide enough already).
  const mailLines = status.agencies.filter((row) => row.mail).map((row) => `Alerts of ${row.slug}: ${alertsCell(row.mail)}`);
  return [line(header), ...rows.map(line), '', ...(mailLines.length ? [...mailLines, ''] : []), formatKeyTotals(status)].join('\n');
}

/** How an agency's saved searches are confirmed: `confirmed by e-mail (smtps://mail.example:465)`, by an agent, or not offered. */
function alertsCell(mail: MailStatus | undefined): string {
  if (!mail) return '-';
  if (mail.alertConfirmation === 'agent') return `confirmed by an agent${mail.smtp ? ` (mail: ${mail.smtp})` : ''}`;
  return mail.smtp ? `confirmed by e-mail (${mail.smtp})` : 'not offered (no SMTP_URL and MAIL_FROM for it)';
}

/** Saved searches queued, with the oldest one's wait and the dead ones when there are any: `2 (oldest 4 min, 1 dead)`. */
function savedSearchesCell(searches: AgencyStatusRow['savedSearches']): string {
  if (!searches) return '-';
  const notes = [
    ...(searches.queued > 0 && searches.oldestQueuedSeconds !== null ? [`oldest ${duration(searches.oldestQueuedSeconds)}`] : []),
    ...(searches.dead > 0 ? [`${searches.dead} dead`] : []),
  ];
  return `${searches.queued}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

/**
 * An agency's problem, once: why it is not ready (a refused key, shared by all, is named in the
 * totals below the table), else what is wrong while it serves, else '-'.
 */
function problemOf(row: AgencyStatusRow, keyRefused: string | null): string {
  if (row.reason !== null && row.reason === keyRefused) return 'API key refused (see CRM key below)';
  const problems = [...(row.reason === null ? [] : [row.reason]), ...row.problems];
  return problems.length ? problems.join('; ') : '-';
}

/** The key's line: calls today against the daily limit, the plan, the agencies. */
export function formatKeyTotals(status: AgenciesStatus): string {
  const serving = status.agencies.filter((row) => row.state === 'serving').length;
  const notReady = status.agencies.filter((row) => row.state === 'not ready').length;
  const draining = status.agencies.filter((row) => row.state === 'draining').length;
  const removed = status.agencies.filter((row) => row.state === 'removed').length;
  const queued = status.agencies.reduce((sum, row) => sum + (row.outboxQueued ?? 0), 0);
  const searchesQueued = status.agencies.reduce((sum, row) => sum + (row.savedSearches?.queued ?? 0), 0);
  const listings = status.agencies.reduce((sum, row) => sum + row.listings, 0);
  const states = [
    `${serving} serving`,
    ...(notReady ? [`${notReady} not ready`] : []),
    ...(draining ? [`${draining} removed and still delivering enquiries and saved searches`] : []),
  ];
  return [
    `CRM key today   ${status.crm.used} of ${status.crm.limit} requests (${status.crm.day} UTC)${status.crm.plannedPerDay === null ? '' : `; plan ${status.crm.plannedPerDay} a day of ${status.crm.allowedPerDay} allowed`}`,
    ...(status.keyRefused ? [`CRM key         REFUSED: ${status.keyRefused}`] : []),
    `Agencies        ${status.agencies.length - draining - removed} in AGENCIES_FILE, ${status.relayRunning ? states.join(', ') : 'relay not running on this DATA_DIR'}` +
      (removed ? `; ${removed} removed with leads still queued in their stores (delivered if added back)` : ''),
    `Totals          ${listings} listings, ${queued} enquiries queued, ${searchesQueued} saved searches queued`,
  ].join('\n');
}

/** Commands that work on one store: with AGENCIES_FILE, on one agency's, named with --agency <slug>. */
const PER_AGENCY_COMMANDS = new Set(['sync', 'outbox', 'saved-searches', 'reports', 'backup', 'restore']);

export interface AgencyScope {
  args: string[];
  config: Config;
  agency?: { slug: string; keyDataDir: string };
}

/**
 * `--agency <slug>` (any command but `agencies`): with AGENCIES_FILE, the command runs on that
 * agency's store (and, for a sync, with its token; the key's budget stays in DATA_DIR's store).
 * Store commands need it then; `status` without it shows the key's totals. Returns the message for
 * the operator when the option is wrong; throws a ConfigError for a bad file.
 */
export function scopeToAgency(command: string, argv: string[], config: Config): AgencyScope | string {
  const args: string[] = [];
  let slug: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--agency' || arg.startsWith('--agency=')) {
      slug = arg === '--agency' ? argv[++index] : arg.slice('--agency='.length);
      if (!slug) return '--agency needs a slug';
    } else args.push(arg);
  }
  if (!config.agenciesFile)
    return slug === undefined ? { args, config } : '--agency needs AGENCIES_FILE (without it the relay serves one agency, and the commands work on its store)';
  if (slug === undefined) {
    // With DATABASE_URL a backup is of the whole shared store, every agency at once.
    const wholeDatabase = config.databaseUrl !== undefined && (command === 'backup' || command === 'restore');
    if (PER_AGENCY_COMMANDS.has(command) && !wholeDatabase)
      return `With AGENCIES_FILE each agency has its own store: name one with --agency <slug> (\`npm run relay -- agencies\` lists them).`;
    return { args, config };
  }
  if (!AGENCY_SLUG.test(slug)) return `--agency: "${slug}" is not a slug (1 to 40 characters of a-z, 0-9 and -)`;
  const entry = readAgenciesFile(config.agenciesFile).find((candidate) => candidate.slug === slug);
  const agency = { slug, keyDataDir: config.dataDir };
  if (entry) return { args, agency, config: { ...agencyConfig(config, entry, null), agenciesFile: undefined } };
  // Removed from the file, its store still there (an outbox to look at, a backup to take): its folder, no token.
  if (command !== 'sync' && existsSync(join(agencyDataDir(config.dataDir, slug), STORE_FILE))) {
    return { args, agency, config: { ...config, dataDir: agencyDataDir(config.dataDir, slug), agenciesFile: undefined } };
  }
  return `--agency: no agency "${slug}" in AGENCIES_FILE (\`npm run relay -- agencies\` lists them)`;
}

async function reload(context: CliContext, timeoutSeconds: number): Promise<number> {
  // Checked here first: the operator sees the problems at once, and a file the relay would refuse is not sent.
  readAgenciesFile(context.config.agenciesFile!, { publicUrl: context.config.http.publicUrl });
  const answer = await askRelayToReload(context.config.dataDir, timeoutSeconds);
  if (answer.outcome === 'no relay') {
    context.err('No relay is running on this DATA_DIR: the file is valid, and the relay reads it when it starts.');
    return 1;
  }
  if (answer.outcome === 'no answer') {
    context.err(`No answer from the relay (pid ${answer.pid}) within ${timeoutSeconds} s; see its log.`);
    return 1;
  }
  (answer.report.ok ? context.out : context.err)(describeReload(answer));
  return answer.report.ok ? 0 : 1;
}

export const agenciesCommand: CliCommand = {
  name: 'agencies',
  summary: 'The agencies of AGENCIES_FILE: state, listings, freshness, CRM calls, outbox; add, set, remove, check, reload.',
  usage: `Usage:
  npm run relay -- agencies [--json]
      Each agency of AGENCIES_FILE: slug, name, listings, cache age, the freshness the plan
      promises (webhook delivered / lost), CRM calls spent today, enquiries queued, last sync error;
      with DATABASE_URL also which relay holds its sync (its host, "none" or "expired").
      Read-only; safe while the relay runs (calls and promises come from the running relay).
  npm run relay -- agencies reload [--timeout SECONDS]
      Checks AGENCIES_FILE, then has the running relay re-read it (signal ${RELOAD_SIGNAL}): added agencies
      start, changed ones take their new token, origins, site and name, removed ones stop being
      served at once (their queued enquiries are still delivered). A refused file changes nothing.
${editUsage()}
  npm run relay -- <status|sync|outbox|backup|restore> … --agency <slug>
      The other commands on one agency's store (sync, outbox, backup and restore need it with
      AGENCIES_FILE; status without it shows the key's totals).`,
  async run(args, context) {
    if (wantsHelp(args)) {
      context.out(this.usage);
      return 0;
    }
    // add, set, remove, check: their own options (agencies-edit.ts).
    const edit = EDIT_COMMANDS.find((name) => name === args[0]);
    if (edit) return runEdit(edit, args.slice(1), context);
    const options = parseOptions(args, ['json'], ['timeout']);
    const [sub, ...rest] = typeof options === 'string' ? [] : options.positional;
    if (typeof options === 'string' || rest.length || (sub !== undefined && sub !== 'reload')) {
      return usageError(this, typeof options === 'string' ? options : `unknown argument ${[sub, ...rest].filter(Boolean).join(' ')}`, context);
    }
    if (!context.config.agenciesFile) {
      context.err('AGENCIES_FILE is not set: this relay serves one agency at the root paths (see `npm run relay -- status`).');
      return 1;
    }
    try {
      if (sub === 'reload') {
        const timeout = options.values.timeout === undefined ? 30 : Number(options.values.timeout);
        if (!(timeout > 0)) {
          return usageError(this, '--timeout must be a positive number of seconds', context);
        }
        return await reload(context, timeout);
      }
      const status = collectAgenciesStatus(context.config.agenciesFile, context.config.dataDir, context.config.crm.dailyLimit, {
        outboxInPostgres: context.config.databaseUrl !== undefined,
        settings: context.config,
      });
      // DATABASE_URL: each agency's sync holder from its lease; the rest of the view still shows when the database cannot be read.
      let failed = false;
      if (context.config.databaseUrl) {
        try {
          const holders = await readAgencySyncHolders(
            context.config.databaseUrl,
            status.agencies.map((row) => row.slug),
          );
          for (const row of status.agencies) row.syncHolder = holders.get(row.slug) ?? null;
        } catch (error) {
          context.err(`${(error as Error).message}; SYNC BY is unknown (?)`);
          failed = true;
        }
      }
      context.out(
        options.flags.has('json') ? JSON.stringify(status, null, 2) : formatAgencies(status, { syncColumn: context.config.databaseUrl !== undefined }),
      );
      return failed ? 1 : 0;
    } catch (error) {
      if (error instanceof ConfigError) {
        context.err(error.message);
        return 1;
      }
      throw error;
    }
  },
};
