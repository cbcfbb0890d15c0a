// main.ts with AGENCIES_FILE on a terminal (a pseudo-terminal from `script`, as an operator's
// shell gives it), against the simulator over HTTP: the start-up table of agencies, then agencies
// added with `npm run relay -- agencies add` while it runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { runCli } from '../../server/cli.ts';
import { runningRelay } from '../../server/ops/instance.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'estate-onboarding-'));
const file = join(dataDir, 'agencies.json');
let sim: RunningSimulator;
let child: ChildProcess;
let output = '';
let relayUrl = '';
let env: Record<string, string>;

async function until<T>(probe: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. Output so far:\n${output.slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function cli(args: string[], stdin = ''): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await runCli(args, { env, out: (text) => lines.push(text), err: (text) => lines.push(text), stdin: Readable.from([stdin]) });
  return { code, text: lines.join('\n') };
}

const mode = (path: string) => statSync(path).mode & 0o777;
const tokenOf = (index: number) => sim.key.accounts[index]!.options.accessToken;

beforeAll(async () => {
  sim = await startSimulator({ listings: 6, agencies: 3, requestsPerSecond: 200 });
  // agency-a is served; agency-b's agency withdrew the integration's access (its token answers 401).
  const revoked = sim.key.accounts[1]!;
  writeFileSync(
    file,
    JSON.stringify({
      agencies: [
        { slug: 'agency-a', name: sim.key.accounts[0]!.agency.name, accessToken: tokenOf(0) },
        { slug: 'agency-b', name: revoked.agency.name, accessToken: revoked.options.accessToken },
      ],
    }),
    { mode: 0o600 },
  );
  chmodSync(file, 0o600);
  sim.key.removeAccount(revoked.accountId);
  env = {
    DATA_DIR: dataDir,
    AGENCIES_FILE: file,
    CRM_BASE_URL: sim.baseUrl,
    CRM_API_KEY: sim.apiKey,
    PUBLIC_URL: 'https://relay.integrator.test',
    PHOTO_WIDTHS: '240',
  };
  // `script` runs the relay on a pseudo-terminal: stdout is a TTY, as in an operator's shell.
  child = spawn('script', ['-qfec', `${process.execPath} --import tsx ${join(projectRoot, 'server', 'main.ts')}`, '/dev/null'], {
    cwd: projectRoot,
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  relayUrl = await until(() => /relay listening on (http:\/\/[\d.:]+)/.exec(output)?.[1], Boolean, 'the relay to listen', 60_000).then((url) => url!);
  await until(() => output.includes('Each agency later: npm run relay -- agencies'), Boolean, 'the table of agencies', 60_000);
}, 120_000);

afterAll(async () => {
  // The relay is script's child: stopped by its own pid (a hang-up from script would only reload it).
  const relay = runningRelay(dataDir);
  if (relay) process.kill(relay.pid, 'SIGTERM');
  await until(
    () => runningRelay(dataDir),
    (running) => running === undefined,
    'the relay to stop',
    15_000,
  ).catch(() => undefined);
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a relay of many agencies, on a terminal', () => {
  it('prints a table after its JSON lines: each agency, its state, listings and script tag, and why one is not ready, once', () => {
    const text = output.replace(/\r/g, '');
    const table = text.slice(text.indexOf('  Agencies of AGENCIES_FILE:'));
    expect(table).toMatch(/^ {2}Agencies of AGENCIES_FILE: 1 of 2 serving\n {4}AGENCY\s+STATE\s+LISTINGS\s+SCRIPT TAG\n/);
    expect(table).toMatch(
      /\n {4}agency-a\s+serving\s+[1-9]\d*\s+<script type="module" src="https:\/\/relay\.integrator\.test\/a\/agency-a\/widget\.js"><\/script>\n/,
    );
    expect(table).toMatch(
      /\n {4}agency-b\s+not ready\s+0\s+<script type="module" src="https:\/\/relay\.integrator\.test\/a\/agency-b\/widget\.js"><\/script>\n/,
    );
    expect(
      table.match(
        /agency-b \(.*\) is not ready: the CRM refuses the agency's access token \(401\): check the accessToken of agency "agency-b" in AGENCIES_FILE\n/g,
      ),
    ).toHaveLength(1);
    // After the JSON lines of the start, not among them.
    expect(text.lastIndexOf('"msg":"widget script tag"')).toBeLessThan(text.indexOf('  Agencies of AGENCIES_FILE:'));
  });
});

describe('`agencies add` against the running relay', () => {
  it('a refused token writes nothing', async () => {
    const before = readFileSync(file, 'utf8');
    const { code, text } = await cli(['agencies', 'add', 'agency-x', '--name', 'Nobody'], 'a-token-the-crm-never-issued');
    expect(code).toBe(1);
    expect(text).toMatch(/May read\s+listings REFUSED \(401\)/);
    expect(text).toMatch(/Not added: the CRM refuses the agency's access token \(401\).*Nothing was written\./);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(existsSync(`${file}.bak`)).toBe(false);
  });

  it('a good token (on standard input): checked with the CRM, written atomically (0600, a 0600 backup), and served after the reload', async () => {
    const before = readFileSync(file, 'utf8');
    const { code, text } = await cli(
      ['agencies', 'add', 'agency-c', '--name', 'Riverbend', '--origin', 'https://riverbend.example', '--site', 'https://riverbend.example'],
      `${tokenOf(1)}\n`,
    );
    expect(code, text).toBe(0);
    const account = sim.key.accounts[1]!;
    expect(text).toContain(`Account     ${account.accountId} (${account.agency.name})`);
    expect(text).toMatch(/May read\s+listings yes, staff yes, enquiries yes/);
    expect(text).toMatch(/Listings\s+[1-9]\d* for sale or lease now/);
    expect(text).toMatch(new RegExp(`Reloaded \\(pid ${runningRelay(dataDir)!.pid}\\): added agency-c; changed none; removed none\\.`));
    expect(text).toContain('<script type="module" src="https://relay.integrator.test/a/agency-c/widget.js"></script>');
    expect(text).not.toContain(tokenOf(1));

    expect(mode(file)).toBe(0o600);
    expect(mode(`${file}.bak`)).toBe(0o600);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(before);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { agencies: Array<Record<string, unknown>> };
    expect(written.agencies.at(-1)).toEqual({
      slug: 'agency-c',
      name: 'Riverbend',
      allowedOrigins: ['https://riverbend.example'],
      siteUrl: 'https://riverbend.example',
      accessToken: tokenOf(1),
    });

    // The running relay serves it: its first sync fills its cache with that account's listings.
    await until(
      async () => (await fetch(`${relayUrl}/a/agency-c/readyz`)).status,
      (status) => status === 200,
      'agency-c to be ready',
    );
    const listings = (await (await fetch(`${relayUrl}/a/agency-c/api/v1/listings?type=sale`)).json()) as { total: number };
    expect(listings.total).toBeGreaterThan(0);
    const agencies = await cli(['agencies']);
    expect(agencies.text.split('\n').find((line) => line.startsWith('agency-c '))).toMatch(/ serving\s+[1-9]/);
  }, 60_000);

  it('refuses a slug or a token already in the file, writing nothing', async () => {
    const before = readFileSync(file, 'utf8');
    const slug = await cli(['agencies', 'add', 'agency-c', '--name', 'Again'], 'some-other-token');
    expect(slug.code).toBe(1);
    expect(slug.text).toContain('"agency-c" is in AGENCIES_FILE already');
    const token = await cli(['agencies', 'add', 'agency-d', '--name', 'Same token'], tokenOf(1));
    expect(token.code).toBe(1);
    expect(token.text).toContain(`this token is agency "agency-c"'s already`);
    expect(token.text).not.toContain(tokenOf(1));
    const argv = await cli(['agencies', 'add', 'agency-d', '--name', 'Argv', `--token=${'some-other-token'}`]);
    expect(argv.code).toBe(2);
    expect(argv.text).toMatch(/^--token: a token is never taken on the command line/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
