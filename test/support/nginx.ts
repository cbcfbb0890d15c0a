// nginx for tests of the shipped deploy/ configs: Debian's nginx (installed with apt-get as root
// when missing, as the PostgreSQL harness does), or the reason there is none, so a test can say it
// was skipped instead of passing.
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATES = ['/usr/sbin/nginx', '/usr/bin/nginx'];

export function findOrInstallNginx(): { bin: string } | { skipped: string } {
  const found = () => CANDIDATES.find((path) => existsSync(path));
  const present = found();
  if (present) return { bin: present };
  if (!existsSync('/usr/bin/apt-get')) return { skipped: "no nginx and no apt-get to install Debian's nginx-light" };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0)
    return { skipped: 'no nginx; install it with: sudo apt-get install nginx-light (the test installs it itself only as root)' };
  const quiet: SpawnSyncOptions = { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 };
  let result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx-light'], quiet);
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], quiet);
    result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'nginx-light'], quiet);
  }
  const installed = found();
  return installed ? { bin: installed } : { skipped: `apt-get install nginx-light failed (exit ${result.status ?? result.signal})` };
}

export interface NginxSandbox {
  dir: string;
  /** nginx's main config: logs, pid and temp paths in `dir`, `site` included in http {}. */
  mainConfig: string;
  /** A self-signed certificate and key for the site's ssl_certificate lines. */
  cert: string;
  key: string;
  cleanup(): void;
}

/** A temporary prefix where nginx can check (nginx -t) or run a site config without touching /etc/nginx. */
export function nginxSandbox(siteText: (paths: { cert: string; key: string }) => string, options: { foreground?: boolean } = {}): NginxSandbox {
  const dir = mkdtempSync(join(tmpdir(), 'estate-nginx-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=relay.agency.example', '-keyout', key, '-out', cert], {
    stdio: 'ignore',
  });
  for (const temp of ['client_body', 'proxy']) mkdirSync(join(dir, temp));
  const site = join(dir, 'site.conf');
  writeFileSync(site, siteText({ cert, key }));
  const mainConfig = join(dir, 'nginx.conf');
  writeFileSync(
    mainConfig,
    [
      ...(options.foreground ? ['daemon off;', 'master_process off;'] : []),
      // As root nginx would switch to the distribution's user; keep it (and its files) ours.
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'events { worker_connections 64; }',
      'http {',
      `  access_log off;`,
      `  client_body_temp_path ${join(dir, 'client_body')};`,
      `  proxy_temp_path ${join(dir, 'proxy')};`,
      `  include ${site};`,
      '}',
      '',
    ].join('\n'),
  );
  return { dir, mainConfig, cert, key, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
