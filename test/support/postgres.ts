// A throwaway PostgreSQL server for a test run: Debian's binaries (installed with apt-get when
// missing and we may), a fresh cluster in a temporary directory, a free port, a random password.
// Used by the vitest globalSetup (test/support/pg-global-setup.ts); callers get a DATABASE_URL,
// or the reason why there is none, so PostgreSQL suites can say they were skipped and why.
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayPostgres {
  /** postgres://… for the test database, password included (never print it). */
  url: string;
  /** Major version of the server, e.g. 15. */
  version: number;
  stop(): void;
}

export type PostgresForTests = { url: string; version: number } | { skipped: string };

const DEBIAN_ROOT = '/usr/lib/postgresql';
const DATABASE = 'estate_test';

/** The newest /usr/lib/postgresql/<major>/bin that holds initdb and pg_ctl, if any. */
export function findPostgresBin(): { bin: string; version: number } | undefined {
  if (!existsSync(DEBIAN_ROOT)) return undefined;
  const versions = readdirSync(DEBIAN_ROOT)
    .map(Number)
    .filter(
      (major) =>
        Number.isInteger(major) &&
        existsSync(join(DEBIAN_ROOT, String(major), 'bin', 'initdb')) &&
        existsSync(join(DEBIAN_ROOT, String(major), 'bin', 'pg_ctl')),
    )
    .sort((a, b) => b - a);
  return versions.length ? { bin: join(DEBIAN_ROOT, String(versions[0]), 'bin'), version: versions[0]! } : undefined;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Finds the server binaries, installing Debian's `postgresql` package when they are missing, we run
 * as root and apt-get exists. Returns the reason when it cannot.
 */
export function findOrInstallPostgres(log: (line: string) => void = () => {}): { bin: string; version: number } | { skipped: string } {
  const found = findPostgresBin();
  if (found) return found;
  if (!existsSync('/usr/bin/apt-get')) return { skipped: `no PostgreSQL server under ${DEBIAN_ROOT} and no apt-get to install Debian's postgresql package` };
  if (!isRoot())
    return {
      skipped: `no PostgreSQL server under ${DEBIAN_ROOT}; install it with: sudo apt-get install postgresql (the test run installs it itself only as root)`,
    };
  log("PostgreSQL server not found: installing Debian's postgresql package with apt-get (about a minute)…");
  const quiet: SpawnSyncOptions = { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 };
  let result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], quiet);
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], quiet);
    result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], quiet);
  }
  return findPostgresBin() ?? { skipped: `apt-get install postgresql failed (exit ${result.status ?? result.signal}); no PostgreSQL server to test against` };
}

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * initdb + pg_ctl start on a free port, with its unix socket in the cluster's own directory, then
 * a database. PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user.
 * A watchdog process stops the server and removes the directory if this process dies without
 * calling stop() (a killed test run leaves nothing behind).
 */
export async function startThrowawayPostgres(bin: string, version: number): Promise<ThrowawayPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'estate-pg-'));
  const dataDir = join(dir, 'data');
  const password = randomBytes(18).toString('base64url');
  const passwordFile = join(dir, 'pwfile');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  const asPostgres = isRoot();
  if (asPostgres) {
    const owner = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (owner.status !== 0) throw new Error('running as root and there is no `postgres` user to run the PostgreSQL server as');
    chownSync(dir, Number(owner.stdout.trim()), Number(group.stdout.trim()));
    chownSync(passwordFile, Number(owner.stdout.trim()), Number(group.stdout.trim()));
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
    const result = spawnSync(file, argv, { encoding: 'utf8', cwd: dir, timeout: 120_000 });
    if (result.status !== 0)
      throw new Error(`${command.split('/').pop()} failed: ${(result.stderr || result.stdout || String(result.error)).trim().slice(0, 800)}`);
  };
  try {
    run(join(bin, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=scram-sha-256',
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ]);
    rmSync(passwordFile, { force: true });
    const port = await freePort();
    // fsync off: a throwaway cluster need not survive a power cut, and the machine is shared.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
    run(join(bin, 'pg_ctl'), ['-D', dataDir, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    const stop = () => {
      spawnSync(
        asPostgres ? 'runuser' : join(bin, 'pg_ctl'),
        asPostgres ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', dataDir, '-m', 'immediate', 'stop'] : ['-D', dataDir, '-m', 'immediate', 'stop'],
        { stdio: 'ignore', timeout: 60_000 },
      );
      rmSync(dir, { recursive: true, force: true });
    };
    startWatchdog(process.pid, bin, dataDir, dir, asPostgres);
    const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    await createDatabase(`${base}/postgres`, DATABASE);
    return { url: `${base}/${DATABASE}`, version, stop };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function createDatabase(adminUrl: string, name: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

/** A detached shell that waits for `pid` to end, then stops the server and removes its directory. */
function startWatchdog(pid: number, bin: string, dataDir: string, dir: string, asPostgres: boolean): void {
  const pgCtl = `${bin}/pg_ctl -D '${dataDir}' -m immediate stop`;
  const stopCommand = asPostgres ? `runuser -u postgres -- ${pgCtl}` : pgCtl;
  const script = `while kill -0 ${pid} 2>/dev/null; do sleep 2; done; ${stopCommand} >/dev/null 2>&1; rm -rf '${dir}'`;
  const watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
}

/** Who runs the server: for messages. */
export function serverUser(): string {
  return isRoot() ? 'postgres' : userInfo().username;
}

/**
 * A new, empty database on the run's server, for one suite or one test (suites run in parallel):
 * returns its URL. Dropped by the server's removal at the end of the run.
 */
export async function freshDatabase(serverUrl: string, prefix = 'estate'): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A TCP hop in front of the PostgreSQL server that a test can cut (server gone) and restore. */
export async function cuttableProxy(target: URL): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = createConnection(Number(target.port), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      if (!server?.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  await listen();
  const url = new URL(target);
  url.port = String(port);
  return { url: url.toString(), cut, restore: listen, close: cut };
}
