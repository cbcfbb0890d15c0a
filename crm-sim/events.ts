import { formatDateTime } from './time.ts';

/** One change of the account, as `/eventStream` lists it and a webhook announces it. */
export interface SimEvent {
  /** Increasing from 1: the stream's cursor is the last one a reader has seen. */
  seq: number;
  /** Epoch ms. */
  at: number;
  /** The record's model: `property`, `user`. */
  type: string;
  action: string;
  recordId: number;
}

/** Events leave the stream after this long, as the CRM documents. */
export const EVENT_RETENTION_MS = 30 * 86_400_000;

export class CursorExpiredError extends Error {}

/**
 * The account's change log behind `GET /eventStream`. Cursors are opaque to readers: here the
 * base64url of `<seq>.<ms>`, refused once the events after them may have expired.
 */
export class EventLog {
  private events: SimEvent[] = [];
  private nextSeq = 1;
  private readonly listeners = new Set<(event: SimEvent) => void>();

  constructor(private readonly now: () => number) {}

  append(type: string, action: string, recordId: number): SimEvent {
    this.expire();
    const event = { seq: this.nextSeq++, at: this.now(), type, action, recordId };
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  onEvent(listener: (event: SimEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events after a cursor, or at/after a time; `limit` at most. */
  read(from: { cursor: string } | { since: number }, limit: number): { events: SimEvent[]; cursor: string } {
    this.expire();
    let afterSeq: number;
    if ('cursor' in from) {
      const decoded = decodeCursor(from.cursor);
      if (!decoded || this.now() - decoded.at > EVENT_RETENTION_MS)
        throw new CursorExpiredError('The cursor is invalid or has expired; read again with eventsSince.');
      afterSeq = decoded.seq;
    } else {
      const before = this.events.filter((event) => event.at < from.since).at(-1);
      afterSeq = before ? before.seq : (this.events[0]?.seq ?? this.nextSeq) - 1;
    }
    const events = this.events.filter((event) => event.seq > afterSeq).slice(0, limit);
    const last = events.at(-1);
    // The next cursor carries the time of the read, so an idle reader's cursor stays fresh.
    return { events, cursor: encodeCursor(last?.seq ?? afterSeq, this.now()) };
  }

  clear(): void {
    this.events = [];
  }

  private expire(): void {
    const cutoff = this.now() - EVENT_RETENTION_MS;
    if (this.events.length && this.events[0]!.at < cutoff) this.events = this.events.filter((event) => event.at >= cutoff);
  }
}

export function renderEvent(event: SimEvent) {
  return { id: String(event.seq), timestamp: formatDateTime(event.at), type: event.type, action: event.action, data: { id: event.recordId } };
}

function encodeCursor(seq: number, at: number): string {
  return Buffer.from(`${seq}.${at}`).toString('base64url');
}

function decodeCursor(cursor: string): { seq: number; at: number } | undefined {
  const match = /^(\d+)\.(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? { seq: Number(match[1]), at: Number(match[2]) } : undefined;
}
