import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCrmWebhook, verifyCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, control, manualClock, startWebhookReceiver, type WebhookReceiver } from './helpers.ts';

/*
 * Many agencies on one integrator key: one account per access token, each with its own data and
 * event stream, the key's limits and quota shared by all, webhooks for all to the one URL.
 */

let sim: RunningSimulator | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  receiver?.close();
  receiver = undefined;
});

const tokenOf = (running: RunningSimulator, index: number) => running.key.accounts[index]!.options.accessToken;

async function allIds(call: ReturnType<typeof apiClient>, token: string, path: string): Promise<number[]> {
  const response = await call(`${path}${path.includes('?') ? '&' : '?'}pagesize=100`, { token });
  expect(response.status).toBe(200);
  return (response.body.items as Array<{ id: number }>).map((item) => item.id);
}

describe('CRM simulator: accounts on one key', () => {
  it('GET /account answers the token’s own account; each account has its own id and name', async () => {
    sim = await startSimulator({ listings: 12, agencies: 3 });
    const call = apiClient(sim);
    const answers = await Promise.all([0, 1, 2].map((index) => call('/account', { token: tokenOf(sim!, index) })));
    for (const [index, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ id: sim.key.accounts[index]!.accountId, name: sim.key.accounts[index]!.agency.name });
    }
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(3);
    expect(new Set(answers.map((answer) => answer.body.name)).size).toBe(3);
    // The first account is the agency a single-account simulator has always been.
    expect(answers[0]!.body).toMatchObject({ id: 5129, name: 'Harbour & Yarra Property' });
    expect(sim.accessToken).toBe(tokenOf(sim, 0));
  });

  it('isolates listings, staff, enquiries and events between accounts, ids never colliding', async () => {
    const clock = manualClock('2026-03-02T00:00:00Z');
    sim = await startSimulator({ listings: 20, agencies: 2, now: clock.now, requestsPerSecond: 1000 });
    const call = apiClient(sim);
    const [tokenA, tokenB] = [tokenOf(sim, 0), tokenOf(sim, 1)];
    const [accountA, accountB] = sim.key.accounts as [typeof sim.state, typeof sim.state];

    const listingsA = await allIds(call, tokenA, '/properties/residential/sale');
    const listingsB = await allIds(call, tokenB, '/properties/residential/sale');
    expect(listingsA.length).toBeGreaterThan(0);
    expect(listingsB.length).toBeGreaterThan(0);
    expect(listingsA.filter((id) => listingsB.includes(id))).toEqual([]);
    expect(listingsA.sort()).toEqual(
      accountA.listings
        .filter((l) => l.propertyClass === 'residential' && l.market === 'sale')
        .map((l) => l.id)
        .sort(),
    );
    // Another account's listing is not there for this token.
    expect((await call(`/properties/residential/sale/${listingsB[0]}`, { token: tokenA })).status).toBe(404);
    expect((await call(`/properties/${listingsB[0]}/photos`, { token: tokenA })).status).toBe(404);

    const staffA = await allIds(call, tokenA, '/account/users');
    const staffB = await allIds(call, tokenB, '/account/users');
    expect(staffA.filter((id) => staffB.includes(id))).toEqual([]);
    expect((await call(`/account/users/${staffB[0]}`, { token: tokenA })).status).toBe(404);
    const namesA = accountA.users.map((user) => `${user.fields.firstName} ${user.fields.lastName}`);
    const namesB = accountB.users.map((user) => `${user.fields.firstName} ${user.fields.lastName}`);
    expect(namesA).not.toEqual(namesB);

    // Photo and enquiry ids are apart too.
    const photoIds = (account: typeof accountA) => account.listings.flatMap((listing) => listing.photos.map((photo) => photo.id));
    expect(photoIds(accountA).filter((id) => photoIds(accountB).includes(id))).toEqual([]);
    const seededA = await allIds(call, tokenA, '/enquiries');
    const seededB = await allIds(call, tokenB, '/enquiries');
    expect(seededA.filter((id) => seededB.includes(id))).toEqual([]);

    // An enquiry posted with B's token lands in B only.
    const saleB = accountB.listings.find((listing) => listing.market === 'sale' && listing.status === 'listing')!;
    const posted = await call('/enquiries', {
      method: 'POST',
      token: tokenB,
      body: { fullName: 'Kim Lee', email: 'kim@example.org', saleLifeId: saleB.lifeId, body: 'Is it still for sale?' },
    });
    expect(posted.status).toBe(201);
    expect(accountB.postedEnquiries().map((enquiry) => enquiry.id)).toEqual([posted.body.id]);
    expect(accountA.postedEnquiries()).toEqual([]);
    expect(seededA).not.toContain(posted.body.id);
    expect(await allIds(call, tokenA, '/enquiries')).not.toContain(posted.body.id);
    // A's token cannot name B's listing in an enquiry.
    const cross = await call('/enquiries', {
      method: 'POST',
      token: tokenA,
      body: { fullName: 'Kim Lee', email: 'kim@example.org', saleLifeId: saleB.lifeId },
    });
    expect(cross.status).toBe(400);
    expect((await control(sim, `/enquiries?account=${accountB.accountId}`)).body.items.map((item: { id: number }) => item.id)).toEqual([posted.body.id]);
    expect((await control(sim, '/enquiries')).body.items).toEqual([]);

    // A change in B is on B's event stream, not A's.
    await control(sim, `/listings/${saleB.id}?account=${accountB.accountId}`, { method: 'PATCH', body: { fields: { heading: 'Only in B' } } });
    const eventsB = await call('/eventStream?eventsSince=2026-03-01T00:00:00Z', { token: tokenB });
    const eventsA = await call('/eventStream?eventsSince=2026-03-01T00:00:00Z', { token: tokenA });
    expect(eventsB.body.items.map((item: { data: { id: number } }) => item.data.id)).toEqual([saleB.id]);
    expect(eventsA.body.items).toEqual([]);
    expect((await control(sim, `/events?account=${accountB.accountId}`)).body.items).toHaveLength(1);
    expect((await control(sim, '/events')).body.items).toHaveLength(0);
    // A control route naming an account the key does not have says so.
    const unknown = await control(sim, '/listings?account=999');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/account 999/);
    expect((await control(sim, '/listings?account=first')).status).toBe(400);
  });

  it('counts the per-second limit across the key: two tokens together get 10 in a second, 429 beyond', async () => {
    const clock = manualClock('2026-03-02T00:00:00Z');
    sim = await startSimulator({ listings: 4, agencies: 2, now: clock.now });
    const call = apiClient(sim);
    const burst = await Promise.all(Array.from({ length: 16 }, (_, index) => call('/account', { token: tokenOf(sim!, index % 2) })));
    const statuses = burst.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
    expect(burst.find((response) => response.status === 429)!.body.code).toBe('RATE_LIMIT_EXCEEDED');
    // Both accounts were served within the ten: the window is the key's, not each token's.
    const servedIds = new Set(burst.filter((response) => response.status === 200).map((response) => response.body.id));
    expect(servedIds.size).toBe(2);
    // The peak is the key's: every arrival of both tokens in that second.
    expect(sim.state.peakRequestsPerSecond()).toBe(16);
    expect(sim.key.getCounters().perKey[sim.apiKey]!.refusedPerSecond).toBe(6);
    clock.advance(1001);
    expect((await call('/account', { token: tokenOf(sim, 1) })).status).toBe(200);
  });

  it('GET /integrator/usage answers the key’s day whatever token asks; the daily cap is the key’s', async () => {
    const clock = manualClock('2026-03-02T00:00:00Z');
    sim = await startSimulator({ listings: 4, agencies: 3, now: clock.now, dailyLimit: 8, requestsPerSecond: 1000 });
    const call = apiClient(sim);
    for (let index = 0; index < 3; index++) expect((await call('/account', { token: tokenOf(sim, 0) })).status).toBe(200);
    expect((await call('/account', { token: tokenOf(sim, 1) })).status).toBe(200);
    const fromB = await call('/integrator/usage', { token: tokenOf(sim, 1) });
    expect(fromB.body).toEqual({ used: 5, remaining: 3 });
    const fromC = await call('/integrator/usage', { token: tokenOf(sim, 2) });
    expect(fromC.body).toEqual({ used: 6, remaining: 2 });
    expect((await call('/account', { token: tokenOf(sim, 2) })).status).toBe(200);
    expect((await call('/account', { token: tokenOf(sim, 0) })).status).toBe(200);
    // The key's day is spent: every account is refused, not just the one that spent most.
    const refused = await call('/account', { token: tokenOf(sim, 1) });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('DAILY_QUOTA_EXCEEDED');
  });

  it('sends every account’s webhooks to the one URL, signed with the key, carrying that account’s accountid', async () => {
    receiver = await startWebhookReceiver();
    const { url } = receiver;
    sim = await startSimulator({ listings: 6, agencies: 3, webhookUrl: url });
    const accounts = sim.key.accounts;
    for (const account of [accounts[2]!, accounts[0]!, accounts[1]!]) {
      const listing = account.listings.find((candidate) => account.listingsOfProperty(candidate.id).length === 1)!;
      await control(sim, `/listings/${listing.id}?account=${account.accountId}`, {
        method: 'PATCH',
        body: { fields: { heading: `For ${account.accountId}` } },
      });
    }
    await sim.state.webhooks.settled();
    const received = receiver.received.map((delivery) => delivery.body);
    const signatures = receiver.received.map((delivery) => String(delivery.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()]));
    expect(received).toHaveLength(3);
    const bodies = received.map((body) => JSON.parse(body.toString('utf8')) as { accountid: number; data: { id: number } });
    expect(bodies.map((body) => body.accountid)).toEqual([accounts[2]!.accountId, accounts[0]!.accountId, accounts[1]!.accountId]);
    for (const [index, body] of bodies.entries()) {
      expect(verifyCrmWebhook(sim.apiKey, signatures[index]!, received[index]!, Date.now(), 60_000).ok).toBe(true);
      const owner = sim.key.accountById(body.accountid)!;
      expect(owner.listing(body.data.id)).toBeDefined();
      const notice = parseCrmWebhook(received[index]!, Date.now());
      expect(notice.records[0]).toMatchObject({ id: body.data.id, heading: `For ${body.accountid}` });
    }
    expect((await control(sim, `/webhooks?account=${accounts[1]!.accountId}`)).body).toMatchObject({ url, sent: 1, dropped: 0 });
    expect((await control(sim, '/webhooks')).body).toMatchObject({ sent: 3 });
  });

  it('adds and removes accounts at run time through the control surface', async () => {
    sim = await startSimulator({ listings: 6 });
    const call = apiClient(sim);
    const added = await control(sim, '/accounts', { method: 'POST', body: { listings: 3 } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: expect.any(Number), name: expect.any(String), accessToken: expect.any(String), listings: 3 });
    expect(added.body.id).not.toBe(5129);
    const account = await call('/account', { token: added.body.accessToken });
    expect(account.body).toMatchObject({ id: added.body.id, name: added.body.name });
    expect(await allIds(call, added.body.accessToken, '/properties/residential/sale')).not.toContain(sim.state.listings[0]!.id);
    expect((await control(sim, '/accounts')).body.items.map((item: { id: number }) => item.id)).toEqual([5129, added.body.id]);

    // Bad input is refused, naming the field; a token already in use too.
    const bad = await control(sim, '/accounts', { method: 'POST', body: { listings: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/listings/);
    expect((await control(sim, '/accounts', { method: 'POST', body: { accessToken: sim.accessToken } })).status).toBe(409);

    const removed = await control(sim, `/accounts/${added.body.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await call('/account', { token: added.body.accessToken })).status).toBe(401);
    expect((await control(sim, '/accounts/5129', { method: 'DELETE' })).status).toBe(409);
    // A later account never reuses the removed one's id.
    const next = await control(sim, '/accounts', { method: 'POST', body: {} });
    expect(next.body.id).not.toBe(added.body.id);
  });

  it('keeps a cheap mode for benches: 200 accounts of 100 listings with one photo each start in seconds', async () => {
    const started = performance.now();
    sim = await startSimulator({ agencies: 200, listings: 100, photosPerListing: 1 });
    const elapsed = performance.now() - started;
    expect(sim.key.accounts).toHaveLength(200);
    expect(sim.key.accounts.every((account) => account.listings.length >= 100 && account.listings.every((listing) => listing.photos.length <= 1))).toBe(true);
    expect(new Set(sim.key.accounts.map((account) => account.accountId)).size).toBe(200);
    expect(elapsed).toBeLessThan(15_000);
  });

  it('refuses an impossible number of accounts, naming the setting', async () => {
    await expect(startSimulator({ agencies: 0 })).rejects.toThrow(/agencies/);
    await expect(startSimulator({ agencies: 1.5 })).rejects.toThrow(/agencies/);
  });
});

describe('npm run crm-sim with SIM_AGENCIES', () => {
  async function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; child: ReturnType<typeof spawn> }> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'crm-sim/main.ts'], {
      env: { ...process.env, SIM_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ready = new Promise<void>((resolve) => child.stdout.on('data', () => stdout.includes('Point the relay') && resolve()));
    const exited = once(child, 'exit').then(([code]) => code as number | null);
    const code = await Promise.race([ready.then(() => null), exited]);
    return { code, stdout, stderr, child };
  }

  it('starts with that many accounts on the key, listed with their tokens', async () => {
    const { stdout, child } = await run({ SIM_AGENCIES: '3' });
    try {
      const origin = /control\s+(http:\/\/[^/]+)\/__sim/.exec(stdout)![1]!;
      const accounts = (await (await fetch(`${origin}/__sim/accounts`)).json()) as { items: Array<{ id: number; accessToken: string }> };
      expect(accounts.items).toHaveLength(3);
      for (const account of accounts.items) expect(stdout).toContain(account.accessToken);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }, 30_000);

  it('refuses a bad SIM_AGENCIES, naming it', async () => {
    const { code, stderr } = await run({ SIM_AGENCIES: 'many' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/SIM_AGENCIES/);
  }, 30_000);
});
