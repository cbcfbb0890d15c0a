import type { Market, SimListing } from './model.ts';
import { Prng } from './prng.ts';
import type { WebhookSender } from './webhooks.ts';

/**
 * The change driver: edits listings across many of the key's accounts at a chosen rate, as a day
 * of agents at work would, so a bench or a demo can watch how fast each agency's site follows.
 * Each change sets a listing's heading to a unique text (`drive <seq>`) and goes out like any
 * other change (an event on the account's stream and a webhook), with its own webhook drop rate
 * if asked (the key's setting otherwise). Accounts take turns (change i goes to the i-th chosen
 * account, round robin), so 200 accounts at 4 changes a second each get one every 50 s; the
 * listing within an account is picked by a seeded PRNG among its current listings on the web.
 */

export interface DriveSettings {
  /** Changes a second across all the chosen accounts (0.01-1000). */
  perSecond: number;
  /** How many changes in all (1-100,000). */
  changes: number;
  /** Account ids to change; default every account on the key when the drive starts. */
  accounts?: number[];
  /** Only listings of this class (residential, commercial, land, rural); default any. */
  propertyClass?: string;
  /** Share of these changes' webhooks lost (0-1, spread evenly); default the key's drop rate. */
  webhookDropRate?: number;
  /** PRNG seed for the listings picked (default 1). */
  seed?: number;
}

export interface DrivenChange {
  /** The drive's turn that made it, 1-based (a skipped turn leaves a gap). */
  seq: number;
  accountId: number;
  /** The CRM property id, with the market and life id: one sale or lease life. */
  propertyId: number;
  market: Market;
  lifeId: number;
  /** The heading the listing now carries. */
  heading: string;
  /** When it was made (epoch ms, wall clock). */
  at: number;
  /** Whether its webhook was dropped on purpose (false also when no webhook URL is set). */
  webhookDropped: boolean;
}

export interface DriveStatus {
  running: boolean;
  settings: DriveSettings | null;
  planned: number;
  made: number;
  /** Turns that found no listing to change (an account with none current on the web, or removed). */
  skipped: number;
  startedAt: number | null;
  finishedAt: number | null;
}

const CURRENT: Record<Market, string[]> = { sale: ['listing', 'conditional'], lease: ['listing'] };
/** Changes kept for GET /__sim/drive: a whole bench's worth. */
const KEPT = 100_000;

export class DriveInputError extends Error {}

/** A drive the key cannot run: one already running (409) or an unknown account (404). */
export class DriveRefusedError extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** What the driver needs of one account (a narrow type: state.ts builds the driver). */
export interface DrivenAccount {
  readonly accountId: number;
  readonly listings: readonly SimListing[];
  changeListing(id: number, change: { fields: Record<string, unknown> }, market?: Market): SimListing;
}

/** What the driver needs of the key. */
export interface DrivenKey {
  readonly accounts: readonly DrivenAccount[];
  accountById(id: number): DrivenAccount | undefined;
  readonly webhooks: Pick<WebhookSender, 'counts' | 'forcing'>;
}

/** Checks a drive request field by field, naming the first bad one. */
export function parseDriveSettings(body: unknown): DriveSettings {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DriveInputError('the body must be a JSON object');
  const raw = body as Record<string, unknown>;
  const perSecond = raw.perSecond;
  if (typeof perSecond !== 'number' || !(perSecond >= 0.01 && perSecond <= 1000)) throw new DriveInputError('perSecond must be a number from 0.01 to 1000');
  const changes = raw.changes;
  if (!Number.isInteger(changes) || (changes as number) < 1 || (changes as number) > 100_000)
    throw new DriveInputError('changes must be a whole number from 1 to 100000');
  const settings: DriveSettings = { perSecond, changes: changes as number };
  if (raw.accounts !== undefined) {
    if (!Array.isArray(raw.accounts) || raw.accounts.length === 0 || !raw.accounts.every((id) => Number.isInteger(id) && id > 0)) {
      throw new DriveInputError('accounts must be a non-empty list of account ids');
    }
    settings.accounts = raw.accounts as number[];
  }
  if (raw.propertyClass !== undefined) {
    if (typeof raw.propertyClass !== 'string' || !['residential', 'commercial', 'land', 'rural'].includes(raw.propertyClass)) {
      throw new DriveInputError('propertyClass must be residential, commercial, land or rural');
    }
    settings.propertyClass = raw.propertyClass;
  }
  if (raw.webhookDropRate !== undefined) {
    if (typeof raw.webhookDropRate !== 'number' || !(raw.webhookDropRate >= 0 && raw.webhookDropRate <= 1))
      throw new DriveInputError('webhookDropRate must be a number from 0 to 1');
    settings.webhookDropRate = raw.webhookDropRate;
  }
  if (raw.seed !== undefined) {
    if (!Number.isInteger(raw.seed)) throw new DriveInputError('seed must be a whole number');
    settings.seed = raw.seed as number;
  }
  return settings;
}

export class ChangeDriver {
  private settings: DriveSettings | null = null;
  private made: DrivenChange[] = [];
  private skipped = 0;
  private turn = 0;
  private startedAt: number | null = null;
  private finishedAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private accounts: number[] = [];
  private prng = new Prng(1);
  private dropDebt = 0;
  private done: Promise<void> = Promise.resolve();
  private resolveDone: (() => void) | null = null;

  constructor(private readonly key: DrivenKey) {}

  /** Starts a drive; one at a time (409 while one runs). */
  start(settings: DriveSettings): DriveStatus {
    if (this.timer) throw new DriveRefusedError(409, 'a drive is already running: DELETE /__sim/drive stops it');
    const accounts = settings.accounts ?? this.key.accounts.map((account) => account.accountId);
    const unknown = accounts.filter((id) => !this.key.accountById(id));
    if (unknown.length > 0) throw new DriveRefusedError(404, `no account ${unknown.slice(0, 5).join(', ')} on this key`);
    this.settings = { ...settings };
    this.accounts = accounts;
    this.made = [];
    this.skipped = 0;
    this.turn = 0;
    this.dropDebt = 0;
    this.prng = new Prng(settings.seed ?? 1);
    this.startedAt = Date.now();
    this.finishedAt = null;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.tick();
    return this.status();
  }

  /** Stops a running drive (what was made stays listed). */
  stop(): DriveStatus {
    if (this.timer) clearTimeout(this.timer);
    this.finish();
    return this.status();
  }

  /** Resolves when the current drive has made (or skipped) every change, or was stopped. */
  finished(): Promise<void> {
    return this.done;
  }

  status(): DriveStatus {
    return {
      running: this.timer !== null,
      settings: this.settings,
      planned: this.settings?.changes ?? 0,
      made: this.made.length,
      skipped: this.skipped,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
    };
  }

  /** The changes made, after `sinceSeq`, at most `limit`. */
  changes(sinceSeq = 0, limit = KEPT): DrivenChange[] {
    const first = this.made.findIndex((change) => change.seq > sinceSeq);
    return first < 0 ? [] : this.made.slice(first, first + limit);
  }

  /** Makes every change due by now, then sleeps until the next one (paced from the start, so timer lag does not drift the rate). */
  private tick(): void {
    const settings = this.settings!;
    const due = Math.min(settings.changes, Math.floor(((Date.now() - this.startedAt!) / 1000) * settings.perSecond) + 1);
    while (this.turn < due) this.makeOne(settings);
    if (this.turn >= settings.changes) return void this.finish();
    const nextAt = this.startedAt! + (this.turn / settings.perSecond) * 1000;
    this.timer = setTimeout(() => this.tick(), Math.max(0, nextAt - Date.now()));
    this.timer.unref();
  }

  private makeOne(settings: DriveSettings): void {
    const accountId = this.accounts[this.turn % this.accounts.length]!;
    this.turn++;
    const account = this.key.accountById(accountId);
    const listing = account ? this.pick(account, settings) : undefined;
    if (!account || !listing) return void this.skipped++;
    const seq = this.turn;
    const heading = `drive ${seq}`;
    const dropRate = settings.webhookDropRate;
    let drop: boolean | undefined;
    if (dropRate !== undefined) {
      this.dropDebt += dropRate;
      drop = this.dropDebt >= 1 - 1e-9;
      if (drop) this.dropDebt -= 1;
    }
    const dropsBefore = this.key.webhooks.counts.dropped;
    const at = Date.now();
    this.key.webhooks.forcing(drop, () => account.changeListing(listing.id, { fields: { heading } }, listing.market));
    if (this.made.length >= KEPT) this.made.shift();
    this.made.push({
      seq,
      accountId,
      propertyId: listing.id,
      market: listing.market,
      lifeId: listing.lifeId,
      heading,
      at,
      webhookDropped: this.key.webhooks.counts.dropped > dropsBefore,
    });
  }

  private pick(account: DrivenAccount, settings: DriveSettings) {
    const candidates = account.listings.filter(
      (listing) =>
        listing.publishedToWeb !== null &&
        CURRENT[listing.market].includes(listing.status) &&
        (settings.propertyClass === undefined || listing.propertyClass === settings.propertyClass),
    );
    return candidates.length === 0 ? undefined : this.prng.pick(candidates);
  }

  private finish(): void {
    this.timer = null;
    if (this.settings && this.finishedAt === null) this.finishedAt = Date.now();
    this.resolveDone?.();
    this.resolveDone = null;
  }
}
