import { describe, expect, inject, it } from 'vitest';
import { SharedDatabase } from '../../server/store/shared-database.ts';
import { freshDatabase } from '../support/postgres.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

function heard(): { payloads: string[]; push: (payload: string) => void; next: () => Promise<string> } {
  const payloads: string[] = [];
  let wake: (() => void) | undefined;
  return {
    payloads,
    push(payload: string) {
      payloads.push(payload);
      wake?.();
    },
    async next() {
      const start = payloads.length;
      const deadline = Date.now() + 5_000;
      while (payloads.length === start) {
        if (Date.now() > deadline) throw new Error('no notice within 5 s');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      return payloads[start]!;
    },
  };
}

describe.skipIf(skipped)(`relays told of each other's changes (LISTEN/NOTIFY)${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  it("one relay's notice reaches another relay's listener on that channel, and no other channel's", async () => {
    const url = await freshDatabase((postgres as { url: string }).url);
    const [first, second] = await Promise.all([SharedDatabase.open(url, { poolSize: 3 }), SharedDatabase.open(url, { poolSize: 3 })]);
    try {
      const replica = heard();
      const other = heard();
      await second.listen('replica_changed', (payload) => replica.push(payload));
      await second.listen('webhook_inbox', (payload) => other.push(payload));
      const next = replica.next();
      await first.notify('replica_changed', 'agency_one');
      expect(await next).toBe('agency_one');
      expect(other.payloads).toEqual([]);
      await expect(first.notify('Bad Channel', 'x')).rejects.toThrow(/lower-case/);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('listens again after its connection is killed, and says so (notices meanwhile may be lost)', async () => {
    const url = await freshDatabase((postgres as { url: string }).url);
    const [first, second] = await Promise.all([SharedDatabase.open(url, { poolSize: 3 }), SharedDatabase.open(url, { poolSize: 3 })]);
    try {
      const replica = heard();
      let reconnects = 0;
      await second.listen(
        'replica_changed',
        (payload) => replica.push(payload),
        () => reconnects++,
      );
      await first.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN replica_changed' AND pid <> pg_backend_pid()`);
      const deadline = Date.now() + 10_000;
      while (reconnects === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reconnects).toBe(1);
      const next = replica.next();
      await first.notify('replica_changed', 'after');
      expect(await next).toBe('after');
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
