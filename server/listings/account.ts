import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { ChangeStore } from './event-store.ts';
import type { ListingSource } from './source.ts';

/** A failed look-up is tried again after this, doubling up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 10 * 60_000;

export interface AgencyAccountOptions {
  store: Pick<ChangeStore, 'ownAccount' | 'rememberAccount' | 'accountChecks'>;
  source: Pick<ListingSource, 'accountId' | 'describeError' | 'credentialsId'>;
  log: Logger;
  /** First retry delay after a failed look-up (tests shorten it). Default 30 s. */
  retryFirstMs?: number;
  now?: Clock;
}

/**
 * The agency's account id at the source. Every account on the API key posts its webhooks to the
 * one URL the integrator registered, so a notice naming another account is not this relay's
 * business. Learned once per credentials (one request) and kept in the store: an access token
 * grants access to one account, so the same token names the same account and it is not asked again,
 * at a restart or daily; another token (a changed agency) is looked up at once. After a restart with
 * the source down, the last one learned still holds. Until one is known, every notice is taken as ours.
 */
export class AgencyAccount {
  readonly name = 'agency-account';
  private known: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private lookup: Promise<void> | undefined;
  private abort = new AbortController();
  private readonly log: Logger;

  constructor(private readonly options: AgencyAccountOptions) {
    this.log = options.log.child({ component: 'agency-account' });
    this.known = options.store.ownAccount();
  }

  /** Reads the remembered account again (another relay, holding the agency's sync, learned it). */
  reload(): void {
    this.known = this.options.store.ownAccount() ?? this.known;
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
    if (this.known && this.learnedWithTheseCredentials()) {
      this.log.info({ accountId: this.known }, `agency account ${this.known} (remembered)`);
      return;
    }
    if (this.known) this.log.info({ accountId: this.known }, `agency account ${this.known} (remembered, learned with another token); checking it with the CRM`);
    this.lookup = this.learn(this.options.retryFirstMs ?? RETRY_FIRST_MS);
  }

  /** Whether the remembered account was learned with the source's present credentials (a look-up dated in the future, a clock set back, is not trusted). */
  private learnedWithTheseCredentials(): boolean {
    const checks = this.options.store.accountChecks();
    const now = (this.options.now ?? Date.now)();
    return checks !== undefined && checks.checkedAt <= now && checks.credentials === this.options.source.credentialsId;
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
        this.log.warn(
          { accountId: account, previous: this.known },
          `agency account is now ${account} (was ${this.known}): the access token names another account`,
        );
      } else {
        this.log.info({ accountId: account }, `agency account ${account}: webhooks naming another account are acknowledged and ignored`);
      }
      const now = (this.options.now ?? Date.now)();
      this.known = account;
      // dueAt: none (the same token names the same account); kept for stores read by older relays.
      this.options.store.rememberAccount(account, { checkedAt: now, dueAt: now + 100 * 365 * 24 * 3600_000, credentials: this.options.source.credentialsId });
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
