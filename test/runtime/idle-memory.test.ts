import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { collectWhenIdle } from '../../server/runtime/idle-memory.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

let stop: (() => void) | undefined;
afterEach(() => stop?.());

async function until(condition: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('collectWhenIdle (issue 33: memory)', () => {
  it('collects once the relay is quiet after its heap grew, though the work cost little CPU (a burst of visitors)', async () => {
    gc();
    let collections = 0;
    stop = collectWhenIdle({ checkMs: 300, collect: () => (collections++, gc()) });
    // Quiet and nothing grown: no collection.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(collections).toBe(0);
    // 32 MB of short-lived objects kept past a check, then let go: the heap has grown.
    let kept: number[][] | undefined = Array.from({ length: 64 }, () => Array.from({ length: 65_536 }, (_, i) => i));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(kept.length).toBe(64);
    kept = undefined;
    await until(() => collections === 1);
    // Once, not at every quiet check.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(collections).toBe(1);
  });
});
