import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/runtime/config.ts';
import { crmListShape } from '../../server/crm/listing-source.ts';
import { planBudget } from '../../server/listings/budget.ts';
import { createLogger } from '../../server/runtime/log.ts';
import { collectStatus, formatStatus } from '../../server/ops/status.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import { ALL_SCOPES, SCOPES } from '../../crm-sim/state.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { ACCESS_STATES, accessStateOf } from '../../server/crm/access.ts';

/*
 * What the key allows, found out rather than guessed: GET /scopes is logged as given, each
 * capability is proven with its cheapest call, a refusal is named in the log, /readyz and the status
 * report; GET /integrator/usage makes the day's budget count what other tools spent on the key.
 */
describe('what the CRM key allows', () => {
  let sim: RunningSimulator;
  let relay: RunningRelay;
  let dataDir: string;
  const logLines: Array<{ level: number; msg: string; [key: string]: unknown }> = [];

  beforeAll(async () => {
    sim = await startSimulator({ listings: 12, seed: 3, requestsPerSecond: 200 });
    dataDir = mkdtempSync(join(tmpdir(), 'estate-access-'));
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'https://relay.agency.test',
      DATA_DIR: dataDir,
      CRM_BASE_URL: sim.baseUrl,
      CRM_API_KEY: sim.apiKey,
      CRM_ACCESS_TOKEN: sim.accessToken,
      CRM_REQUESTS_PER_SECOND: '200',
      LOG_LEVEL: 'info',
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    relay = await startRelay(config, { log: createLogger({ level: 'info' }, sink), workers: false, app: { demoDir: null } });
    await relay.listings.sync.run('full');
  });
  afterEach(() => {
    sim.state.setScopes(ALL_SCOPES);
    logLines.length = 0;
  });
  afterAll(async () => {
    await relay?.close();
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const readyz = async () => {
    const response = await fetch(`${relay.url}/readyz`);
    return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, boolean>; missing?: string[] } };
  };
  const endpointCalls = (label: string) => sim.state.getCounters().requestsByEndpoint[label] ?? 0;

  it('logs the scopes as the CRM gives them and proves each capability with one cheap call', async () => {
    sim.state.resetCounters();
    const access = await relay.access.checkAccess();
    expect(access.scopes).toEqual(ALL_SCOPES);
    expect(logLines.find((line) => Array.isArray(line.scopes))?.scopes).toEqual(ALL_SCOPES);
    expect(Object.values(access.capabilities).map((state) => state.available)).toEqual([true, true, true]);
    // One request each: /scopes, one listing, one staff page, the enquiry list.
    expect(sim.state.getCounters().totalRequests).toBe(4);
    expect(endpointCalls('GET /properties/residential/sale/available')).toBe(1);
    expect(endpointCalls('GET /account/users')).toBe(1);
    expect(endpointCalls('GET /enquiries')).toBe(1);
    expect((await readyz()).status).toBe(200);
    expect(formatStatus(collectStatus(dataDir, relay.config.crm.dailyLimit))).toMatch(/CRM access\s+listings ok, staff ok, enquiries ok/);
  });

  it('a refused capability is named loudly: log, /readyz and the status report say what the agency must grant', async () => {
    sim.state.setScopes(ALL_SCOPES.filter((scope) => scope !== SCOPES.enquiriesRead && scope !== SCOPES.enquiriesWrite));
    const access = await relay.access.checkAccess();
    expect(access.capabilities.enquiries).toMatchObject({ available: false, status: 403 });
    expect(access.capabilities.listings.available).toBe(true);

    const error = logLines.find((line) => line.level === 50 && line.capability === 'enquiries');
    expect(error?.msg).toMatch(/CRM ACCESS MISSING.*enquir.*Ask the agency to grant this integration access to enquiries/);

    // Enquiries refused: named in /readyz, but the pages still serve, so the relay stays ready.
    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body.checks.crmListings).toBe(true);
    expect(ready.body.missing).toEqual([expect.stringMatching(/^enquiries: ask the agency to grant access to enquiries/)]);

    const report = formatStatus(collectStatus(dataDir, relay.config.crm.dailyLimit));
    expect(report).toMatch(/enquiries REFUSED \(403, not granted\)/);
    expect(report).toMatch(/MISSING enquiries: .*Ask the agency to grant this integration access to enquiries/);

    // Listings refused too: the relay cannot serve its pages, so it is not ready.
    sim.state.setScopes([]);
    await relay.access.checkAccess();
    const unready = await readyz();
    expect(unready.status).toBe(503);
    expect(unready.body.checks.crmListings).toBe(false);
    expect(unready.body.missing).toEqual(expect.arrayContaining([expect.stringMatching(/^listings: ask the agency to grant read access to properties/)]));

    // Granted again: the next check clears it.
    sim.state.setScopes(ALL_SCOPES);
    await relay.access.checkAccess();
    const again = await readyz();
    expect(again.status).toBe(200);
    expect(again.body.missing).toBeUndefined();
  });

  it('an access check whose result cannot be recorded (the store failing) is logged and never throws', async () => {
    // A real SQLite failure on the relay's own connection: every write of the check's result is refused.
    const db = tablesOf(relay.store);
    db.exec("CREATE TEMP TRIGGER refuse_access_write BEFORE INSERT ON crm_access BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END");
    try {
      await expect(relay.access.checkAccess()).resolves.toMatchObject({ capabilities: expect.any(Object) });
      expect(logLines.find((line) => line.level === 50 && /access check could not be completed or recorded/.test(line.msg))?.error).toMatch(/disk I\/O error/);
    } finally {
      db.exec('DROP TRIGGER refuse_access_write');
    }
  });

  it("counts what other tools spent on the same key into the day's budget, and the planner says the key is shared", async () => {
    // Midday UTC of today: the planner reads others' pace from the time of day, and just after
    // midnight 700 requests would make a pace of tens of thousands a day (a plan that cannot fit,
    // logged as such instead of re-planned). The clock still runs; only where it stands is set.
    const today = new Date();
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12) });
    try {
      await sharedKeyUsage();
    } finally {
      vi.useRealTimers();
    }
  });

  async function sharedKeyUsage(): Promise<void> {
    const first = await relay.access.checkUsage();
    expect(first).toMatchObject({ others: 0 });
    sim.state.spendElsewhere(700);
    const before = relay.crm.budget().used;
    const usage = await relay.access.checkUsage();
    expect(usage!.others).toBe(700);
    expect(relay.crm.budget().used).toBeGreaterThanOrEqual(before + 700);
    expect(relay.crm.budget().used).toBe(usage!.used);
    expect(logLines.some((line) => /API key is shared: other tools spent 700/.test(line.msg))).toBe(true);
    expect(logLines.some((line) => /listing sync budget re-planned.*The API key is shared: other tools spent 700 requests so far today/.test(line.msg))).toBe(
      true,
    );

    // Later reads add what others spent since: the day's figure keeps growing, never double-counts.
    sim.state.spendElsewhere(50);
    expect((await relay.access.checkUsage())!.others).toBe(750);
    expect(formatStatus(collectStatus(dataDir, relay.config.crm.dailyLimit))).toMatch(/SHARED: other tools spent 750/);
  }
});

describe('budget planner on a shared key', () => {
  const settings = loadConfig({ DATA_DIR: '/tmp/unused' });
  const sizes = { listingsBySource: new Map<string, number>(), agents: 10, openHomes: 5 };

  it('leaves other tools their pace of spending, and says so', () => {
    const alone = planBudget(settings, crmListShape(settings), sizes);
    expect(alone.sharedKey).toBeUndefined();
    // Half the day gone, 4,000 spent by others: about 8,000 a day, so only 2,000 are left for us.
    const shared = planBudget(settings, crmListShape(settings), sizes, { othersToday: 4000, dayElapsed: 0.5 });
    expect(shared.sharedKey).toEqual({ othersToday: 4000, othersPerDay: 8000 });
    expect(shared.allowed).toBe(2000);
    expect(shared.allowed).toBeLessThan(alone.allowed);
    const crowded = planBudget(settings, crmListShape(settings), sizes, { othersToday: 9800, dayElapsed: 0.9 });
    expect(crowded.fits).toBe(false);
    expect(crowded.advice).toMatch(/other tools on the same API key spend about \d+ a day/);
  });
});

describe('the state of a capability, as the operator signals name it (accessStateOf)', () => {
  it('is whose fault the check recorded, never the status code', () => {
    expect(accessStateOf({ available: true, status: 200, detail: 'ok' })).toBe('allowed');
    expect(accessStateOf({ available: null, status: 503, detail: 'down' })).toBe('unknown');
    // A 403 is the key's or a grant's: the recorded cause tells them apart.
    expect(accessStateOf({ available: false, status: 403, detail: 'refused', refusedBy: 'key' })).toBe('refused_key');
    expect(accessStateOf({ available: false, status: 403, detail: 'refused', refusedBy: 'grant' })).toBe('refused_grant');
    expect(accessStateOf({ available: false, status: 401, detail: 'refused', refusedBy: 'token' })).toBe('refused_token');
    // A check stored before causes were kept: read as the status CLI reads it (401 the token's, 403 a grant).
    expect(accessStateOf({ available: false, status: 401, detail: 'refused' })).toBe('refused_token');
    expect(accessStateOf({ available: false, status: 403, detail: 'refused' })).toBe('refused_grant');
    expect(ACCESS_STATES).toEqual(['allowed', 'refused_key', 'refused_token', 'refused_grant', 'unknown']);
  });
});
