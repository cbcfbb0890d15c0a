import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agency } from '../../server/compose/agency.ts';
import { CrmAccess } from '../../server/crm/access.ts';
import { createLogger, silentLogger } from '../../server/runtime/log.ts';
import { ALL_SCOPES, SCOPES } from '../../crm-sim/state.ts';
import { startAgenciesRig, until, type AgenciesRig } from './rig.ts';

/*
 * The daily access check takes the relay's own successful calls as proof: a day of sweeps and polls
 * proves listings and staff, a delivered enquiry proves enquiries, so the check calls the CRM only
 * for what nothing else used that day (usually the enquiries list: one request, not five). What is
 * counted here is counted at the simulator, over real HTTP.
 */

const requestsByEndpoint = (rig: AgenciesRig): Record<string, number> => {
  const { requestsByEndpoint: counts } = rig.sim.key.getCounters();
  // The key's usage read is the key's, not the check's.
  return Object.fromEntries(Object.entries(counts).filter(([endpoint, count]) => endpoint !== 'GET /integrator/usage' && count > 0));
};

describe("the daily access check proves by the day's own calls", () => {
  let rig: AgenciesRig;
  let agencyA: Agency;
  let agencyB: Agency;

  beforeAll(async () => {
    rig = await startAgenciesRig({ agencies: 2, listings: 8 });
    [agencyA, agencyB] = rig.relay.agencies!.list().map((running) => running.agency) as [Agency, Agency];
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it('after a day of sweeps and polls calls only for enquiries, which nothing exercised, and still proves them', async () => {
    // The first check with these credentials is full: GET /scopes and the three proofs.
    rig.sim.key.resetCounters();
    await agencyA.access.checkAccess();
    expect(requestsByEndpoint(rig)).toMatchObject({ 'GET /scopes': 1, 'GET /account/users': 1, 'GET /enquiries': 1 });

    // The day's work: a sweep and a few polls.
    expect((await agencyA.listings.sync.run('full')).complete).toBe(true);
    for (let poll = 0; poll < 3; poll++) await agencyA.listings.sync.run('incremental');

    rig.sim.key.resetCounters();
    const access = await agencyA.access.checkAccess();
    // Listings and staff were proved by the sweep; no GET /scopes (its names tell nothing the CRM documents).
    expect(requestsByEndpoint(rig)).toEqual({ 'GET /enquiries': 1 });
    expect(access.capabilities.listings).toMatchObject({ available: true, provedBy: { call: expect.stringMatching(/^GET \/properties\//) } });
    expect(access.capabilities.staff).toMatchObject({ available: true, provedBy: { call: 'GET /account/users' } });
    // Nothing sent or looked up an enquiry: it is proved by its own call.
    expect(access.capabilities.enquiries).toMatchObject({ available: true, status: 200 });
    expect(access.capabilities.enquiries.provedBy).toBeUndefined();
    expect(agencyA.access.missing()).toEqual([]);
  });

  it('after an enquiry is delivered as well, the daily check makes no request at all', async () => {
    const account = rig.accounts[0]!;
    const listingId =
      account.listings.find(
        (listing) =>
          listing.propertyClass === 'residential' &&
          listing.market === 'sale' &&
          listing.publishedToWeb !== null &&
          ['listing', 'conditional'].includes(listing.status),
      )!.lifeId * 2;
    const before = account.postedEnquiries().length;
    const accepted = await rig.request('/a/agency-a/api/v1/enquiries', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        originalId: randomUUID(),
        listingId,
        fullName: 'Jane Citizen',
        email: 'jane@example.com',
        message: 'Is it still available?',
        consent: true,
        website: '',
        elapsedMs: 25_000,
      }),
    });
    expect(accepted.status).toBe(202);
    agencyA.enquiries.worker.start();
    await until(
      () => account.postedEnquiries().length,
      (count) => count > before,
    );
    await agencyA.enquiries.worker.stop();

    rig.sim.key.resetCounters();
    const access = await agencyA.access.checkAccess();
    expect(requestsByEndpoint(rig)).toEqual({});
    expect(access.capabilities.enquiries).toMatchObject({ available: true, provedBy: { call: expect.stringMatching(/enquiries/) } });
  });

  it('calls again for what was proved more than a day ago', async () => {
    let clock = Date.now();
    const access = new CrmAccess({
      client: agencyB.crm,
      store: agencyB.store,
      log: silentLogger,
      listingClass: 'residential',
      usageCheckMinutes: 60,
      now: () => clock,
    });
    try {
      await access.checkAccess();
      expect((await agencyB.listings.sync.run('full')).complete).toBe(true);
      clock += 25 * 3600_000;
      rig.sim.key.resetCounters();
      await access.checkAccess();
      const calls = requestsByEndpoint(rig);
      expect(calls['GET /scopes']).toBeUndefined();
      expect(calls).toMatchObject({ 'GET /account/users': 1, 'GET /enquiries': 1 });
      expect(Object.keys(calls).filter((endpoint) => endpoint.startsWith('GET /properties/'))).toHaveLength(1);
    } finally {
      await access.stop();
    }
  });

  it('a refusal seen on a real call brings a full check at once, and CRM ACCESS MISSING names what to grant', async () => {
    const lines: Array<{ level: number; msg: string; capability?: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const access = new CrmAccess({
      client: agencyB.crm,
      store: agencyB.store,
      log: createLogger({ level: 'info' }, sink),
      listingClass: 'residential',
      usageCheckMinutes: 60,
    });
    const account = rig.accounts[1]!;
    try {
      await access.checkAccess({ full: true });
      access.start();
      // The sweep proves listings; then the agency takes the listing scope away.
      expect((await agencyB.listings.sync.run('full')).complete).toBe(true);
      account.setScopes(ALL_SCOPES.filter((scope) => scope !== SCOPES.propertiesRead));
      rig.sim.key.resetCounters();
      const refused = await agencyB.listings.sync.run('full');
      expect(refused.complete).toBe(false);
      const missing = await until(
        () => access.missing(),
        (gaps) => gaps.length > 0,
      );
      expect(missing).toEqual([expect.objectContaining({ capability: 'listings', grant: expect.stringMatching(/read access to properties/) })]);
      // A full check: the sweep's earlier success did not stand for listings, and GET /scopes was read.
      expect(requestsByEndpoint(rig)['GET /scopes']).toBe(1);
      const error = lines.find((line) => line.level === 50 && line.capability === 'listings');
      expect(error?.msg).toMatch(/CRM ACCESS MISSING.*listings.*Ask the agency to grant this integration read access to properties/);
    } finally {
      account.setScopes(ALL_SCOPES);
      await access.stop();
    }
  });
});
