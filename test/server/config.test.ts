import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../server/config.ts';

const root = join(import.meta.dirname, '..', '..');

describe('config', () => {
  it('defaults to demo mode on port 8787 with ./data', () => {
    const config = loadConfig({});
    expect(config.demoMode).toBe(true);
    expect(config.PORT).toBe(8787);
    expect(config.DATA_DIR).toBe('./data');
    expect(config.ALLOWED_ORIGINS).toEqual([]);
  });

  it('leaves demo mode when all three CRM settings are given', () => {
    const config = loadConfig({
      CRM_BASE_URL: 'https://crm.example/api/v1.3',
      CRM_API_KEY: 'key',
      CRM_ACCESS_TOKEN: 'token',
      ALLOWED_ORIGINS: 'https://agency.example, https://www.agency.example',
    });
    expect(config.demoMode).toBe(false);
    expect(config.ALLOWED_ORIGINS).toEqual(['https://agency.example', 'https://www.agency.example']);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', CRM_BASE_URL: 'https://crm.example/api/v2', ALLOWED_ORIGINS: 'not a url' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = (error as ConfigError).problems.map((problem) => problem.split(':')[0]);
    expect(names).toEqual(expect.arrayContaining(['PORT', 'CRM_BASE_URL', 'ALLOWED_ORIGINS', 'CRM_API_KEY', 'CRM_ACCESS_TOKEN']));
    expect((error as ConfigError).message).toContain('must end in /api/v1.3');
  });

  it('never echoes a secret in its error', () => {
    let error: unknown;
    try {
      loadConfig({ CRM_API_KEY: 'super-secret-key-value' });
    } catch (caught) {
      error = caught;
    }
    expect(String((error as Error).message)).not.toContain('super-secret-key-value');
  });

  it('makes the relay exit non-zero with the bad variables named', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'server', 'main.ts')], {
      cwd: root,
      env: { ...process.env, PORT: '-1', LOG_LEVEL: 'loud', CRM_API_KEY: '', CRM_ACCESS_TOKEN: '', CRM_BASE_URL: '' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT');
    expect(result.stderr).toContain('LOG_LEVEL');
  });
});
