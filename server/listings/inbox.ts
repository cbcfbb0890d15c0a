import type { ChangeNotice } from './source.ts';

/** A verified notice waiting for the agency's sync holder. */
export interface InboxNotice {
  id: number;
  digest: string;
  expiresAt: number;
  /** Undefined: the stored JSON is not a notice (a row written by hand, say): mark it taken and move on. */
  notice: ChangeNotice | undefined;
  receivedAt: number;
}

/**
 * The agency's webhook inbox shared by every relay (DATABASE_URL; cluster/webhook-inbox.ts keeps it
 * in PostgreSQL): any relay's webhook route stores a verified notice in it, and the agency's sync
 * holder's change worker takes it from there.
 */
export interface WebhookInbox {
  /** Stores a verified notice unless any relay has seen its digest ('duplicate'). */
  accept(digest: string, expiresAt: number, notice: ChangeNotice, now: number): Promise<'stored' | 'duplicate'>;
  take(limit: number): Promise<InboxNotice[]>;
  markTaken(ids: readonly number[]): Promise<void>;
  /** Calls `handler` when any relay has stored a notice; answers the unsubscribe. */
  onArrival(handler: () => void): Promise<() => void>;
}

/** What the change worker needs of an inbox (events.ts). */
export type WebhookInboxQueue = Pick<WebhookInbox, 'take' | 'markTaken' | 'onArrival'>;
