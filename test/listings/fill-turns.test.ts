import { describe, expect, it } from 'vitest';
import { FillTurns } from '../../server/listings/fill-turns.ts';

describe('first fills take turns (listings/fill-turns.ts)', () => {
  it('gives a few turns at once, then each freed turn to the smallest waiting fill, ties first come first', async () => {
    const turns = new FillTurns(2);
    const order: string[] = [];
    const releases = new Map<string, () => void>();
    const ask = (name: string, size: number) =>
      turns
        .take(() => size)
        .then((release) => {
          order.push(name);
          releases.set(name, release);
        });
    const asked = [ask('first', 50), ask('second', 40), ask('big', 90), ask('small', 3), ask('medium', 20), ask('medium-later', 20)];
    await new Promise((resolve) => setImmediate(resolve));
    // Two turns: the first two to ask (nothing else waited yet); the other four wait.
    expect(order).toEqual(['first', 'second']);
    expect(turns.queued).toBe(4);
    releases.get('first')!();
    releases.get('first')!(); // A second release of one turn frees nothing more.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first', 'second', 'small']);
    for (const name of ['second', 'small', 'medium', 'medium-later']) {
      releases.get(name)!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(asked);
    expect(order).toEqual(['first', 'second', 'small', 'medium', 'medium-later', 'big']);
  });

  it('lets a fill stopped while it waits go, without taking a turn', async () => {
    const turns = new FillTurns(1);
    const held = await turns.take(() => 1);
    const abort = new AbortController();
    const stopped = turns.take(() => 0, abort.signal);
    const next = turns.take(() => 5);
    abort.abort(new Error('stopped'));
    await expect(stopped).rejects.toThrow('stopped');
    held();
    await expect(next).resolves.toBeTypeOf('function');
    expect(turns.queued).toBe(0);
  });
});
