import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agencyConfig, readAgenciesFile } from '../../server/compose/agencies-file.ts';
import { ConfigError, loadConfig } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { startRelay } from '../../server/compose/relay.ts';
import { startSimulator } from '../../crm-sim/simulator.ts';
import { configProblems } from '../support/config-problems.ts';

const dir = mkdtempSync(join(tmpdir(), 'estate-agencies-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'tok-very-secret-0123456789';
const good = (overrides: Record<string, unknown> = {}) => ({
  slug: 'harbour',
  name: 'Harbour & Yarra',
  accessToken: SECRET,
  allowedOrigins: ['https://harbour.example'],
  siteUrl: 'https://harbour.example/',
  ...overrides,
});

let files = 0;
function write(content: unknown, mode = 0o600): string {
  const file = join(dir, `agencies-${files++}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode });
  chmodSync(file, mode);
  return file;
}

function problemsOf(file: string): string[] {
  try {
    readAgenciesFile(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('the file was accepted');
}

describe('AGENCIES_FILE', () => {
  it('reads a valid file: origins normalised, the site URL without its trailing slash', () => {
    const [agency] = readAgenciesFile(write({ agencies: [good({ allowedOrigins: ['https://Harbour.example'] })] }));
    expect(agency).toEqual({
      slug: 'harbour',
      name: 'Harbour & Yarra',
      accessToken: SECRET,
      allowedOrigins: ['https://harbour.example'],
      siteUrl: 'https://harbour.example',
      hosts: [],
    });
  });

  it('is refused when group or others may read it (it holds the tokens), naming chmod 600', () => {
    const problems = problemsOf(write({ agencies: [good()] }, 0o644));
    expect(problems.join('\n')).toMatch(/AGENCIES_FILE: .* may be read or written by others \(mode 644\).*chmod 600/);
  });

  it('names the agency and the field of every problem, and never a token', () => {
    const problems = problemsOf(
      write({
        agencies: [
          good({ slug: 'Bad Slug!' }),
          good({ slug: 'two', accessToken: '' }),
          good({ slug: 'three', accessToken: `${SECRET}-3`, allowedOrigins: ['not an origin'] }),
          good({ slug: 'four', accessToken: `${SECRET}-4`, colour: 'blue' }),
          good({ slug: 'five', accessToken: `${SECRET}-5`, siteUrl: 'ftp://x.example' }),
          good({ slug: 'six', accessToken: 42 }),
        ],
      }),
    );
    const text = problems.join('\n');
    expect(text).toContain('agencies[0]: slug: must be 1 to 40 characters of a-z, 0-9 and -');
    expect(text).toContain('agencies[1] ("two"): accessToken: must not be empty');
    expect(text).toMatch(/agencies\[2\] \("three"\): allowedOrigins\.0: each entry must be an origin/);
    expect(text).toContain('agencies[3] ("four"): (agency): unknown field "colour"');
    expect(text).toMatch(/agencies\[4\] \("five"\): siteUrl: must be an http\(s\) URL/);
    expect(text).toMatch(/agencies\[5\] \("six"\): accessToken: /);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('42');
  });

  it('refuses a slug or a token used twice, naming the agencies but not the token', () => {
    const problems = problemsOf(write({ agencies: [good(), good({ slug: 'other' }), good({ accessToken: `${SECRET}-b` })] }));
    expect(problems).toContain('AGENCIES_FILE: "other": accessToken: is the same as agency "harbour"\'s (one token is one agency\'s account)');
    expect(problems).toContain('AGENCIES_FILE: "harbour": slug: is used by more than one agency');
    expect(problems.join('\n')).not.toContain(SECRET);
  });

  it("reads an agency's page settings: hosts as browsers send them (lower case, punycode, no trailing dot), its wrapper, time zone and listing path", () => {
    const [agency] = readAgenciesFile(
      write({
        agencies: [
          good({
            hosts: ['Listings.Harbour.example.', 'bücher.example'],
            wrapperUrl: 'https://harbour.example/listing-shell',
            timeZone: 'Australia/Perth',
            listingPath: '/property',
          }),
        ],
      }),
    );
    expect(agency).toMatchObject({
      hosts: ['listings.harbour.example', 'xn--bcher-kva.example'],
      wrapperUrl: 'https://harbour.example/listing-shell',
      timeZone: 'Australia/Perth',
      listingPath: '/property',
    });
    expect(readAgenciesFile(write({ agencies: [good()] }))[0]!.hosts).toEqual([]);
  });

  it('refuses bad hosts, wrapperUrl, timeZone and listingPath, naming the agency and the field', () => {
    const problems = problemsOf(
      write({
        agencies: [
          good({
            hosts: [
              'https://listings.harbour.example',
              'listings.harbour.example:8443',
              'harbour.example/listings',
              '203.0.113.7',
              '*.harbour.example',
              'localhost',
              'a_b.example',
              42,
            ],
            wrapperUrl: 'ftp://harbour.example/shell',
            timeZone: 'Mars/Olympus',
            listingPath: 'property/',
          }),
        ],
      }),
    );
    const text = problems.join('\n');
    expect(text).toContain(
      'AGENCIES_FILE: agencies[0] ("harbour"): hosts.0: must be a host name only, such as listings.agency.example (no scheme, port or path)',
    );
    expect(text).toMatch(/agencies\[0\] \("harbour"\): hosts\.1: must be a host name only/);
    expect(text).toMatch(/agencies\[0\] \("harbour"\): hosts\.2: must be a host name only/);
    expect(text).toMatch(/agencies\[0\] \("harbour"\): hosts\.3: must be a host name, not an IP address/);
    for (const index of [4, 5, 6]) expect(text).toContain(`agencies[0] ("harbour"): hosts.${index}: must be a host name such as`);
    expect(text).toMatch(/agencies\[0\] \("harbour"\): hosts\.7: /);
    expect(text).toMatch(/agencies\[0\] \("harbour"\): wrapperUrl: must be an http\(s\) URL/);
    expect(text).toContain('agencies[0] ("harbour"): timeZone: must be an IANA time zone such as Australia/Perth');
    expect(text).toMatch(/agencies\[0\] \("harbour"\): listingPath: must be a path such as \/listings/);
  });

  it("takes an agency's country (where the geocoder looks for its listings), upper case; SITE_COUNTRY for one that names none; a bad one refused, named", () => {
    const base = loadConfig({
      CRM_BASE_URL: 'https://crm.example/api/v1.3',
      CRM_API_KEY: 'key',
      CRM_ACCESS_TOKEN: 'token',
      PUBLIC_URL: 'https://relay.example',
      SITE_COUNTRY: 'nz',
    });
    expect(base.site.country).toBe('NZ');
    const [harbour, other] = readAgenciesFile(write({ agencies: [good({ country: 'au' }), good({ slug: 'other', accessToken: 'tok-other-0123456789' })] }));
    expect(harbour!.country).toBe('AU');
    expect(agencyConfig(base, harbour!, null).site.country).toBe('AU');
    expect(agencyConfig(base, other!, null).site.country).toBe('NZ');
    const text = problemsOf(write({ agencies: [good({ country: 'Australia' })] })).join('\n');
    expect(text).toContain('agencies[0] ("harbour"): country: must be a two-letter ISO 3166-1 country code such as AU or NZ');
  });

  it("takes an agency's language (its pages'), SITE_LANGUAGE for one that names none; one the widget does not speak refused, named", () => {
    const base = loadConfig({
      CRM_BASE_URL: 'https://crm.example/api/v1.3',
      CRM_API_KEY: 'key',
      CRM_ACCESS_TOKEN: 'token',
      PUBLIC_URL: 'https://relay.example',
      SITE_LANGUAGE: 'en-NZ',
    });
    const [harbour, other] = readAgenciesFile(
      write({ agencies: [good({ language: 'VI', languages: ['en-AU', 'vi', 'zh-hans'] }), good({ slug: 'other', accessToken: 'tok-other-0123456789' })] }),
    );
    expect(agencyConfig(base, harbour!, null).site.language).toBe('vi');
    // Its other languages, without its own.
    expect(agencyConfig(base, harbour!, null).site.otherLanguages).toEqual(['en-AU', 'zh-Hans']);
    expect(agencyConfig(base, other!, null).site.language).toBe('en-NZ');
    expect(agencyConfig(base, other!, null).site.otherLanguages).toEqual([]);
    const text = problemsOf(write({ agencies: [good({ language: 'fr' })] })).join('\n');
    expect(text).toMatch(/agencies\[0\] \("harbour"\): language: must be one of en-AU, .* \(got "fr"\)/);
  });

  it("takes an agency's people settings (phone, teamOrder, teamHidden, agentDirectContact), the relay's for one that names none; bad ones refused, named", () => {
    const base = loadConfig({
      CRM_BASE_URL: 'https://crm.example/api/v1.3',
      CRM_API_KEY: 'key',
      CRM_ACCESS_TOKEN: 'token',
      PUBLIC_URL: 'https://relay.example',
      TEAM_HIDDEN: '5',
      AGENT_DIRECT_CONTACT: '1',
    });
    const [harbour, other] = readAgenciesFile(
      write({
        agencies: [
          good({ phone: '(03) 5550 0100', teamOrder: [12, '7', 12], teamHidden: [3], agentDirectContact: false }),
          good({ slug: 'other', accessToken: 'tok-other-0123456789' }),
        ],
      }),
    );
    expect(agencyConfig(base, harbour!, null)).toMatchObject({
      site: { phone: '(03) 5550 0100' },
      team: { order: [12, 7], hidden: [3], directContact: false },
    });
    expect(agencyConfig(base, other!, null)).toMatchObject({ site: { phone: undefined }, team: { order: [], hidden: [5], directContact: true } });
    const text = problemsOf(write({ agencies: [good({ teamHidden: [1, 'x'], teamOrder: '1,2', agentDirectContact: 'maybe', phone: 'ask' })] })).join('\n');
    expect(text).toContain('agencies[0] ("harbour"): teamHidden.1: each entry must be a CRM user id (a whole number from 1)');
    expect(text).toMatch(/agencies\[0\] \("harbour"\): teamOrder: /);
    expect(text).toContain('agencies[0] ("harbour"): agentDirectContact: must be true (agents\' own e-mail and mobile shown) or false');
    expect(text).toContain('agencies[0] ("harbour"): phone: must be a phone number');
  });

  it("refuses a host name two agencies list (or one lists twice), and the relay's own (PUBLIC_URL)", () => {
    const file = write({
      agencies: [
        good({ hosts: ['listings.harbour.example', 'shared.example', 'listings.harbour.example'] }),
        good({ slug: 'kew', accessToken: `${SECRET}-kew`, hosts: ['Shared.example', 'relay.studio.example'] }),
      ],
    });
    const problems = (() => {
      try {
        readAgenciesFile(file, { publicUrl: 'https://relay.studio.example:8443' });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      throw new Error('the file was accepted');
    })();
    expect(problems).toEqual([
      'AGENCIES_FILE: "harbour": hosts.2: "listings.harbour.example" is listed twice',
      `AGENCIES_FILE: "kew": hosts.0: "shared.example" is also agency "harbour"'s (a host name serves one agency's pages)`,
      `AGENCIES_FILE: "kew": hosts.1: "relay.studio.example" is the relay's own host (PUBLIC_URL), which serves every agency under /a/<slug>/: list the agency's own names only`,
    ]);
  });

  it('refuses a file that is not the agencies object, or not JSON, without quoting it', () => {
    expect(problemsOf(write({ agency: [] })).join()).toMatch(/must be a JSON object \{ "agencies": \[/);
    expect(problemsOf(write({ agencies: [] })).join()).toContain('agencies: lists no agency');
    const broken = problemsOf(write(`{ "agencies": [ { "accessToken": "${SECRET}" `)).join();
    expect(broken).toMatch(/: line 1, column \d+: Unexpected end of the file: expected ',' or '}' after the property value$/);
    expect(broken).not.toContain(SECRET);
    expect(problemsOf(join(dir, 'missing.json')).join()).toMatch(/cannot read .*missing\.json \(ENOENT\)/);
  });

  it('names the line and column of a syntax error and what was expected there, on every Node version, never quoting the file', () => {
    const lines = (...text: string[]) => text.join('\n');
    const cases: Array<[string, string]> = [
      // A missing comma after the token (V8 on Node 20 says only "at position 93").
      [
        lines(
          '{',
          '  "agencies": [',
          '    { "slug": "harbour", "name": "Harbour",',
          `      "accessToken": "${SECRET}"`,
          '      "allowedOrigins": [] }',
          '  ]',
          '}',
        ),
        "line 5, column 7: Expected ',' or '}' after the property value",
      ],
      // An unquoted value (Node 20 quotes the text around it and gives no position at all).
      [lines('{ "agencies": [', `  { "slug": "harbour", "accessToken": ${SECRET} }`, '] }'), 'line 2, column 39: Expected a value'],
      [lines('{ "agencies": [', '  { "slug": "harbour", },', '] }'), 'line 2, column 24: Expected a property name after "," (a trailing comma is not JSON)'],
      [lines('{ "agencies": [ {} ], }'), 'line 1, column 23: Expected a property name after'],
      [lines('{ "agencies": [', `  { "accessToken": "${SECRET}`, '] }'), 'line 2, column 47: Control character'],
      [lines('{ "agencies": [] }', 'x'), 'line 2, column 1: Unexpected text after the JSON value'],
    ];
    for (const [text, expected] of cases) {
      const [problem] = problemsOf(write(text));
      expect(problem).toContain(expected);
      expect(problem).toMatch(/^AGENCIES_FILE: .*agencies-\d+\.json: line \d+, column \d+: /);
      expect(problem).not.toContain(SECRET);
    }
    // A byte-order mark, as some editors save one, is no error.
    expect(readAgenciesFile(write(`\uFEFF${JSON.stringify({ agencies: [good()] })}`))).toHaveLength(1);
  });

  it('goes with the key and base URL only: CRM_ACCESS_TOKEN and the per-agency settings beside it are refused, and so is the demo', () => {
    const base = { CRM_BASE_URL: 'https://crm.example/api/v1.3', CRM_API_KEY: 'key', PUBLIC_URL: 'https://relay.example', AGENCIES_FILE: '/srv/agencies.json' };
    expect(loadConfig(base).agenciesFile).toBe('/srv/agencies.json');
    expect(loadConfig(base).demoMode).toBe(false);
    expect(
      configProblems({
        ...base,
        CRM_ACCESS_TOKEN: 't',
        ALLOWED_ORIGINS: 'https://a.example',
        SITE_URL: 'https://a.example',
        SITE_WRAPPER_URL: 'https://a.example/shell',
      }),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^CRM_ACCESS_TOKEN: is set per agency with AGENCIES_FILE \(its "accessToken"/),
        expect.stringMatching(/^ALLOWED_ORIGINS: is set per agency with AGENCIES_FILE/),
        expect.stringMatching(/^SITE_URL: is set per agency with AGENCIES_FILE/),
        // One shell for every agency would put one agency's header and footer on the others' pages.
        expect.stringMatching(/^SITE_WRAPPER_URL: is set per agency with AGENCIES_FILE \(its "wrapperUrl"/),
      ]),
    );
    const { CRM_API_KEY: _key, ...noKey } = base;
    expect(configProblems(noKey)).toEqual([expect.stringMatching(/^CRM_API_KEY: is required with AGENCIES_FILE/)]);
    expect(configProblems({ AGENCIES_FILE: '/srv/agencies.json', DEMO_MODE: '1' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^DEMO_MODE: is 1 .* AGENCIES_FILE is set/)]),
    );
  });
});

describe('the plan of all agencies at start', () => {
  it("refuses agencies whose floor (a daily sweep and access check each) does not fit the key's budget, saying how many would, and leaves nothing running", async () => {
    const sim = await startSimulator({ listings: 4, agencies: 3 });
    const dataDir = mkdtempSync(join(dir, 'data-'));
    const file = write({ agencies: sim.key.accounts.map((account, index) => good({ slug: `agency-${index}`, accessToken: account.options.accessToken })) });
    try {
      const config = loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        CRM_BASE_URL: sim.baseUrl,
        CRM_API_KEY: sim.apiKey,
        PUBLIC_URL: 'https://relay.example',
        AGENCIES_FILE: file,
        CRM_DAILY_LIMIT: '40',
        CRM_USAGE_CHECK_MINUTES: '1440',
      });
      const refused = await startRelay(config, { log: silentLogger }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ConfigError);
      const message = (refused as ConfigError).message;
      expect(message).toMatch(
        /AGENCIES_FILE: 3 agencies need at least \d+ CRM requests a day \(one full sweep and access check each\), more than the 20 allowed .*; [12] of them would fit/,
      );
      expect(message).not.toContain(sim.accessToken);
      // Enough budget: the same file starts.
      const relay = await startRelay({ ...config, crm: { ...config.crm, dailyLimit: 10_000 } }, { log: silentLogger, workers: false, app: { demoDir: null } });
      expect(relay.agencies!.plan).toMatchObject({ fits: true, agencies: [{ slug: 'agency-0' }, { slug: 'agency-1' }, { slug: 'agency-2' }] });
      await relay.close();
    } finally {
      await sim.close();
    }
  });
});
