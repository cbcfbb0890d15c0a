import { createHmac } from 'node:crypto';
import type { SimEvent } from './events.ts';
import type { SimListing } from './model.ts';
import { formatDateTime } from './time.ts';
import { renderListing, renderPhoto, renderUser, type UserLookup } from './views.ts';

/** What the sender needs of the simulator's state (a narrow type: state.ts builds the sender). */
export interface WebhookState extends UserLookup {
  readonly options: { apiKey: string };
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
 * The CRM's webhooks: every event is POSTed as JSON to the registered URL, signed
 * `X-VaultRE-Signature: t=<ms>,sha512=<hex HMAC-SHA512(apiKey, "<t>.<raw body>")>`. No retry,
 * like the CRM; `dropRate` loses some on purpose.
 */
export class WebhookSender {
  settings: WebhookSettings = { url: null, dropRate: 0, itemBodies: true };
  counts: WebhookCounts = { sent: 0, dropped: 0, failed: 0 };
  private dropDebt = 0;
  private inFlight = new Set<Promise<void>>();

  constructor(private readonly state: WebhookState) {}

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

  send(event: SimEvent): void {
    const url = this.settings.url;
    if (!url) return;
    // Error diffusion: exactly `dropRate` of deliveries lost, evenly spread (0.5: every other one).
    this.dropDebt += this.settings.dropRate;
    if (this.dropDebt >= 1 - 1e-9) {
      this.dropDebt -= 1;
      this.counts.dropped++;
      return;
    }
    const delivery = this.deliver(url, event).finally(() => this.inFlight.delete(delivery));
    this.inFlight.add(delivery);
  }

  private async deliver(url: string, event: SimEvent): Promise<void> {
    try {
      const body = JSON.stringify(await this.body(event));
      const t = this.state.now();
      const signature = createHmac('sha512', this.state.options.apiKey).update(`${t}.`).update(body).digest('hex');
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-VaultRE-Signature': `t=${t},sha512=${signature}` },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) this.counts.sent++;
      else this.counts.failed++;
    } catch {
      this.counts.failed++;
    }
  }

  private async body(event: SimEvent): Promise<Record<string, unknown>> {
    const origin = this.state.origin ?? 'http://127.0.0.1';
    const itemBodies: Array<{ dataModel: string; data: string }> = [];
    if (this.settings.itemBodies) {
      if (event.type === 'property') {
        // One record per life of the property: a property for sale and for lease at once sends both.
        for (const listing of this.state.listingsOfProperty(event.recordId)) {
          // The full record, photos inline (as real records carry them).
          const record = { ...renderListing(listing, this.state, origin, 'single'), photos: await Promise.all(listing.photos.map((photo) => renderPhoto(photo, origin))) };
          itemBodies.push({ dataModel: 'Property', data: JSON.stringify(record) });
        }
      } else if (event.type === 'user') {
        const user = this.state.user(event.recordId);
        if (user) itemBodies.push({ dataModel: 'User', data: JSON.stringify(renderUser(user, origin)) });
      }
    }
    return {
      event: `${event.type}.${event.action}`,
      data: { id: event.recordId },
      accountid: 1,
      timestamp: formatDateTime(event.at),
      itemBodies,
    };
  }
}
