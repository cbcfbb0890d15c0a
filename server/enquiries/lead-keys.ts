import { createHmac } from 'node:crypto';
import { enquiryFingerprint, intentDigest, onceKey, type ParsedEnquiry } from './schema.ts';

/** What marks a digest as keyed in the outbox: rows stored before keys were keyed hold a bare SHA-256 (64 hex digits). */
export const KEYED_PREFIX = 'k1:';

/** The name of the relay's secret the outbox keys its digests with (store/relay-secrets.ts). */
export const LEAD_KEYS_SECRET = 'enquiry-keys';

/**
 * The outbox's digests of a lead, keyed with the relay's own secret (HMAC-SHA-256): the fingerprint
 * that tells a retry from a conflict, the once key of an open-home registration, the intent key.
 * Each is the HMAC of the plain SHA-256 digest schema.ts makes, so a row stored before keys were
 * keyed is keyed in place from what it holds, payload or not (EnquiryOutbox.keys). Without the
 * secret, a backup's digests confirm no guessed address.
 */
export class LeadKeys {
  constructor(private readonly secret: Buffer) {}

  /** A plain digest keyed. */
  keyed(digest: string): string {
    return KEYED_PREFIX + createHmac('sha256', this.secret).update(digest).digest('hex');
  }

  fingerprint(lead: ParsedEnquiry): string {
    return this.keyed(enquiryFingerprint(lead));
  }

  onceKey(lead: ParsedEnquiry): string | undefined {
    const digest = onceKey(lead);
    return digest === undefined ? undefined : this.keyed(digest);
  }

  intentKey(lead: ParsedEnquiry): string | undefined {
    const digest = intentDigest(lead);
    return digest === undefined ? undefined : this.keyed(digest);
  }
}

export const isKeyed = (digest: string): boolean => digest.startsWith(KEYED_PREFIX);
