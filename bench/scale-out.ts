/**
 * `npm run bench -- scale-out` (issue 14): what a second relay on the same PostgreSQL database buys.
 *
 * 1. Listing API throughput (a filtered page of 24 cards) of one relay against two, both behind
 *    the same proxy so the proxy's own cost weighs on both alike: nginx (Debian's nginx-light, one
 *    worker, plain HTTP, keepalive to the relays) when it can be had, else a small round-robin
 *    node:http proxy in this process; the figure says which.
 * 2. Enquiry 202 latency p50/p99 of a relay with DATABASE_URL (the outbox in PostgreSQL) against a
 *    relay on SQLite alone, same load (10 clients posting back to back), phases alternating.
 *
 * Every relay is its own process (`node --import tsx server/main.ts`), as in production; the CRM
 * simulator and a throwaway PostgreSQL server (test/support/postgres.ts) are started for the run.
 * On a machine with few cores two relays compete with the proxy, the load generator and
 * PostgreSQL for the same CPUs: the figure carries the core count, and a ratio below 1 is reported
 * as measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator } from '../crm-sim/simulator.ts';
import { freePort, loadTargets, RelayProcess } from '../test/chaos/chaos.ts';
import { findOrInstallNginx, nginxSandbox } from '../test/support/nginx.ts';
import { findOrInstallPostgres, freshDatabase, startThrowawayPostgres } from '../test/support/postgres.ts';
import { load, percentile, type Sample } from './enquiry-latency.ts';
import { CONNECTIONS, compareThroughput } from './support.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const LISTINGS = 60;
const LIST_PATH = '/api/v1/listings?type=sale&sort=price&pageSize=24';
const SHARED_PUBLIC_URL = 'https://listings.agency.test';

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const found = findOrInstallPostgres(context.note);
  if ('skipped' in found) throw new Error(`scale-out needs PostgreSQL: ${found.skipped}`);
  const postgres = await startThrowawayPostgres(found.bin, found.version);
  const sim = await startSimulator({ listings: LISTINGS, seed: 14, requestsPerSecond: 10, dailyLimit: 1_000_000 });
  const dirs: string[] = [];
  const relays: RelayProcess[] = [];
  const cleanups: Array<() => Promise<void> | void> = [];
  try {
    const databaseUrl = await freshDatabase(postgres.url, 'estate_scale');
    const targets = await loadTargets(sim.baseUrl, sim.apiKey, sim.accessToken);
    const startRelay = async (name: string, env: Record<string, string>): Promise<string> => {
      const dir = mkdtempSync(join(tmpdir(), `estate-bench-scale-${name}-`));
      dirs.push(dir);
      const port = await freePort();
      const relay = new RelayProcess(
        {
          PORT: String(port),
          HOST: '127.0.0.1',
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          DATA_DIR: dir,
          CRM_BASE_URL: sim.baseUrl,
          CRM_API_KEY: sim.apiKey,
          CRM_ACCESS_TOKEN: sim.accessToken,
          CRM_DAILY_LIMIT: '1000000',
          LOG_LEVEL: 'warn',
          ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000000',
          ENQUIRY_DAILY_LIMIT_PER_CLIENT: '1000000',
          ENQUIRY_DAILY_BUDGET: '1000000',
          ENQUIRY_MIN_FILL_MS: '0',
          ...env,
        },
        join(dir, 'relay.log'),
      );
      relays.push(relay);
      await relay.start();
      return `http://127.0.0.1:${port}`;
    };
    // Two relays on PostgreSQL, one on SQLite alone.
    const [relayA, relayB, relaySqlite] = await Promise.all([
      // Behind one load balancer both relays have the one public address (answers carry absolute URLs).
      startRelay('a', { DATABASE_URL: databaseUrl, PUBLIC_URL: SHARED_PUBLIC_URL }),
      startRelay('b', { DATABASE_URL: databaseUrl, PUBLIC_URL: SHARED_PUBLIC_URL }),
      startRelay('sqlite', {}),
    ]);
    for (const origin of [relayA!, relayB!, relaySqlite!]) await untilListed(origin);
    context.note(`relays synced: A ${relayA}, B ${relayB} (PostgreSQL), ${relaySqlite} (SQLite)`);
    // Any relay, the same answer: one relay syncs the agency, the other serves its copy (same bytes, same ETag).
    const compared = [LIST_PATH, '/api/v1/listings?type=lease', '/api/v1/agents', ...targets.listings.slice(0, 5).map((id) => `/api/v1/listings/${id}`)];
    let sameAnswers = 0;
    const answer = async (origin: string, path: string) => {
      const response = await fetch(`${origin}${path}`);
      return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
    };
    for (const path of compared) {
      // The first sync may still be writing (and publishing) when both first list: a few seconds to settle.
      for (let attempt = 0; ; attempt++) {
        const [a, b] = await Promise.all([answer(relayA!, path), answer(relayB!, path)]);
        if (a.status === b.status && a.etag === b.etag && a.body === b.body) {
          sameAnswers++;
          break;
        }
        if (attempt === 40) {
          context.note(`${path}: relay A ${a.status} ${a.etag}, relay B ${b.status} ${b.etag}`);
          break;
        }
        await sleep(250);
      }
    }

    // Throughput: the same proxy with one upstream server against two.
    const proxy = await startProxies([relayA!], [relayA!, relayB!]);
    cleanups.push(proxy.close);
    context.note(`proxy: ${proxy.kind}`);
    const throughput = await compareThroughput(`${proxy.one}${LIST_PATH}`, `${proxy.two}${LIST_PATH}`, context.durationSeconds);

    // Enquiry 202 latency, PostgreSQL against SQLite, alternating; about listings both relays list
    // (an enquiry about one a relay does not know is a 400, which would not measure the outbox).
    const listingIds: number[] = [];
    for (const id of targets.listings) {
      const statuses = await Promise.all(
        [relayA!, relaySqlite!].map((origin) =>
          fetch(`${origin}/api/v1/listings/${id}`).then(async (response) => (await response.arrayBuffer(), response.status)),
        ),
      );
      if (statuses.every((status) => status === 200)) listingIds.push(id);
    }
    if (listingIds.length === 0) throw new Error('no listing is listed by both the PostgreSQL and the SQLite relay');
    const pgUrl = `${relayA}/api/v1/enquiries`;
    const sqliteUrl = `${relaySqlite}/api/v1/enquiries`;
    await load(pgUrl, listingIds, 1);
    await load(sqliteUrl, listingIds, 1);
    const samples = { pg: [] as Sample[], sqlite: [] as Sample[] };
    for (let round = 0; round < 2; round++) {
      samples.pg.push(await load(pgUrl, listingIds, context.durationSeconds / 2));
      samples.sqlite.push(await load(sqliteUrl, listingIds, context.durationSeconds / 2));
    }
    const merged = (list: Sample[]) => ({
      latenciesMs: list.flatMap((sample) => sample.latenciesMs),
      failures: list.reduce((sum, sample) => sum + sample.failures, 0),
      failureCauses: JSON.stringify(
        list.reduce<Record<string, number>>((all, sample) => {
          for (const [cause, count] of Object.entries(sample.failureCauses)) all[cause] = (all[cause] ?? 0) + count;
          return all;
        }, {}),
      ),
      seconds: list.reduce((sum, sample) => sum + sample.seconds, 0),
    });
    const pg = merged(samples.pg);
    const sqlite = merged(samples.sqlite);
    const round = (value: number) => Math.round(value * 10) / 10;
    const common = { cpus: availableParallelism(), loadAverage1m: Number(loadavg()[0]!.toFixed(2)), secondsEach: context.durationSeconds };
    return [
      {
        name: 'scale-out-listings-throughput',
        endpoint: `GET ${LIST_PATH}`,
        proxy: proxy.kind,
        oneRelayRps: throughput.baselineRps,
        twoRelaysRps: throughput.relayRps,
        ratio: throughput.ratio,
        ratioSpread: throughput.ratioSpread,
        oneRelayP99Ms: throughput.baselineP99Ms,
        twoRelaysP99Ms: throughput.relayP99Ms,
        // Of the answers compared, how many were byte for byte and ETag for ETag the same on both relays.
        sameAnswersOnBothRelays: `${sameAnswers}/${compared.length}`,
        connections: CONNECTIONS,
        ...common,
      },
      {
        name: 'scale-out-enquiry-202-latency',
        postgresP50Ms: round(percentile(pg.latenciesMs, 0.5)),
        postgresP99Ms: round(percentile(pg.latenciesMs, 0.99)),
        postgresRps: Math.round(pg.latenciesMs.length / pg.seconds),
        postgresFailures: pg.failures,
        postgresFailureCauses: pg.failureCauses,
        sqliteP50Ms: round(percentile(sqlite.latenciesMs, 0.5)),
        sqliteP99Ms: round(percentile(sqlite.latenciesMs, 0.99)),
        sqliteRps: Math.round(sqlite.latenciesMs.length / sqlite.seconds),
        sqliteFailures: sqlite.failures,
        sqliteFailureCauses: sqlite.failureCauses,
        // > 1: PostgreSQL answers slower than SQLite (a network round trip per commit instead of a local fsync).
        p50Ratio: Number((percentile(pg.latenciesMs, 0.5) / percentile(sqlite.latenciesMs, 0.5)).toFixed(2)),
        postgresVersion: found.version,
        ...common,
      },
    ];
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await Promise.all(relays.map((relay) => relay.stop().catch(() => relay.kill())));
    await sim.close();
    postgres.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the relay answers its listing page (its first sync is done). */
async function untilListed(origin: string): Promise<void> {
  for (const until = Date.now() + 180_000; Date.now() < until; await sleep(250)) {
    const response = await fetch(`${origin}${LIST_PATH}`).catch(() => undefined);
    const body = (await response?.json().catch(() => undefined)) as { items?: unknown[] } | undefined;
    if (response?.status === 200 && (body?.items?.length ?? 0) > 0) return;
  }
  throw new Error(`${origin} served no listings within 3 minutes`);
}

interface Proxies {
  kind: string;
  /** The proxy in front of relay A alone, and in front of A and B. */
  one: string;
  two: string;
  close(): Promise<void>;
}

async function startProxies(one: string[], two: string[]): Promise<Proxies> {
  const nginx = findOrInstallNginx();
  const ports = [await freePort(), await freePort()];
  if ('bin' in nginx) {
    const upstream = (name: string, origins: string[]) =>
      [`upstream ${name} {`, '  least_conn;', ...origins.map((origin) => `  server ${new URL(origin).host};`), '  keepalive 32;', '}'].join('\n');
    const server = (port: number, name: string) =>
      [
        'server {',
        `  listen 127.0.0.1:${port};`,
        '  location / {',
        `    proxy_pass http://${name};`,
        '    proxy_http_version 1.1;',
        '    proxy_set_header Connection "";',
        '    proxy_set_header Host $host;',
        '  }',
        '}',
      ].join('\n');
    const sandbox = nginxSandbox(
      () => [upstream('one_relay', one), upstream('two_relays', two), server(ports[0]!, 'one_relay'), server(ports[1]!, 'two_relays')].join('\n'),
      { foreground: true },
    );
    const child: ChildProcess = spawn(nginx.bin, ['-c', sandbox.mainConfig], { stdio: 'ignore' });
    const origins = ports.map((port) => `http://127.0.0.1:${port}`);
    for (const until = Date.now() + 10_000; ; await sleep(100)) {
      const statuses = await Promise.all(
        origins.map((origin) =>
          fetch(`${origin}/healthz`).then(
            (response) => response.status,
            () => 0,
          ),
        ),
      );
      if (statuses.every((status) => status === 200)) break;
      if (Date.now() > until) throw new Error(`nginx did not answer within 10 s (${sandbox.dir}/error.log)`);
    }
    return {
      kind: 'nginx (1 worker)',
      one: origins[0]!,
      two: origins[1]!,
      close: async () => {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
        sandbox.cleanup();
      },
    };
  }
  // No nginx: a round-robin node:http proxy in this process (it shares the load generator's CPU).
  const servers = [nodeProxy(one), nodeProxy(two)];
  await Promise.all(servers.map((server, index) => new Promise<void>((resolve) => server.listen(ports[index], '127.0.0.1', resolve))));
  return {
    kind: `node:http round robin in the bench process (no nginx: ${nginx.skipped})`,
    one: `http://127.0.0.1:${ports[0]}`,
    two: `http://127.0.0.1:${ports[1]}`,
    close: async () => {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

function nodeProxy(origins: string[]): Server {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  let next = 0;
  return createServer((req, res) => {
    const target = new URL(origins[next++ % origins.length]!);
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
}
