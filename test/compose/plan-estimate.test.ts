import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/runtime/log.ts';
import { startAgenciesRig, type AgenciesRig } from './rig.ts';

/*
 * At the first start no agency was ever synced: the plan counts each list as one page. It says so
 * (an estimate), and each agency's first sweep replaces its guess with the size it found, until the
 * plan printed again has no estimate left.
 */
describe('the plan of never-synced agencies', () => {
  let rig: AgenciesRig;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line).msg as string);
        done();
      },
    });
    // 120 listings: more than one page a list, so the guess (one page each) is visibly below the truth.
    rig = await startAgenciesRig({ agencies: 2, listings: 120, log: createLogger({ level: 'info' }, sink) });
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  const plans = () => lines.filter((line) => line.startsWith('CRM budget for'));

  it("is printed as an estimate at start, and replaced after each agency's first sweep", async () => {
    const set = rig.relay.agencies!;
    const [atStart] = plans();
    expect(atStart).toContain('ESTIMATE: 2 of 2 agencies never synced are counted at one page a list');
    expect(atStart).toMatch(/ {2}agency-a: .*\(estimate: never synced\)/);
    expect(set.plan!.agencies.map((line) => line.estimated)).toEqual([true, true]);
    const guessed = set.plan!.agencies[0]!.sweepRequests;

    await set.get('agency-a')!.agency.listings.sync.run('full');
    expect(set.plan!.agencies.map((line) => line.estimated)).toEqual([false, true]);
    expect(set.plan!.agencies[0]!.sweepRequests, 'its real size').toBeGreaterThan(guessed);
    expect(plans()).toHaveLength(2);
    expect(plans()[1]).toContain('ESTIMATE: 1 of 2 agencies');

    await set.get('agency-b')!.agency.listings.sync.run('full');
    expect(set.plan!.agencies.map((line) => line.estimated)).toEqual([false, false]);
    const last = plans().at(-1)!;
    expect(last).not.toContain('estimate');
    expect(last).toMatch(/ {2}agency-b: /);

    // Later sweeps are no reason to print the plan again (the hourly usage read replans).
    await set.get('agency-a')!.agency.listings.sync.run('full');
    expect(plans()).toHaveLength(3);
  }, 60_000);
});
