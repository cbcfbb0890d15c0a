import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { accessProblems, CAPABILITIES, missingCapabilities, readKeyAccess, type AccessProblem, type KeyAccess, type MissingCapability } from '../crm/access.ts';
import { budgetUsedOn, utcDay } from '../crm/limiter.ts';
import { EnquiryOutbox, outboxStatus } from '../enquiries/outbox.ts';
import { listingStatus, readSyncState } from '../listings/cache.ts';
import { readOwnAccount } from '../listings/event-store.ts';
import { photoStatus } from '../photos/mirror.ts';
import { placementSummary } from '../places/index.ts';
import { SavedSearchStore, savedSearchStatus } from '../saved-searches/store.ts';
import type { PlacementSummary } from '../../contract/relay-api.ts';
import { openStoreReadOnly, STORE_FILE, type Store } from '../store/store.ts';
import type { Config } from '../runtime/config.ts';
import { parseMailFrom, parseSmtpUrl } from '../runtime/mail-settings.ts';

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
  /** Listings on the map: placed (by precision), waiting for the geocoder, could not be placed. */
  places: PlacementSummary;
  /**
   * Enquiries by status (spam: answered, nothing kept; quarantined: a honeypot filled in, held whole
   * for `outbox release`); the oldest queued one's acceptance, and its age in seconds (null: none queued).
   */
  outbox: Record<'queued' | 'delivered' | 'dead' | 'spam' | 'quarantined', number> & { oldestQueuedAt: string | null; oldestQueuedSeconds: number | null };
  /** The saved-search queue the same way: queued (not yet in the CRM), saved, dead (refused, or past the retry window), spam, quarantined. */
  savedSearches: Record<'queued' | 'unconfirmed' | 'saved' | 'unsubscribed' | 'expired' | 'dead' | 'spam' | 'quarantined', number> & {
    oldestQueuedAt: string | null;
    oldestQueuedSeconds: number | null;
  };
  crm: { day: string; used: number; limit: number; remaining: number };
  /** The agency's account id at the CRM, as the relay learned it (null: not learned yet). */
  crmAccountId: string | null;
  /** What the CRM key and token allow (null: the relay has not checked yet), what is refused, and who must fix each refusal. */
  crmAccess: (KeyAccess & { missing: MissingCapability[]; problems: AccessProblem[] }) | null;
  /** Where the agency's mail goes and how its saved searches are confirmed (from the settings; never the credentials). */
  mail?: MailStatus;
}

/** The mail settings as an operator may see them: the server's scheme, host and port, the sender's address, the confirmation mode. */
export interface MailStatus {
  /** smtps://host:port, or null: no SMTP_URL (or MAIL_FROM), so no mail. */
  smtp: string | null;
  from: string | null;
  alertConfirmation: 'email' | 'agent';
}

/** The mail status of a relay's (or one agency's, agencyConfig) settings; a mailer is built only when both URL and From are set. */
export function mailStatus(config: Pick<Config, 'mail' | 'savedSearches'>): MailStatus {
  const target = config.mail.smtpUrl === undefined ? undefined : parseSmtpUrl(config.mail.smtpUrl);
  const from = config.mail.from === undefined ? undefined : parseMailFrom(config.mail.from);
  const both = typeof target === 'object' && typeof from === 'object';
  return {
    smtp: both ? target.describe : null,
    from: both ? from.address : null,
    alertConfirmation: config.savedSearches.confirmation,
  };
}

/** The status line of mail: where it goes, or why alerts are not offered. */
export function formatMail(mail: MailStatus): string {
  if (mail.smtp)
    return `Mail            ${mail.smtp} from ${mail.from}; saved searches confirmed by ${mail.alertConfirmation === 'email' ? 'e-mail (double opt-in)' : 'an agent'}`;
  return mail.alertConfirmation === 'email'
    ? 'Mail            not configured (SMTP_URL and MAIL_FROM): alerts are not offered'
    : 'Mail            not configured; saved searches confirmed by an agent';
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

export function collectStatus(
  dataDir: string,
  dailyLimit: number,
  now = new Date(),
  /** Where the token is set, for a refusal's fix (default CRM_ACCESS_TOKEN; an agency of AGENCIES_FILE: its entry). */
  tokenSetting?: string,
): RelayStatus {
  const absoluteDir = resolve(dataDir);
  const store = openStoreReadOnly(absoluteDir);
  try {
    const storeFile = join(absoluteDir, STORE_FILE);
    const storeBytes = [storeFile, `${storeFile}-wal`].filter(existsSync).reduce((sum, file) => sum + statSync(file).size, 0);

    const state = readSyncState(store);
    const { lastSuccessAt, lastErrorAt } = state;
    const lastOutcome = lastErrorAt !== null && (lastSuccessAt === null || lastErrorAt >= lastSuccessAt) ? 'failed' : lastSuccessAt !== null ? 'ok' : 'never';
    const listings = listingStatus(store);
    const disk = folderSize(join(absoluteDir, 'photos'));
    const photos = { ...photoStatus(store), files: disk.files, diskBytes: disk.bytes };
    const { queued, delivered, dead, spam, quarantined, oldestQueuedAt } = outboxStatus(store);
    const searches = savedSearchStatus(store);
    const ageOf = (at: number | null) => (at === null ? null : Math.max(0, Math.round((now.getTime() - at) / 1000)));
    const day = utcDay(now);
    const used = budgetUsedOn(store, day);

    return {
      dataDir: absoluteDir,
      store: { file: storeFile, bytes: storeBytes },
      sync: {
        lastSuccessAt: iso(lastSuccessAt),
        cacheAgeSeconds: lastSuccessAt === null ? null : Math.max(0, Math.round((now.getTime() - lastSuccessAt) / 1000)),
        lastFullSweepAt: iso(state.lastFullSweepAt),
        lastOutcome,
        lastError: state.lastError,
        lastErrorAt: iso(lastErrorAt),
      },
      listings: listings.byType,
      listingsTotal: listings.total,
      agents: listings.agents,
      photos,
      places: placementSummary(store),
      outbox: { queued, delivered, dead, spam, quarantined, oldestQueuedAt: iso(oldestQueuedAt), oldestQueuedSeconds: ageOf(oldestQueuedAt) },
      savedSearches: {
        queued: searches.queued,
        unconfirmed: searches.unconfirmed,
        saved: searches.saved,
        unsubscribed: searches.unsubscribed,
        expired: searches.expired,
        dead: searches.dead,
        spam: searches.spam,
        quarantined: searches.quarantined,
        oldestQueuedAt: iso(searches.oldestQueuedAt),
        oldestQueuedSeconds: ageOf(searches.oldestQueuedAt),
      },
      crm: { day, used, limit: dailyLimit, remaining: Math.max(0, dailyLimit - used) },
      crmAccountId: readOwnAccount(store),
      crmAccess: accessOf(store, tokenSetting),
    };
  } finally {
    store.close();
  }
}

/**
 * The lead queues' part of the status (the enquiry outbox, the saved searches) read through the
 * queues themselves, so from whichever store holds them: `store` with PostgreSQL attached when the
 * relay runs with DATABASE_URL (its agency's schema with --agency), where collectStatus's SQLite
 * file holds none of their rows.
 */
export async function leadQueuesStatus(store: Store, now = new Date()): Promise<Pick<RelayStatus, 'outbox' | 'savedSearches'>> {
  const ageOf = (at: number | undefined) => (at === undefined ? null : Math.max(0, Math.round((now.getTime() - at) / 1000)));
  const outbox = new EnquiryOutbox(store);
  const searches = new SavedSearchStore(store);
  const [enquiries, oldestEnquiry, saved, oldestSearch] = await Promise.all([
    outbox.counts(),
    outbox.oldestQueuedAt(),
    searches.counts(),
    searches.oldestQueuedAt(),
  ]);
  const { queued, delivered, dead, spam, quarantined } = enquiries;
  return {
    outbox: { queued, delivered, dead, spam, quarantined, oldestQueuedAt: iso(oldestEnquiry ?? null), oldestQueuedSeconds: ageOf(oldestEnquiry) },
    savedSearches: {
      queued: saved.queued,
      unconfirmed: saved.unconfirmed,
      saved: saved.saved,
      unsubscribed: saved.unsubscribed,
      expired: saved.expired,
      dead: saved.dead,
      spam: saved.spam,
      quarantined: saved.quarantined,
      oldestQueuedAt: iso(oldestSearch ?? null),
      oldestQueuedSeconds: ageOf(oldestSearch),
    },
  };
}

function accessOf(store: Store, tokenSetting?: string): RelayStatus['crmAccess'] {
  const access = readKeyAccess(store);
  return access ? { ...access, missing: missingCapabilities(access), problems: accessProblems(access, tokenSetting) } : null;
}

const REFUSED_BY = { key: 'API key', token: 'access token', grant: 'not granted' } as const;

/** The CRM access lines: each capability, what is missing and whom to ask, the scopes, the key's usage. */
function formatAccess(access: RelayStatus['crmAccess']): string[] {
  if (!access || access.checkedAt === null) return ['CRM access      not checked yet (the relay checks at start)'];
  const causes = new Map(access.missing.map((gap) => [gap.capability as string, gap.cause]));
  const states = Object.entries(access.capabilities).map(
    ([name, state]) =>
      `${name} ${state.available === true ? 'ok' : state.available === false ? `REFUSED (${state.status}, ${REFUSED_BY[causes.get(name) ?? 'grant']})` : 'unknown'}`,
  );
  const lines = [`CRM access      ${states.join(', ')} (checked ${access.checkedAt})`];
  // The key's and the token's refusals name the setting to fix; a grant names what the agency must grant.
  for (const problem of access.problems) {
    if (problem.cause === 'grant') {
      const capability = problem.capabilities[0]!;
      lines.push(
        `  MISSING ${capability}: ${CAPABILITIES[capability].serves} cannot work. Ask the agency to grant this integration ${CAPABILITIES[capability].grant} (${CAPABILITIES[capability].proof} was refused).`,
      );
    } else lines.push(`  ${problem.cause === 'key' ? 'KEY REFUSED' : 'TOKEN REFUSED'}: ${problem.message}`);
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

/** One line: how many listings are on the map, and how many could not be placed. */
export function formatPlaces(places: PlacementSummary): string {
  const { crm, address, suburb } = places.placed;
  return (
    `Map positions   ${crm + address + suburb} of ${places.listings} placed (${crm} CRM, ${address} address, ${suburb} suburb), ` +
    `${places.pending} waiting for the geocoder, ${places.unplaced} could not be placed`
  );
}

/** A queue's oldest entry still waiting for the CRM: when it was accepted and how long ago. */
function oldestQueued(queue: { oldestQueuedAt: string | null; oldestQueuedSeconds: number | null }): string {
  return queue.oldestQueuedAt ? ` (oldest queued ${queue.oldestQueuedAt}, ${formatAge(queue.oldestQueuedSeconds)} ago)` : '';
}

/** The human-readable report. */
export function formatStatus(status: RelayStatus): string {
  const listingLines = Object.entries(status.listings).map(
    ([type, byStatus]) =>
      `    ${type.padEnd(6)} ${Object.entries(byStatus)
        .map(([name, n]) => `${n} ${name}`)
        .join(', ')}`,
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
    formatPlaces(status.places),
    `Enquiry outbox  ${status.outbox.queued} queued, ${status.outbox.delivered} delivered, ${status.outbox.dead} dead, ${status.outbox.spam} spam, ${status.outbox.quarantined} quarantined` +
      oldestQueued(status.outbox),
    `Saved searches  ${status.savedSearches.queued} queued, ${status.savedSearches.unconfirmed} awaiting their owner's confirmation, ${status.savedSearches.saved} saved, ` +
      `${status.savedSearches.unsubscribed} not written (contact unsubscribed), ${status.savedSearches.expired} expired, ` +
      `${status.savedSearches.dead} dead, ${status.savedSearches.spam} spam, ${status.savedSearches.quarantined} quarantined` +
      oldestQueued(status.savedSearches),
    `CRM requests    ${status.crm.used} of ${status.crm.limit} today (${status.crm.day} UTC, ${share}%), ${status.crm.remaining} left`,
    `CRM account     ${status.crmAccountId ?? "not learned yet (until then every verified webhook is taken as this agency's)"}`,
    ...formatAccess(status.crmAccess),
    ...(status.mail ? [formatMail(status.mail)] : []),
  ].join('\n');
}
