import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createProgress, formatProgressLine } from '../../server/runtime/progress.ts';

/** A stream that records what is written, claiming to be a terminal or not. */
function recorder(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream & { text: string };
  stream.text = '';
  (stream as { isTTY: boolean }).isTTY = isTTY;
  return stream;
}

function logRecorder() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, destination), lines };
}

describe('progress reporting', () => {
  it('formats counts, share of the total and rate', () => {
    expect(formatProgressLine('First sync', 'listings', { done: 120, total: 400, seconds: 9.8, ratePerSecond: 12.2 })).toBe(
      'First sync: 120/400 listings (30%), 12.2/s, 9.8 s',
    );
    expect(formatProgressLine('Photo mirror', 'photos', { done: 7, seconds: 2, ratePerSecond: 3.5 })).toBe('Photo mirror: 7 photos, 3.5/s, 2 s');
  });

  it('redraws one line in place on a terminal and ends it with a newline', async () => {
    let clock = 0;
    const stream = recorder(true);
    const progress = createProgress('Photo mirror', { unit: 'photos', total: 10, stream, redrawMs: 0, now: () => clock });
    for (let i = 0; i < 10; i++) {
      clock += 500;
      progress.tick();
    }
    progress.done();
    const frames = stream.text.split('\r\x1b[2K').filter(Boolean);
    expect(frames).toHaveLength(11);
    expect(frames[0]).toBe('Photo mirror: 1/10 photos (10%), 2/s, 0.5 s');
    expect(frames.at(-1)).toBe('Photo mirror: 10/10 photos (100%), 2/s, 5 s — done\n');
    expect(stream.text.split('\n')).toHaveLength(2); // one line on screen, whatever the number of updates
  });

  it('writes nothing while running off a terminal, then one log line for the step', async () => {
    let clock = 0;
    const stream = recorder(false);
    const { log, lines } = logRecorder();
    const progress = createProgress('Listing sync', { unit: 'listings', stream, log, now: () => clock });
    for (let i = 0; i < 250; i++) {
      clock += 40;
      progress.tick();
    }
    progress.done({ kind: 'full' });
    progress.done(); // a second end is ignored
    expect(stream.text).toBe('');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      step: 'Listing sync',
      unit: 'listings',
      done: 250,
      seconds: 10,
      ratePerSecond: 25,
      kind: 'full',
      msg: 'Listing sync: 250 listings in 10 s (25/s)',
    });
  });

  it('logs a failed step as a warning with the error', () => {
    const { log, lines } = logRecorder();
    const progress = createProgress('Photo mirror', { unit: 'photos', stream: recorder(false), log, now: () => 1000 });
    progress.set(3);
    progress.fail(new Error('disk full'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, done: 3, error: 'disk full', msg: 'Photo mirror failed after 3 photos' });
  });
});
