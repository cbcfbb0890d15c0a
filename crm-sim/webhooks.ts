import { createHmac } from 'node:crypto';
import type { SimEvent } from './events.ts';
import type { SimListing } from './model.ts';
import { formatDateTime } from './time.ts';
import { renderListing, renderPhoto, renderUser, type UserLookup } from './views.ts';

/** What the sender needs of an account's state (a narrow type: state.ts builds the sender). */
export interface WebhookState extends UserLookup {
  readonly options: { apiKey: string };
  /** The CRM's id of the account, sent as `accountid`. */
  readonly accountId: number;
  readonly origin: string | null;
  now(): number;
  listingsOfProperty(id: number): SimListing[];
}

export interface WebhookSettings {
  /** Where to POST (the integrator's registered URL); null: no webhooks. */
  url: string | null;
  /** Share of deliveries dropped (0-1), spread evenly: 0.5 drops every other one. */
  dropRate: number;
  /** Whether deliveries carry the record in `itemBodies` (the CRM's do). */
  itemBodies: boolean;
}

export interface WebhookCounts {
  sent: number;
  dropped: number;
  /** The receiver answered non-2xx or could not be reached (not retried, like the CRM). */
  failed: number;
}

/**
 * The CRM's webhooks, one sender per API key: every event of every account on the key is POSTed as
 * JSON to the one registered URL, with the account's `accountid`, signed
 * `X-VaultRE-Signature: t=<ms>,sha512=<hex HMAC-SHA512(apiKey, "<t>.<raw body>")>`. No retry,
 * like the CRM; `dropRate` loses some on purpose.
 */
export class WebhookSender {
  settings: WebhookSettings = { url: null, dropRate: 0, itemBodies: true };
  counts: WebhookCounts = { sent: 0, dropped: 0, failed: 0 };
  /** The same counts, by account id. */
  countsByAccount = new Map<number, WebhookCounts>();
  private dropDebt = 0;
  /** Set while forcing(): whether the deliveries started meanwhile are dropped, whatever dropRate says. */
  private forced: boolean | undefined;
  private inFlight = new Set<Promise<void>>();

  get url(): string | null {
    return this.settings.url;
  }

  configure(change: Partial<WebhookSettings>): WebhookSettings {
    if (change.url !== undefined && change.url !== null && !/^https?:\/\//.test(change.url)) throw new TypeError('url must be an http(s) URL or null');
    if (change.dropRate !== undefined && !(change.dropRate >= 0 && change.dropRate <= 1)) throw new TypeError('dropRate must be a number from 0 to 1');
    this.settings = { ...this.settings, ...change };
    this.dropDebt = 0;
    return { ...this.settings };
  }

  /** Resolves once every delivery started so far has finished. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  private count(account: WebhookState, outcome: keyof WebhookCounts): void {
    this.counts[outcome]++;
    let byAccount = this.countsByAccount.get(account.accountId);
    if (!byAccount) this.countsByAccount.set(account.accountId, (byAccount = { sent: 0, dropped: 0, failed: 0 }));
    byAccount[outcome]++;
  }

  /** The counts of one account's deliveries. */
  countsOf(accountId: number): WebhookCounts {
    return { ...(this.countsByAccount.get(accountId) ?? { sent: 0, dropped: 0, failed: 0 }) };
  }

  /**
   * Runs `change` (synchronous: the change and its event) with its webhooks dropped (true) or
   * delivered (false) whatever `dropRate` says; undefined leaves `dropRate` in charge. The change
   * driver uses it to lose its own changes' webhooks at its own rate.
   */
  forcing<T>(drop: boolean | undefined, change: () => T): T {
    const before = this.forced;
    this.forced = drop;
    try {
      return change();
    } finally {
      this.forced = before;
    }
  }

  send(event: SimEvent, account: WebhookState): void {
    const url = this.settings.url;
    if (!url) return;
    if (this.forced ?? this.dropByRate()) return void this.count(account, 'dropped');
    const delivery = this.deliver(url, event, account).finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  /** Error diffusion over the key's deliveries: exactly `dropRate` lost, evenly spread (0.5: every other one). */
  private dropByRate(): boolean {
    this.dropDebt += this.settings.dropRate;
    if (this.dropDebt < 1 - 1e-9) return false;
    this.dropDebt -= 1;
    return true;
  }

  private async deliver(url: string, event: SimEvent, account: WebhookState): Promise<void> {
    try {
      const body = JSON.stringify(await this.body(event, account));
      const t = account.now();
      const signature = createHmac('sha512', account.options.apiKey).update(`${t}.`).update(body).digest('hex');
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-VaultRE-Signature': `t=${t},sha512=${signature}` },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      this.count(account, response.ok ? 'sent' : 'failed');
    } catch {
      this.count(account, 'failed');
    }
  }

  private async body(event: SimEvent, account: WebhookState): Promise<Record<string, unknown>> {
    const origin = account.origin ?? 'http://127.0.0.1';
    const itemBodies: Array<{ dataModel: string; data: string }> = [];
    if (this.settings.itemBodies) {
      if (event.type === 'property') {
        // One record per life of the property: a property for sale and for lease at once sends both.
        for (const listing of account.listingsOfProperty(event.recordId)) {
          // The full record, photos inline (as real records carry them).
          const record = {
            ...renderListing(listing, account, origin, 'single'),
            photos: await Promise.all(listing.photos.map((photo) => renderPhoto(photo, origin))),
          };
          itemBodies.push({ dataModel: 'Property', data: JSON.stringify(record) });
        }
      } else if (event.type === 'user') {
        const user = account.user(event.recordId);
        if (user) itemBodies.push({ dataModel: 'User', data: JSON.stringify(renderUser(user, origin)) });
      }
    }
    return {
      event: `${event.type}.${event.action}`,
      data: { id: event.recordId },
      accountid: account.accountId,
      timestamp: formatDateTime(event.at),
      itemBodies,
    };
  }
}
