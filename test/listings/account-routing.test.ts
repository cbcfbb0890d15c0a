import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/runtime/config.ts';
import { crmListingSource } from '../../server/crm/listing-source.ts';
import { AgencyAccount } from '../../server/listings/account.ts';
import { signCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { collectStatus, formatStatus } from '../../server/ops/status.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { publicListingId, startListingRig, type ListingRig } from './rig.ts';

/*
 * Two agencies on one API key (the simulator's SIM_AGENCIES=2): the CRM posts both accounts'
 * webhooks to the one URL. The relay serves the first and must leave the other's alone.
 */

async function until<T>(probe: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhooks routed by the agency account id', () => {
  let rig: ListingRig;
  let relay: RunningRelay;
  let own: SimulatorState;
  let other: SimulatorState;

  beforeAll(async () => {
    rig = await startListingRig({ listings: 12, agencies: 2, env: { WEBHOOK_DAILY_REFRESHES: '1000' } });
    relay = rig.relay;
    [own, other] = rig.sim.key.accounts as [SimulatorState, SimulatorState];
    expect((await relay.listings.sync.run('full')).error).toBeUndefined();
    relay.listings.changes.start();
  });
  afterAll(async () => {
    await rig?.close();
  });

  const post = (body: string, url = relay.url) =>
    fetch(`${url}/hooks/crm`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook(rig.sim.apiKey, Date.now(), body) },
      body,
    });
  const event = (propertyId: number, accountid?: number) =>
    JSON.stringify({
      event: 'property.update',
      data: { id: propertyId },
      ...(accountid === undefined ? {} : { accountid }),
      timestamp: new Date().toISOString(),
    });
  const pending = () => tablesOf(relay.store).prepare('SELECT COUNT(*) FROM crm_change_queue').pluck().get() as number;
  const metrics = async () => (await rig.get('/metrics')).text;
  /** A published residential sale of one account with one life (its webhook names the property). */
  const saleOf = (account: SimulatorState) =>
    account.listings.find(
      (listing) =>
        listing.market === 'sale' &&
        listing.propertyClass === 'residential' &&
        listing.publishedToWeb !== null &&
        listing.status === 'listing' &&
        account.listingsOfProperty(listing.id).length === 1,
    )!;

  it("before the account id is known, every verified event is taken as this agency's (as before)", async () => {
    expect(relay.listings.account.id).toBeUndefined();
    const response = await post(event(saleOf(own).id, other.accountId));
    expect(response.status).toBe(202);
    await until(pending, (count) => count === 0);
  });

  it('learns the account id from the CRM at start with one request, and remembers it in the store', async () => {
    const before = rig.crmRequests();
    relay.listings.account.start();
    const learned = await until(
      () => relay.listings.account.id,
      (id) => id !== undefined,
    );
    expect(learned).toBe(String(own.accountId));
    expect(rig.crmRequests() - before).toBe(1);
    const status = collectStatus(relay.config.dataDir, relay.config.crm.dailyLimit);
    expect(status.crmAccountId).toBe(String(own.accountId));
    expect(formatStatus(status)).toContain(`CRM account     ${own.accountId}`);
  });

  it('a change in the other account reaches the webhook and is ignored: no listing change, no CRM request', async () => {
    rig.sim.state.webhooks.configure({ url: `${relay.url}/hooks/crm` });
    const theirs = other.listings.find((listing) => listing.propertyClass === 'residential' && listing.publishedToWeb !== null)!;
    const sentBefore = rig.sim.key.webhooks.countsOf(other.accountId).sent;
    const listingsBefore = (await rig.get('/api/v1/listings?pageSize=100')).text;
    const requestsBefore = rig.crmRequests();
    const countedBefore = relay.listings.webhookCounts.otherAccount;

    other.changeListing(theirs.id, { fields: { heading: 'Another agency’s change' } }, theirs.market);
    // Delivered and answered 2xx (the simulator counts a non-2xx answer as failed).
    await until(
      () => rig.sim.key.webhooks.countsOf(other.accountId).sent,
      (sent) => sent > sentBefore,
    );
    expect(rig.sim.key.webhooks.countsOf(other.accountId)).toMatchObject({ sent: sentBefore + 1, failed: 0 });
    expect(relay.listings.webhookCounts.otherAccount).toBe(countedBefore + 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pending()).toBe(0);
    expect(rig.crmRequests()).toBe(requestsBefore);
    expect((await rig.get('/api/v1/listings?pageSize=100')).text).toBe(listingsBefore);
    expect(await metrics()).toContain(`estate_crm_webhooks_total{outcome="other_account"} ${countedBefore + 1}`);

    // The answer the CRM gets for it: acknowledged, nothing stored.
    const answer = await post(event(theirs.id, other.accountId));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: 'ignored', reason: 'other_account' });
    expect(pending()).toBe(0);
  });

  it('a change in its own account still applies', async () => {
    const ours = saleOf(own);
    own.changeListing(ours.id, { fields: { heading: 'Our own change' } }, 'sale');
    const detail = await until(
      () => rig.get(`/api/v1/listings/${publicListingId(ours)}`),
      (answer) => answer.body?.heading === 'Our own change',
    );
    expect(detail.body.heading).toBe('Our own change');
  });

  it("an event naming no account is taken as this agency's, as before", async () => {
    // The simulator always names one; the CRM's docs do not promise it. Sent by hand, so webhooks off.
    const ours = saleOf(own);
    rig.sim.state.webhooks.configure({ url: null });
    own.changeListing(ours.id, { fields: { heading: 'Unnamed account change' } }, 'sale');
    const response = await post(event(ours.id));
    expect(response.status).toBe(202);
    const detail = await until(
      () => rig.get(`/api/v1/listings/${publicListingId(ours)}`),
      (answer) => answer.body?.heading === 'Unnamed account change',
    );
    expect(detail.body.heading).toBe('Unnamed account change');
  });

  it('a failed look-up is tried again later; until then events are taken as ours', async () => {
    const logged: string[] = [];
    const log = {
      ...silentLogger,
      child: () => log,
      info: (_: unknown, message: string) => logged.push(message),
      warn: (_: unknown, message: string) => logged.push(message),
    } as unknown as typeof silentLogger;
    let remembered: string | undefined;
    const account = new AgencyAccount({
      store: { ownAccount: () => remembered, rememberAccount: (id) => (remembered = id), accountChecks: () => undefined },
      source: crmListingSource({ client: relay.crm, config: relay.config }),
      log,
      retryFirstMs: 100,
    });
    // The CRM refuses the first look-up (a status the client does not retry by itself).
    own.faults.add({ match: 'GET /account', errorRate: 1, errorStatus: 403, times: 1 });
    account.start();
    try {
      await until(
        () => logged.length,
        (count) => count > 0,
      );
      expect(logged[0]).toMatch(/could not learn the agency's account id .*every verified webhook is taken as this agency's/);
      expect(account.isOther(String(other.accountId))).toBe(false);
      const learned = await until(
        () => account.id,
        (id) => id !== undefined,
        3_000,
      );
      expect(learned).toBe(String(own.accountId));
      expect(remembered).toBe(String(own.accountId));
      expect(account.isOther(String(other.accountId))).toBe(true);
    } finally {
      await account.stop();
      own.faults.clear();
    }
  });

  it('the account id survives a restart with the CRM unreachable', async () => {
    const dataDir = relay.config.dataDir;
    await relay.close();
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      // Nothing listens on the discard port: the CRM is down.
      CRM_BASE_URL: 'http://127.0.0.1:9/api/v1.3',
      CRM_API_KEY: rig.sim.apiKey,
      CRM_ACCESS_TOKEN: rig.sim.accessToken,
      LOG_LEVEL: 'silent',
      PUBLIC_URL: rig.publicUrl,
    });
    const restarted = await startRelay(config, { log: silentLogger, workers: false, app: { demoDir: null } });
    try {
      expect(restarted.listings.account.id).toBe(String(own.accountId));
      restarted.listings.account.start(); // the look-up fails (CRM gone) and is retried later; the remembered id holds
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(restarted.listings.account.id).toBe(String(own.accountId));
      const answer = await post(event(own.listings[0]!.id, other.accountId), restarted.url);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ status: 'ignored', reason: 'other_account' });
    } finally {
      await restarted.close();
    }
  });
});
