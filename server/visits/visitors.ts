import { createHash, randomBytes } from 'node:crypto';

/** Bytes of a day's salt. */
export const SALT_BYTES = 32;

export function newSalt(): Buffer {
  return randomBytes(SALT_BYTES);
}

/**
 * A visitor of one day, as privacy-first analytics count one (Plausible's method): a hash of the
 * day's salt, the client's address, its user agent and the agency. The salt is random, kept for its
 * day only and then deleted, so neither the address nor a visitor across days can be recovered from
 * the hash. The address and user agent are never stored: only this.
 */
export function visitorHash(salt: Buffer, address: string, userAgent: string, agency: string): string {
  // Each part length-prefixed, so no two different inputs run together into the same bytes.
  const hash = createHash('sha256').update(salt);
  for (const part of [address, userAgent, agency]) hash.update(`${Buffer.byteLength(part)}:`).update(part);
  // 16 bytes tell a day's visitors apart as well as 32 would, in half the store.
  return hash.digest('hex').slice(0, 32);
}
