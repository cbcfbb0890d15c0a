// promtool, for the tests of the shipped Prometheus rules (deploy/prometheus/): from PATH, or
// Debian's `prometheus` package fetched once (`apt-get download`, 19 MB) with only its promtool
// (48 MB) kept in .tmp/promtool/, the way the browser tests find or install Chromium. Or the reason
// there is none, so a test says it was skipped instead of passing.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const projectRoot = join(import.meta.dirname, '..', '..');
const CACHED = join(projectRoot, '.tmp', 'promtool', 'promtool');

export function findOrFetchPromtool(): { bin: string } | { skipped: string } {
  const onPath = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return { bin: onPath };
  if (existsSync(CACHED)) return { bin: CACHED };
  if (!existsSync('/usr/bin/apt-get') || !existsSync('/usr/bin/dpkg-deb'))
    return { skipped: "no promtool on PATH and no apt-get/dpkg-deb to fetch Debian's prometheus package (install promtool, e.g. apt-get install prometheus)" };
  mkdirSync(join(projectRoot, '.tmp'), { recursive: true });
  const work = mkdtempSync(join(projectRoot, '.tmp', 'promtool-fetch-'));
  try {
    const quiet: SpawnSyncOptions = { cwd: work, encoding: 'utf8', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 };
    let download = spawnSync('apt-get', ['download', 'prometheus'], quiet);
    if (download.status !== 0 && process.getuid?.() === 0) {
      // Package lists missing or stale: refreshed once (as root only), then tried again.
      spawnSync('apt-get', ['update', '-qq'], quiet);
      download = spawnSync('apt-get', ['download', 'prometheus'], quiet);
    }
    const deb = readdirSync(work).find((name) => name.endsWith('.deb'));
    if (!deb)
      return { skipped: `apt-get download prometheus failed (exit ${download.status ?? download.signal}): ${String(download.stderr).trim().slice(0, 300)}` };
    // Only promtool out of the package (not the server), written beside and renamed: a parallel run never sees half a file.
    const partial = join(work, 'promtool');
    const extract = spawnSync('sh', ['-c', `dpkg-deb --fsys-tarfile "${deb}" | tar -xO ./usr/bin/promtool > promtool`], quiet);
    if (extract.status !== 0) return { skipped: `could not take promtool out of ${deb}: ${String(extract.stderr).trim().slice(0, 300)}` };
    chmodSync(partial, 0o755);
    mkdirSync(join(projectRoot, '.tmp', 'promtool'), { recursive: true });
    renameSync(partial, CACHED);
    return { bin: CACHED };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
