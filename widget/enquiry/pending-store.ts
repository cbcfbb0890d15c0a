import type { EnquiryRequest } from '../../contract/relay-api.ts';

/**
 * A submission that has been sent at least once but not yet answered for good. Kept in
 * localStorage so a reload, a crash of the tab or a lost connection neither loses the lead nor
 * sends it twice: the retry carries the same originalId and the same body.
 *
 * It holds the visitor's own details on the visitor's own device, and only until the relay has
 * accepted (202) or definitively refused it; after 30 days an unsent one is dropped.
 */
export interface PendingEnquiry {
  request: EnquiryRequest;
  /** When it was first sent (epoch ms). */
  savedAt: number;
}

const MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export { pendingKey } from './pending-key.ts';

// Storage can be missing or throw (privacy modes, sandboxed frames, a full quota): the form must
// still work then, only without surviving a reload.
function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function loadPending(key: string): PendingEnquiry | undefined {
  try {
    const raw = storage()?.getItem(key);
    if (!raw) return undefined;
    const parsed = JSON.parse(raw) as Partial<PendingEnquiry>;
    const request = parsed.request;
    const valid =
      typeof parsed.savedAt === 'number' &&
      typeof request === 'object' &&
      request !== null &&
      typeof request.originalId === 'string' &&
      typeof request.fullName === 'string' &&
      typeof request.email === 'string';
    if (!valid || Date.now() - parsed.savedAt! > MAX_AGE_MS) {
      clearPending(key);
      return undefined;
    }
    return parsed as PendingEnquiry;
  } catch {
    return undefined;
  }
}

export function savePending(key: string, pending: PendingEnquiry): void {
  try {
    storage()?.setItem(key, JSON.stringify(pending));
  } catch {
    // Quota or privacy mode: the send still goes ahead, it just won't survive a reload.
  }
}

export function clearPending(key: string): void {
  try {
    storage()?.removeItem(key);
  } catch {
    // Nothing stored, nothing to clear.
  }
}

/** crypto.randomUUID exists only in secure contexts; an agency's plain-http page still needs an id. */
export function newOriginalId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
