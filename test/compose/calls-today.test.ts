import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectAgenciesStatus } from '../../server/ops/agencies-cli.ts';
import { budgetUsedOn, callsOn, countCall, utcDay } from '../../server/crm/limiter.ts';
import { startAgenciesRig, type AgenciesRig } from './rig.ts';
import { onOneUtcDayFor } from '../support/test-clock.ts';

/*
 * "CRM calls today" per agency (the operator view) is counted in each agency's store, per UTC day,
 * as the key's total is in DATA_DIR's: a restart keeps it, and the CLI shows it with the relay down.
 */
describe('CRM calls today per agency', () => {
  let rig: AgenciesRig;
  beforeAll(async () => {
    // Counted per UTC day on the wall clock (the relay takes no other): the syncs, the restart and
    // the CLI's reading (two minutes at most) fall on one day.
    await onOneUtcDayFor(2 * 60_000);
    rig = await startAgenciesRig({ agencies: 2, listings: 3 });
  }, 180_000); // 1 min, and up to 2 waiting out a UTC midnight
  afterAll(async () => {
    await rig?.close();
  });

  const callsToday = () => rig.relay.agencies!.list().map((running) => running.agency.crm.requestsToday().requests);

  it('survives a restart, and the operator view shows it with the relay stopped', async () => {
    await rig.syncAll();
    const before = callsToday();
    expect(before.every((calls) => calls > 0)).toBe(true);
    // Each agency's count adds up to the key's total, which was already kept.
    expect(before[0]! + before[1]!).toBe(budgetUsedOn(rig.relay.store, utcDay(new Date())));

    await rig.restart();
    expect(callsToday(), 'the restarted relay starts from the counts of the day').toEqual(before);
    expect((await rig.relay.agencies!.statusSnapshot()).agencies.map((row) => row.crmCallsToday)).toEqual(before);
    // New calls add to them.
    await rig.relay.agencies!.get('agency-a')!.agency.listings.sync.run('full');
    const after = callsToday();
    expect(after[0]).toBeGreaterThan(before[0]!);
    expect(after[1]).toBe(before[1]);

    // The relay (not running as a process here) is not where the CLI reads them from: the stores are.
    const status = collectAgenciesStatus(rig.file, rig.dataDir, 10_000);
    expect(status.relayRunning).toBe(false);
    expect(status.agencies.map((row) => row.crmCallsToday)).toEqual(after);
  }, 60_000);

  it('counts per UTC day: another day starts at zero, and days older than a week are dropped', () => {
    const store = rig.relay.agencies!.get('agency-b')!.agency.store;
    expect(callsOn(store, '2020-01-01')).toBe(0);
    expect(countCall(store, '2020-01-01')).toBe(1);
    expect(countCall(store, '2020-01-01')).toBe(2);
    expect(countCall(store, '2020-01-05')).toBe(1);
    expect(callsOn(store, '2020-01-01')).toBe(2);
    // The first call of a day more than a week later drops both.
    expect(countCall(store, '2020-01-20')).toBe(1);
    expect(callsOn(store, '2020-01-01')).toBe(0);
    expect(callsOn(store, '2020-01-05')).toBe(0);
    expect(callsOn(store, utcDay(new Date()))).toBeGreaterThan(0);
  });
});
