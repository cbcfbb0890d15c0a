import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubPersonalData } from '../../server/runtime/log.ts';

/** A logger writing JSON lines into an array, as pino writes them to stdout. */
function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger({ level: 'info' }, destination), lines };
}

const EMAIL = 'ana.silva@example.com';
const PHONES = ['0412 345 678', '+61 (0)4 1234 5678', '07-3123-4567'];

describe('error logs', () => {
  it('keep the stack but not the email or phone number a message carries', () => {
    const { log, lines } = capture();
    const cause = new Error(`lookup failed for ${PHONES[2]}`);
    const error = new Error(`CRM refused the enquiry of ${EMAIL} (mobile ${PHONES[0]}, ${PHONES[1]})`, { cause });
    log.error({ err: error, listingId: 12345678 }, 'delivery failed');
    log.error(error);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      for (const secret of [EMAIL, ...PHONES]) expect(line).not.toContain(secret);
      const entry = JSON.parse(line) as { err: { type: string; stack: string } };
      expect(entry.err.type).toBe('Error');
      // (err.message itself is blanked by the `*.message` redaction; the stack's first line keeps it, scrubbed.)
      // The stack is still there, frames and all.
      expect(entry.err.stack).toMatch(/^Error: CRM refused the enquiry of \[email\] \(mobile \[phone\], \[phone\]\)\n/);
      expect(entry.err.stack).toMatch(/\n\s+at .*log\.test\.ts:\d+:\d+/);
      expect(line).toContain('lookup failed for [phone]');
    }
    expect(JSON.parse(lines[0]!).listingId).toBe(12345678);
  });

  it('leaves numbers that are not phone numbers alone', () => {
    expect(scrubPersonalData('listing 12345678 at file.js:120:17, status 503, id 0000-1111')).toBe(
      'listing 12345678 at file.js:120:17, status 503, id 0000-1111',
    );
  });
});
