// deploy/two-relays/: nginx in front of two relays on one PostgreSQL store. The shipped nginx
// config passes `nginx -t` (Debian's nginx, installed as root when missing, else the test says it
// was skipped and why), agrees with the systemd template, and, run for real on free ports in
// front of two relays, answers through them and keeps answering when one of them stops.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import type { RunningRelay } from '../../server/compose/relay.ts';
import { anotherRelay } from '../compose/pg-rig.ts';
import { startAgenciesRig, until, type AgenciesRig } from '../compose/rig.ts';
import { findOrInstallNginx, nginxSandbox } from '../support/nginx.ts';
import { freePort, freshDatabase } from '../support/postgres.ts';

const shipped = readFileSync(join(projectRoot, 'deploy', 'two-relays', 'nginx.conf'), 'utf8');
const unit = readFileSync(join(projectRoot, 'deploy', 'two-relays', 'estate-embed-relay@.service'), 'utf8');
const nginx = findOrInstallNginx();
const nginxSkipped = 'skipped' in nginx ? nginx.skipped : undefined;
const postgres = inject('postgres');
const postgresSkipped = 'skipped' in postgres ? postgres.skipped : undefined;

/** The shipped site with the certificate paths pointed at a test certificate. */
const withCert = (text: string, paths: { cert: string; key: string }) =>
  text.replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${paths.cert};`).replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${paths.key};`);

describe('deploy/two-relays/', () => {
  it("the upstream names the ports the systemd template's instances listen on, each instance with its own DATA_DIR behind loopback", () => {
    const upstream = /upstream estate_relays \{([^}]*)\}/.exec(shipped)?.[1] ?? '';
    const servers = [...upstream.matchAll(/server (127\.0\.0\.1:\d+)/g)].map((match) => match[1]);
    const instancePorts = [...unit.matchAll(/relay-(\d)\.env/g)].length > 0 ? [...unit.matchAll(/PORT=(\d+)/g)].map((match) => `127.0.0.1:${match[1]}`) : [];
    expect(servers).toHaveLength(2);
    expect(servers).toEqual(instancePorts);
    expect(unit).toMatch(/^Environment=DATA_DIR=\/var\/lib\/estate-embed\/%i$/m);
    expect(unit).toMatch(/^ReadWritePaths=\/var\/lib\/estate-embed\/%i$/m);
    expect(unit).toMatch(/^Environment=HOST=127\.0\.0\.1$/m);
    expect(unit).toMatch(/^Environment=TRUST_PROXY=loopback$/m);
    expect(unit).toMatch(/DATABASE_URL=postgres:\/\//);
    // Every location reaches the relays through the upstream, never one relay directly.
    expect([...shipped.matchAll(/proxy_pass (\S+);/g)].map((match) => match[1])).toEqual(['http://estate_relays', 'http://estate_relays']);
  });

  // The single-relay config too: it used `http2 on;`, which Debian 12's nginx (1.22) refuses.
  it.skipIf(nginxSkipped).each([
    ['deploy/two-relays/nginx.conf', shipped],
    ['deploy/nginx.conf', readFileSync(join(projectRoot, 'deploy', 'nginx.conf'), 'utf8')],
  ])(`%s passes nginx -t${nginxSkipped ? ` (SKIPPED: ${nginxSkipped})` : ''}`, (_name, text) => {
    const sandbox = nginxSandbox((paths) => withCert(text, paths));
    try {
      const result = spawnSync((nginx as { bin: string }).bin, ['-t', '-c', sandbox.mainConfig], { encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/test is successful/);
    } finally {
      sandbox.cleanup();
    }
  });

  describe.skipIf(nginxSkipped || postgresSkipped)(
    `run in front of two relays on one database${nginxSkipped || postgresSkipped ? ` (SKIPPED: ${nginxSkipped ?? postgresSkipped})` : ''}`,
    () => {
      let rig: AgenciesRig;
      let second: RunningRelay;
      let proxy: ChildProcess;
      let sandbox: ReturnType<typeof nginxSandbox>;
      let httpsPort: number;

      beforeAll(async () => {
        const databaseUrl = await freshDatabase((postgres as { url: string }).url, 'nginx');
        rig = await startAgenciesRig({ agencies: 1, listings: 4, env: { DATABASE_URL: databaseUrl } });
        second = await anotherRelay(rig, databaseUrl);
        await rig.syncAll();
        await second.agencies!.list()[0]!.agency.listings.sync.run('full');
        httpsPort = await freePort();
        const httpPort = await freePort();
        const ports = [new URL(rig.relay.url).port, new URL(second.url).port];
        sandbox = nginxSandbox(
          (paths) =>
            withCert(shipped, paths)
              .replace('server 127.0.0.1:8787 ', `server 127.0.0.1:${ports[0]} `)
              .replace('server 127.0.0.1:8788 ', `server 127.0.0.1:${ports[1]} `)
              .replace(/listen 80;/, `listen 127.0.0.1:${httpPort};`)
              .replace(/listen \[::\]:80;/, '')
              .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${httpsPort} ssl http2;`)
              .replace(/listen \[::\]:443 ssl http2;/, ''),
          { foreground: true },
        );
        proxy = spawn((nginx as { bin: string }).bin, ['-c', sandbox.mainConfig], { stdio: 'ignore' });
        await until(
          () =>
            get('/healthz').then(
              (answer) => answer.status,
              () => 0,
            ),
          (status) => status === 200,
          10_000,
        );
      }, 90_000);
      afterAll(async () => {
        proxy?.kill('SIGTERM');
        await second?.close();
        await rig?.close();
        sandbox?.cleanup();
      });

      /** A request through nginx over TLS (the test's own certificate). */
      function get(path: string): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
        return new Promise((resolve, reject) => {
          const req = httpsRequest(
            { host: '127.0.0.1', port: httpsPort, path, rejectUnauthorized: false, headers: { Host: 'relay.agency.example' } },
            (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (body += chunk));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
            },
          );
          req.on('error', reject);
          req.end();
        });
      }

      it("serves the agency's listings through either relay, and keeps serving with one relay stopped", async () => {
        const slug = rig.entries[0]!.slug;
        const answers = await Promise.all(Array.from({ length: 8 }, () => get(`/a/${slug}/api/v1/listings`)));
        expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
        expect(new Set(answers.map((answer) => JSON.parse(answer.body).items.length)).size).toBe(1);
        // One relay stopped (a deploy, a crash): nginx steps around it; nothing fails.
        await second.close();
        const after = await Promise.all(Array.from({ length: 6 }, () => get(`/a/${slug}/api/v1/listings`)));
        expect(after.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      }, 30_000);
    },
  );
});
