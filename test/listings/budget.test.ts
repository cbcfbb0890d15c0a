import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { ConfigError, loadConfig } from '../../server/runtime/config.ts';
import { crmListShape } from '../../server/crm/listing-source.ts';
import { BudgetRefusedError, planBudget } from '../../server/listings/index.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { startRelay } from '../../server/compose/relay.ts';

const CRM = { CRM_BASE_URL: 'http://127.0.0.1:9/api/v1.3', CRM_API_KEY: 'key', CRM_ACCESS_TOKEN: 'token', PUBLIC_URL: 'https://relay.agency.test' };
const noSizes = { listingsBySource: new Map<string, number>(), agents: 0, openHomes: 0 };

describe('CRM budget planner', () => {
  it('counts event-stream reads, list polls, full sweeps and webhook-triggered requests per day', () => {
    const plan = planBudget(loadConfig({ ...CRM }), crmListShape(loadConfig({ ...CRM })), noSizes);
    // Defaults: residential (sale, lease, sold, leased lists); the stream every 5 minutes, lists hourly, a sweep every 6 hours.
    // 288 stream reads + 4 × (4 lists + staff) + open homes (hourly: 24) + up to 200 webhook requests
    // + 20 list polls × 4 lists + 10 stream-only changes × 4 lists + the key's usage, read hourly (24).
    expect(plan.perDay).toBe(288 + 4 * 5 + 24 + 200 + 20 * 4 + 40 + 24);
    expect(plan.lines.at(-1)).toMatchObject({ perDay: 24, setting: 'CRM_USAGE_CHECK_MINUTES' });
    expect(plan.eventStreamReads).toBe(288);
    expect(plan.eventStreamIntervalMinutes).toBe(5);
    expect(plan.freshness).toEqual({ withWebhooksSeconds: 5, withoutWebhooksSeconds: 360 });
    expect(plan.allowed).toBe(5_000);
    expect(plan.fits).toBe(true);
  });

  it('counts every page of a full sweep from the cached listing counts', () => {
    const sizes = { listingsBySource: new Map([['residential/sale/available', 1_250]]), agents: 30, openHomes: 250 };
    const plan = planBudget(loadConfig({ ...CRM }), crmListShape(loadConfig({ ...CRM })), sizes);
    expect(plan.lines[1].perDay).toBe(4 * (13 + 1 + 1 + 1 + 1));
    expect(plan.lines[2].perDay).toBe(24 * 3);
    // 10% of 1,250 listings changing a day, read from the lists when no webhook carried them.
    expect(plan.lines[5].perDay).toBe(125 * 4);
  });

  it('the event stream replaces most list polling: one request per read instead of one per list', () => {
    const fourClasses = loadConfig({ ...CRM, LISTING_CLASSES: 'residential,commercial,land,rural' });
    const plan = planBudget(fourClasses, crmListShape(fourClasses), noSizes);
    expect(plan.lines[0].perDay).toBe(288);
    // Polling every list at the stream's interval would cost 7 lists × 288 reads.
    expect(plan.perDay).toBeLessThan(7 * 288);
  });

  it('refuses settings over CRM_BUDGET_SHARE of the daily limit, naming the setting and a value that fits', () => {
    const config = loadConfig({ ...CRM, SYNC_INTERVAL_MINUTES: '0.2' });
    const plan = planBudget(config, crmListShape(config), noSizes);
    expect(plan.fits).toBe(false);
    expect(plan.setting).toBe('SYNC_INTERVAL_MINUTES');
    const suggested = Number(/SYNC_INTERVAL_MINUTES to at least ([\d.]+)/.exec(plan.advice!)![1]);
    expect(planBudget({ ...config, listings: { ...config.listings, syncIntervalMinutes: suggested } }, crmListShape(config), noSizes).fits).toBe(true);
    expect(planBudget({ ...config, listings: { ...config.listings, syncIntervalMinutes: suggested - 0.02 } }, crmListShape(config), noSizes).fits).toBe(false);

    const polls = planBudget(
      loadConfig({ ...CRM, LIST_POLL_MINUTES: '1', LISTING_CLASSES: 'residential,commercial,land,rural' }),
      crmListShape(loadConfig({ ...CRM, LIST_POLL_MINUTES: '1', LISTING_CLASSES: 'residential,commercial,land,rural' })),
      noSizes,
    );
    expect(polls.setting).toBe('LIST_POLL_MINUTES');
    const webhooks = planBudget(
      loadConfig({ ...CRM, WEBHOOK_DAILY_REFRESHES: '6000' }),
      crmListShape(loadConfig({ ...CRM, WEBHOOK_DAILY_REFRESHES: '6000' })),
      noSizes,
    );
    expect(webhooks.setting).toBe('WEBHOOK_DAILY_REFRESHES');
    const share = planBudget(loadConfig({ ...CRM, CRM_BUDGET_SHARE: '0.05' }), crmListShape(loadConfig({ ...CRM, CRM_BUDGET_SHARE: '0.05' })), noSizes);
    expect(share.fits).toBe(false);
    expect(share.advice).toContain('CRM_BUDGET_SHARE');
  });

  it('startRelay refuses to start on such settings (a ConfigError)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'estate-budget-'));
    try {
      const config = loadConfig({ ...CRM, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SYNC_INTERVAL_MINUTES: '0.5', CRM_BUDGET_SHARE: '0.1' });
      const started = startRelay(config, { log: silentLogger, workers: false });
      await expect(started).rejects.toBeInstanceOf(BudgetRefusedError);
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toThrow(/SYNC_INTERVAL_MINUTES/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('npm start exits non-zero and says which setting to change', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'estate-budget-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'server/main.ts')], {
        cwd: projectRoot,
        env: { ...process.env, ...CRM, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SYNC_INTERVAL_MINUTES: '0.2', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/SYNC_INTERVAL_MINUTES: the listing sync would use about \d+ CRM requests a day/);
      expect(stderr).toMatch(/raise SYNC_INTERVAL_MINUTES to at least \d+/);
      // The plan is printed at start whether or not it fits.
      expect(stdout).toMatch(/listing sync budget: about \d+ CRM requests a day/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
