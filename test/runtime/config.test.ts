import { describe, expect, it } from 'vitest';
import { configProblems } from '../support/config-problems.ts';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, configSchema, loadConfig } from '../../server/runtime/config.ts';

const root = join(import.meta.dirname, '..', '..');

const problemsOf = configProblems;

describe('config', () => {
  it('defaults to demo mode on port 8787 with ./data', () => {
    const config = loadConfig({});
    expect(config.demoMode).toBe(true);
    expect(config.http.port).toBe(8787);
    expect(config.dataDir).toBe('./data');
    expect(config.http.allowedOrigins).toEqual([]);
  });

  it('leaves demo mode when all three CRM settings are given', () => {
    const config = loadConfig({
      CRM_BASE_URL: 'https://crm.example/api/v1.3',
      CRM_API_KEY: 'key',
      CRM_ACCESS_TOKEN: 'token',
      ALLOWED_ORIGINS: 'https://agency.example, https://www.agency.example',
      PUBLIC_URL: 'https://relay.agency.example/',
    });
    expect(config.demoMode).toBe(false);
    expect(config.http.publicUrl).toBe('https://relay.agency.example');
    expect(config.http.allowedOrigins).toEqual(['https://agency.example', 'https://www.agency.example']);
  });

  it('never falls into demo mode by accident', () => {
    // An unfilled template: each empty variable is named, and nothing runs.
    expect(problemsOf({ CRM_BASE_URL: '', CRM_API_KEY: '', CRM_ACCESS_TOKEN: '', SIM_LISTINGS: '' })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^CRM_BASE_URL: is set but empty/),
        expect.stringMatching(/^CRM_API_KEY: is set but empty/),
        expect.stringMatching(/^CRM_ACCESS_TOKEN: is set but empty/),
        expect.stringMatching(/^SIM_LISTINGS: is set but empty/),
      ]),
    );
    // Production with nothing set: the CRM settings are required, not the simulator started.
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^CRM_BASE_URL: is required .*NODE_ENV=production/), expect.stringMatching(/^PUBLIC_URL: is required/)]),
    );
    // Any CRM_* variable means a real CRM was meant.
    expect(problemsOf({ CRM_DAILY_LIMIT: '5000' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^CRM_API_KEY: is required .*CRM_DAILY_LIMIT is set/)]),
    );
    expect(problemsOf({ DEMO_MODE: '0' })).toEqual(expect.arrayContaining([expect.stringMatching(/^CRM_ACCESS_TOKEN: is required .*DEMO_MODE=0/)]));
    // Asked for explicitly, the demo runs anywhere; not together with credentials.
    expect(loadConfig({ NODE_ENV: 'production', DEMO_MODE: '1' }).demoMode).toBe(true);
    expect(problemsOf({ DEMO_MODE: '1', CRM_API_KEY: 'key' })).toEqual([expect.stringMatching(/^DEMO_MODE: .*CRM_API_KEY is set/)]);
    expect(problemsOf({ DEMO_MODE: 'yes' })).toEqual([expect.stringMatching(/^DEMO_MODE: /)]);
  });

  it('requires PUBLIC_URL outside demo mode, as an http(s) URL', () => {
    const crm = { CRM_BASE_URL: 'https://crm.example/api/v1.3', CRM_API_KEY: 'key', CRM_ACCESS_TOKEN: 'token' };
    expect(problemsOf(crm)).toEqual([expect.stringMatching(/^PUBLIC_URL: is required outside demo mode/)]);
    expect(problemsOf({ ...crm, PUBLIC_URL: 'ftp://relay.example' })).toEqual([expect.stringMatching(/^PUBLIC_URL: must be an http\(s\) URL/)]);
    expect(problemsOf({ ...crm, PUBLIC_URL: 'https://relay.example/?x=1' })).toEqual([expect.stringMatching(/^PUBLIC_URL: must not have a query/)]);
  });

  it('refuses an ENQUIRY_CLAIM_LEASE_MS that is not a positive whole number, naming it', () => {
    const base = { CRM_BASE_URL: 'https://crm.example/api/v1.3', CRM_API_KEY: 'key', CRM_ACCESS_TOKEN: 'token', PUBLIC_URL: 'https://relay.example' };
    for (const bad of ['0', '-5', '2.5', 'soon'])
      expect(problemsOf({ ...base, ENQUIRY_CLAIM_LEASE_MS: bad })).toEqual([expect.stringMatching(/^ENQUIRY_CLAIM_LEASE_MS: /)]);
    expect(loadConfig({ ...base, ENQUIRY_CLAIM_LEASE_MS: '3000' }).enquiries.claimLeaseMs).toBe(3000);
    expect(loadConfig(base).enquiries.claimLeaseMs).toBe(120_000);
  });

  it('SITE_LANGUAGE: an English or built-in language, written as contract/languages.ts writes it; anything else refused, naming the codes', () => {
    expect(loadConfig({}).site.language).toBe('en-AU');
    expect(loadConfig({ SITE_LANGUAGE: 'zh-hant' }).site.language).toBe('zh-Hant');
    expect(loadConfig({ SITE_LANGUAGE: ' AR ' }).site.language).toBe('ar');
    expect(loadConfig({ SITE_LANGUAGE: 'ar', SITE_LANGUAGES: 'en-au, vi, ar, vi' }).site.otherLanguages).toEqual(['en-AU', 'vi']);
    expect(problemsOf({ SITE_LANGUAGES: 'vi,klingon' })).toEqual([
      expect.stringMatching(/^SITE_LANGUAGES: must be languages from .*\(not understood: "klingon"\)/),
    ]);
    for (const bad of ['fr', 'zh', 'english'])
      expect(problemsOf({ SITE_LANGUAGE: bad })).toEqual([expect.stringMatching(/^SITE_LANGUAGE: must be one of en-AU, en-NZ, en-GB, zh-Hans, .*hi \(got "/)]);
  });

  it('refuses TRUST_PROXY=true, and takes a hop count or subnets', () => {
    expect(problemsOf({ TRUST_PROXY: 'true' })).toEqual([expect.stringMatching(/^TRUST_PROXY: true is refused .*hop count/)]);
    expect(problemsOf({ TRUST_PROXY: 'loopback, example.com, 10.0.0.0/33' })).toEqual([
      expect.stringMatching(/^TRUST_PROXY: must be false, a hop count, or subnets.*"example.com", "10.0.0.0\/33"/),
    ]);
    expect(loadConfig({}).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, ::1' }).http.trustProxy).toEqual(['loopback', '10.0.0.0/8', '::1']);
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

  it('DATABASE_URL: unset keeps SQLite; a postgres URL is taken; anything else is refused by name, never echoing the password', () => {
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: 'postgres://relay:pw@db.internal:5432/estate' }).databaseUrl).toBe('postgres://relay:pw@db.internal:5432/estate');
    expect(loadConfig({ DATABASE_URL: 'postgresql://relay@db/estate?sslmode=require' }).databaseUrl).toBe('postgresql://relay@db/estate?sslmode=require');
    for (const [bad, says] of [
      ['mysql://relay:hunter2secret@db/estate', /must start with postgres:\/\//],
      ['postgres://relay:hunter2secret@db.internal:5432', /must name the database/],
      ['hunter2secret@db/estate', /must be a URL/],
    ] as const) {
      const problems = problemsOf({ DATABASE_URL: bad });
      expect(problems).toEqual([expect.stringMatching(says)]);
      expect(problems[0]).toMatch(/^DATABASE_URL: /);
      expect(problems.join('\n')).not.toContain('hunter2secret');
    }
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

describe('settings grouped by concern', () => {
  const real = { CRM_BASE_URL: 'https://crm.example/api/v1.3', CRM_API_KEY: 'key', CRM_ACCESS_TOKEN: 'token', PUBLIC_URL: 'https://relay.agency.example' };
  /** A valid value, other than the default and the base above, for every variable. */
  const samples: Record<string, string> = {
    DATABASE_URL: 'postgres://relay:pw@db.internal:5432/estate',
    PORT: '9000',
    HOST: '127.0.0.1',
    DATA_DIR: '/srv/estate',
    CRM_BASE_URL: 'https://other.example/api/v1.3',
    CRM_API_KEY: 'other-key',
    CRM_ACCESS_TOKEN: 'other-token',
    AGENCIES_FILE: '/srv/estate/agencies.json',
    CRM_REQUESTS_PER_SECOND: '3',
    CRM_DAILY_LIMIT: '5000',
    CRM_TIMEOUT_MS: '2000',
    CRM_USAGE_CHECK_MINUTES: '30',
    ALLOWED_ORIGINS: 'https://agency.example',
    NODE_ENV: 'production',
    PUBLIC_URL: 'https://relay2.agency.example',
    TRUST_PROXY: '1',
    METRICS_TOKEN: 'x'.repeat(32),
    ANSWER_CACHE_MB: '32',
    UNCACHED_RENDERS_PER_MINUTE: '30',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'pretty',
    SIM_LISTINGS: '8',
    ENQUIRY_RATE_LIMIT_PER_MINUTE: '9',
    ENQUIRY_DAILY_LIMIT_PER_CLIENT: '9',
    ENQUIRY_DAILY_BUDGET: '9',
    ENQUIRY_SOURCE: 'PORTAL',
    ENQUIRY_SELLER_CATEGORIES: '54, 51',
    ENQUIRY_MAX_AGE_HOURS: '2',
    ENQUIRY_ERASE_AFTER_DAYS: '2',
    ENQUIRY_DEAD_ERASE_AFTER_DAYS: '2',
    ENQUIRY_MIN_FILL_MS: '9',
    LEAD_QUARANTINE_DAYS: '2',
    ENQUIRY_RETRY_BASE_MS: '9',
    ENQUIRY_RETRY_MAX_MS: '9',
    ENQUIRY_RECONCILE_DELAY_MS: '9',
    ENQUIRY_EARLY_LOOKUP_MS: '9',
    ENQUIRY_DELIVERY_CONCURRENCY: '9',
    ENQUIRY_POLL_MS: '9',
    ENQUIRY_CLAIM_LEASE_MS: '9',
    SAVED_SEARCH_DAILY_BUDGET: '9',
    SAVED_SEARCH_CATEGORY_IDS: '64,65',
    SAVED_SEARCH_HOLDING_ENQUIRY: '0',
    SAVED_SEARCH_CONFIRMATION: 'agent',
    SAVED_SEARCH_CONFIRM_DAYS: '3',
    SMTP_URL: 'smtps://relay:pw@mail.example:465',
    MAIL_FROM: 'Agency alerts <alerts@agency.example>',
    SYNC_LEASE_MS: '9',
    REPLICA_MAX_LAG_SECONDS: '9',
    SYNC_INTERVAL_MINUTES: '9',
    LIST_POLL_MINUTES: '9',
    FULL_SWEEP_HOURS: '9',
    LISTING_CLASSES: 'residential,land',
    SOLD_DAYS: '9',
    WEBHOOK_TOLERANCE_SECONDS: '9',
    WEBHOOK_DAILY_REFRESHES: '9',
    PHOTO_HOSTS: 'photos.example',
    PHOTO_WIDTHS: '640',
    PHOTO_MAX_BYTES: '9',
    GEOCODER_URL: 'https://geocoder.example',
    GEOCODER_EMAIL: 'maps@agency.example',
    GEOCODER_REQUESTS_PER_SECOND: '0.5',
    GEOCODER_TIMEOUT_MS: '9',
    MAP_TILE_URL: 'https://tiles.example/{z}/{x}/{y}.png',
    MAP_LABEL_TILE_URL: 'https://tiles.example/labels/{z}/{x}/{y}.png',
    MAP_ATTRIBUTION: '© Other Tiles',
    MAP_TILE_CACHE_MB: '9',
    MAP_MAX_ZOOM: '9',
    MAP_TILE_RATE_PER_MINUTE: '9',
    CRM_BUDGET_SHARE: '0.25',
    SITE_URL: 'https://agency.example',
    SITE_LISTING_PATH: '/property',
    SITE_WRAPPER_URL: 'https://agency.example/shell',
    SITE_WRAPPER_MINUTES: '9',
    SITE_TIME_ZONE: 'Pacific/Auckland',
    SITE_COUNTRY: 'NZ',
    SITE_LANGUAGE: 'vi',
    SITE_LANGUAGES: 'en-AU,zh-Hant',
    SITE_NAME: 'Other Agency',
    SITE_PHONE: '(03) 5550 0100',
    SITE_BRAND_COLOUR: '#2b5d34',
    VISIT_BUFFER_EVENTS: '900',
    VISIT_FLUSH_MS: '900',
    VISIT_BEACONS_PER_MINUTE: '45',
    VISIT_RETENTION_DAYS: '9',
    TEAM_ORDER: '1042,1017',
    TEAM_HIDDEN: '1099',
    AGENT_DIRECT_CONTACT: '1',
  };

  it('carries every variable into its group (DEMO_MODE decides demoMode, tested above)', () => {
    const variables = Object.keys(configSchema.shape).filter((name) => name !== 'DEMO_MODE');
    expect(Object.keys(samples).sort()).toEqual(variables.sort());
    const base = JSON.stringify(loadConfig(real));
    // AGENCIES_FILE holds the tokens: it is refused beside CRM_ACCESS_TOKEN, so it is tried on a base without one.
    const { CRM_ACCESS_TOKEN: _token, ...keyOnly } = real;
    // MAP_TILE_URL needs MAP_ATTRIBUTION beside it (and MAP_LABEL_TILE_URL both): tried on a base with one.
    const attributed = { ...real, MAP_ATTRIBUTION: samples.MAP_ATTRIBUTION! };
    const dropped = variables.filter((name) =>
      name === 'AGENCIES_FILE'
        ? loadConfig({ ...keyOnly, AGENCIES_FILE: samples[name]! }).agenciesFile !== samples[name]
        : name === 'MAP_TILE_URL'
          ? JSON.stringify(loadConfig({ ...attributed, MAP_TILE_URL: samples[name]! })) === JSON.stringify(loadConfig(attributed))
          : name === 'MAP_LABEL_TILE_URL'
            ? // It needs MAP_TILE_URL (and so MAP_ATTRIBUTION) beside it.
              JSON.stringify(loadConfig({ ...attributed, MAP_TILE_URL: samples.MAP_TILE_URL!, MAP_LABEL_TILE_URL: samples[name]! })) ===
              JSON.stringify(loadConfig({ ...attributed, MAP_TILE_URL: samples.MAP_TILE_URL! }))
            : JSON.stringify(loadConfig({ ...real, [name]: samples[name]! })) === base,
    );
    expect(dropped).toEqual([]);
  });

  it("the agency's people: TEAM_ORDER and TEAM_HIDDEN as ids, AGENT_DIRECT_CONTACT off by default; a bad id list refused by name", () => {
    expect(loadConfig(real).team).toEqual({ order: [], hidden: [], directContact: false });
    expect(loadConfig({ ...real, TEAM_ORDER: ' 1042, 1017,1042 ', TEAM_HIDDEN: '7', AGENT_DIRECT_CONTACT: '1', SITE_PHONE: '(03) 5550 0100' })).toMatchObject({
      team: { order: [1042, 1017], hidden: [7], directContact: true },
      site: { phone: '(03) 5550 0100' },
    });
    for (const [name, value] of [
      ['TEAM_HIDDEN', '12,abc'],
      ['TEAM_ORDER', '0'],
      ['TEAM_HIDDEN', '-4'],
      ['AGENT_DIRECT_CONTACT', 'yes'],
      ['SITE_PHONE', 'call us'],
      ['SITE_BRAND_COLOUR', 'teal'],
      ['SITE_BRAND_COLOUR', '#0f4c5'],
    ] as const) {
      expect(() => loadConfig({ ...real, [name]: value }), `${name}=${value}`).toThrow(new RegExp(`^[\\s\\S]*- ${name}: `));
    }
    expect(() => loadConfig({ ...real, TEAM_HIDDEN: '12,abc' })).toThrow(/TEAM_HIDDEN: must be CRM user ids .*not understood: "abc"/);
    expect(() => loadConfig({ ...real, SITE_BRAND_COLOUR: 'rgb(0,0,0)' })).toThrow(/SITE_BRAND_COLOUR: must be a colour written #rrggbb/);
    expect(loadConfig({ ...real, SITE_BRAND_COLOUR: ' #0F4C5C ' }).site.brandColour).toBe('#0F4C5C');
  });

  it('converts once: hours and days to ms for the enquiries, lists and numbers parsed', () => {
    const config = loadConfig({
      ...real,
      ENQUIRY_MAX_AGE_HOURS: '2',
      ENQUIRY_ERASE_AFTER_DAYS: '1',
      ENQUIRY_DEAD_ERASE_AFTER_DAYS: '0.5',
      LEAD_QUARANTINE_DAYS: '3',
      LISTING_CLASSES: 'residential, rural',
    });
    expect(config.enquiries).toMatchObject({
      maxAgeMs: 7_200_000,
      eraseAfterMs: 86_400_000,
      deadEraseAfterMs: 43_200_000,
      quarantineMs: 259_200_000,
      source: 'OFFICEWEBSITE',
    });
    expect(config.listings.classes).toEqual(['residential', 'rural']);
    expect(config.crm).toMatchObject({ baseUrl: real.CRM_BASE_URL, apiKey: 'key', accessToken: 'token', dailyLimit: 10_000 });
    expect(config.http).toMatchObject({ port: 8787, publicUrl: real.PUBLIC_URL, trustProxy: false });
  });

  it('mail and confirmation: defaults, values carried, bad values refused by name, the SMTP password never echoed', () => {
    const defaults = loadConfig({});
    expect(defaults.mail).toEqual({});
    expect(defaults.savedSearches).toMatchObject({ confirmation: 'email', confirmDays: 7 });
    const set = loadConfig({
      SMTP_URL: 'smtps://relay:pw@mail.example:465',
      MAIL_FROM: 'alerts@agency.example',
      SAVED_SEARCH_CONFIRMATION: 'agent',
      SAVED_SEARCH_CONFIRM_DAYS: '30',
    });
    expect(set.mail).toEqual({ smtpUrl: 'smtps://relay:pw@mail.example:465', from: 'alerts@agency.example' });
    expect(set.savedSearches).toMatchObject({ confirmation: 'agent', confirmDays: 30 });
    expect(loadConfig({ MAIL_FROM: '"Harbour, Realty" <alerts@harbour.example>' }).mail.from).toBe('"Harbour, Realty" <alerts@harbour.example>');
    for (const [name, value, words] of [
      ['SMTP_URL', 'https://relay:hunter2secret@mail.example', /smtp:\/\/ or smtps:\/\//],
      ['SMTP_URL', 'relay:hunter2secret@mail.example', /must be a URL|smtp:\/\//],
      ['SMTP_URL', 'smtp://relay:hunter2secret@mail.example/inbox', /no path/],
      ['MAIL_FROM', 'not an address', /must be an address/],
      ['MAIL_FROM', 'Alerts <alerts@agency.example> <x@y.example>', /at most one|must be an address/],
      ['MAIL_FROM', 'Alerts <alerts@agency.example>\r\nBcc: x@y.example', /one line/],
      ['SAVED_SEARCH_CONFIRMATION', 'sms', /email|agent/],
      ['SAVED_SEARCH_CONFIRM_DAYS', '0', /1|greater/],
      ['SAVED_SEARCH_CONFIRM_DAYS', '31', /30|less/],
      ['SAVED_SEARCH_CONFIRM_DAYS', '2.5', /int/],
    ] as const) {
      const problems = problemsOf({ [name]: value });
      expect(problems, `${name}=${value}`).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${name}: `));
      expect(problems[0]).toMatch(words);
      expect(problems.join('\n')).not.toContain('hunter2secret');
    }
  });
});

it('refuses an early look-up later than the look-up that is believed, naming both settings', () => {
  expect(problemsOf({ ENQUIRY_EARLY_LOOKUP_MS: '40000' })).toEqual([
    'ENQUIRY_EARLY_LOOKUP_MS: must be at most ENQUIRY_RECONCILE_DELAY_MS (30000): the early look-up comes before the one that is believed (got "40000")',
  ]);
  expect(problemsOf({ ENQUIRY_EARLY_LOOKUP_MS: '-1' })).toEqual([expect.stringMatching(/^ENQUIRY_EARLY_LOOKUP_MS: /)]);
  // Unset, it follows a short reconcile delay down.
  expect(problemsOf({ ENQUIRY_RECONCILE_DELAY_MS: '500' })).toEqual([]);
});
