import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/app.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { BudgetRefusedError, planBudget } from '../../server/listings/index.ts';
import { silentLogger } from '../../server/log.ts';
import { startRelay } from '../../server/relay.ts';

const CRM = { CRM_BASE_URL: 'http://127.0.0.1:9/api/v1.3', CRM_API_KEY: 'key', CRM_ACCESS_TOKEN: 'token', PUBLIC_URL: 'https://relay.agency.test' };
const noSizes = { listingsBySource: new Map<string, number>(), agents: 0, openHomes: 0 };

describe('CRM budget planner', () => {
  it('counts incremental syncs, full sweeps and webhook refreshes per day', () => {
    const plan = planBudget(loadConfig({ ...CRM }), noSizes);
    // Defaults: residential (sale, lease, sold, leased lists), every 10 minutes, a sweep every 6 hours.
    // 144 runs a day, 4 of them sweeps: 140 × 4 lists + 4 × (4 lists + staff) + open homes (hourly + sweeps) × 1 page.
    // …plus the key's usage, read hourly.
    expect(plan.perDay).toBe(140 * 4 + 4 * 5 + 28 + 24);
    expect(plan.allowed).toBe(5_000);
    expect(plan.fits).toBe(true);
  });

  it('counts every page of a full sweep from the cached listing counts', () => {
    const sizes = { listingsBySource: new Map([['residential/sale/available', 1_250]]), agents: 30, openHomes: 250 };
    const plan = planBudget(loadConfig({ ...CRM }), sizes);
    expect(plan.lines[1].perDay).toBe(4 * (13 + 1 + 1 + 1 + 1));
    expect(plan.lines[2].perDay).toBe(28 * 3);
  });

  it('counts webhook refreshes only when the webhook is on', () => {
    const on = planBudget(loadConfig({ ...CRM, WEBHOOK_SECRET: 'x'.repeat(32), WEBHOOK_DAILY_REFRESHES: '300' }), noSizes);
    const off = planBudget(loadConfig({ ...CRM, WEBHOOK_DAILY_REFRESHES: '300' }), noSizes);
    // Each refresh reads the record and its photo list.
    expect(on.perDay - off.perDay).toBe(600);
  });

  it('refuses settings over CRM_BUDGET_SHARE of the daily limit, naming the setting and a value that fits', () => {
    const config = loadConfig({ ...CRM, SYNC_INTERVAL_MINUTES: '1', LISTING_CLASSES: 'residential,commercial,land,rural' });
    const plan = planBudget(config, noSizes);
    expect(plan.fits).toBe(false);
    expect(plan.setting).toBe('SYNC_INTERVAL_MINUTES');
    const suggested = Number(/SYNC_INTERVAL_MINUTES to at least (\d+)/.exec(plan.advice!)![1]);
    expect(planBudget({ ...config, SYNC_INTERVAL_MINUTES: suggested }, noSizes).fits).toBe(true);
    expect(planBudget({ ...config, SYNC_INTERVAL_MINUTES: suggested - 1 }, noSizes).fits).toBe(false);

    const webhooks = planBudget(loadConfig({ ...CRM, WEBHOOK_SECRET: 'x'.repeat(32), WEBHOOK_DAILY_REFRESHES: '3000' }), noSizes);
    expect(webhooks.setting).toBe('WEBHOOK_DAILY_REFRESHES');
    const share = planBudget(loadConfig({ ...CRM, CRM_BUDGET_SHARE: '0.05' }), noSizes);
    expect(share.fits).toBe(false);
    expect(share.advice).toContain('CRM_BUDGET_SHARE');
  });

  it('startRelay refuses to start on such settings (a ConfigError)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'estate-budget-'));
    try {
      const config = loadConfig({ ...CRM, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SYNC_INTERVAL_MINUTES: '1', CRM_BUDGET_SHARE: '0.1' });
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
        env: { ...process.env, ...CRM, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SYNC_INTERVAL_MINUTES: '1', LOG_LEVEL: 'info' },
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
