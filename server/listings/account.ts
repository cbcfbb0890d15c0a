import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { ChangeStore } from './event-store.ts';
import type { ListingSource } from './source.ts';

/** A failed look-up is tried again after this, doubling up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 10 * 60_000;
/**
 * A look-up is trusted this long: a restart within it asks nothing (many agencies restarting at once
 * would otherwise each spend a request). The first confirmation falls at a random point of the
 * second half of the day, so agencies started together are asked again at different times.
 */
export const ACCOUNT_CHECK_MAX_AGE_MS = 24 * 3600_000;
/** A remembered account confirmed over a day ago is confirmed within this after start, at random. */
const STALE_CONFIRMATION_SPREAD_MS = 3600_000;

export interface AgencyAccountOptions {
  store: Pick<ChangeStore, 'ownAccount' | 'rememberAccount' | 'accountChecks'>;
  source: Pick<ListingSource, 'accountId' | 'describeError' | 'credentialsId'>;
  log: Logger;
  /** First retry delay after a failed look-up (tests shorten it). Default 30 s. */
  retryFirstMs?: number;
  now?: Clock;
  /** 0-1: where in the spread the first confirmation falls (default random). */
  spread?: () => number;
}

/**
 * The agency's account id at the source. Every account on the API key posts its webhooks to the
 * one URL the integrator registered, so a notice naming another account is not this relay's
 * business. Learned once at start (one request) and kept in the store: after a restart with the
 * source down, the last one learned still holds. Until one is known, every notice is taken as ours.
 */
export class AgencyAccount {
  readonly name = 'agency-account';
  private known: string | undefined;
  private confirmationInMs: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private lookup: Promise<void> | undefined;
  private abort = new AbortController();
  private readonly log: Logger;

  constructor(private readonly options: AgencyAccountOptions) {
    this.log = options.log.child({ component: 'agency-account' });
    this.known = options.store.ownAccount();
  }

  /** The account id, when known: notices naming another are ignored. */
  get id(): string | undefined {
    return this.known;
  }

  /** Whether a notice naming `account` (undefined: names none) belongs to another agency. */
  isOther(account: string | undefined): boolean {
    return account !== undefined && this.known !== undefined && account !== this.known;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    const dueInMs = this.dueInMs();
    if (this.known && dueInMs !== 0) {
      // Confirmed less than a day ago: asked again when due; longer ago: at a random point of the next hour, not all agencies at once.
      const inMs = dueInMs > 0 ? dueInMs : (this.options.spread ?? Math.random)() * STALE_CONFIRMATION_SPREAD_MS;
      this.log.info({ accountId: this.known, confirmInSeconds: Math.round(inMs / 1000) }, `agency account ${this.known} (remembered)`);
      this.scheduleConfirmation(inMs);
      return;
    }
    if (this.known) this.log.info({ accountId: this.known }, `agency account ${this.known} (remembered); checking it with the CRM`);
    this.lookup = this.learn(this.options.retryFirstMs ?? RETRY_FIRST_MS);
  }

  /**
   * Milliseconds until the remembered account is to be confirmed with the source; 0: now (never
   * confirmed, or with other credentials: the agency's token changed); -1: overdue (confirmed with
   * these credentials over a day ago).
   */
  private dueInMs(): number {
    const checks = this.options.store.accountChecks();
    const now = (this.options.now ?? Date.now)();
    if (!checks || checks.checkedAt > now || checks.credentials !== this.options.source.credentialsId) return 0;
    const due = Math.min(checks.dueAt, checks.checkedAt + ACCOUNT_CHECK_MAX_AGE_MS) - now;
    return due > 0 ? due : -1;
  }

  /** Milliseconds from start to the scheduled confirmation (undefined: none scheduled). */
  scheduledConfirmationInMs(): number | undefined {
    return this.confirmationInMs;
  }

  private scheduleConfirmation(inMs: number): void {
    clearTimeout(this.timer);
    this.confirmationInMs = inMs;
    this.timer = setTimeout(() => {
      this.lookup = this.learn(this.options.retryFirstMs ?? RETRY_FIRST_MS);
    }, inMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.lookup;
  }

  /** One look-up; on failure another after `retryMs`, doubling. Never throws. */
  private async learn(retryMs: number): Promise<void> {
    try {
      const account = await this.options.source.accountId(this.abort.signal);
      if (this.stopped) return;
      if (this.known !== undefined && this.known !== account) {
        this.log.warn({ accountId: account, previous: this.known }, `agency account is now ${account} (was ${this.known}): the access token names another account`);
      } else {
        this.log.info({ accountId: account }, `agency account ${account}: webhooks naming another account are acknowledged and ignored`);
      }
      const first = this.options.store.accountChecks() === undefined;
      const now = (this.options.now ?? Date.now)();
      const age = first ? ACCOUNT_CHECK_MAX_AGE_MS * (0.5 + 0.5 * (this.options.spread ?? Math.random)()) : ACCOUNT_CHECK_MAX_AGE_MS;
      this.known = account;
      this.options.store.rememberAccount(account, { checkedAt: now, dueAt: now + age, credentials: this.options.source.credentialsId });
      this.scheduleConfirmation(age);
    } catch (error) {
      if (this.stopped) return;
      const reason = this.options.source.describeError(error) ?? (error instanceof Error ? error.message : String(error));
      this.log.warn(
        { err: reason, retryInSeconds: Math.round(retryMs / 1000), accountId: this.known },
        this.known === undefined
          ? `could not learn the agency's account id (${reason}); until it is known every verified webhook is taken as this agency's. Trying again in ${Math.round(retryMs / 1000)} s`
          : `could not check the agency's account id (${reason}); keeping the remembered ${this.known}. Trying again in ${Math.round(retryMs / 1000)} s`,
      );
      this.timer = setTimeout(() => {
        this.lookup = this.learn(Math.min(retryMs * 2, RETRY_MAX_MS));
      }, retryMs);
      this.timer.unref();
    }
  }
}
