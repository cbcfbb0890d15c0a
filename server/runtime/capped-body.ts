/** The body passed its cap: reading stopped there and the rest was cancelled. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes (stopped reading there)`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * An outbound fetch's body, read chunk by chunk and cancelled as soon as it passes `maxBytes`, so
 * an upstream that streams without end (or whose Content-Length lies) costs at most the cap: every
 * fetch the relay makes of another host (photos, the wrapper page, tiles, the geocoder) reads
 * through this. Throws BodyTooLargeError past the cap; a connection that breaks off throws as
 * the stream does, for the caller to name.
 */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new BodyTooLargeError(maxBytes);
      chunks.push(Buffer.from(value));
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  return Buffer.concat(chunks, total);
}
