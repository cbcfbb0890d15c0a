// Runs before `npm start`, `npm test` and `npm run bench`: installs dependencies when they are
// missing or older than package-lock.json, so either command works first after a clone.
// Dependency-free on purpose: it runs before anything is installed.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lockPath = join(root, 'package-lock.json');
const stampPath = join(root, 'node_modules', '.estate-embed-lock-hash');

function lockHash() {
  return createHash('sha256').update(readFileSync(lockPath)).digest('hex');
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`estate-embed needs Node.js 20.19 or newer; this is ${process.versions.node}.`);
  process.exit(1);
}

const hiddenLock = join(root, 'node_modules', '.package-lock.json');
const installed = existsSync(hiddenLock);
// Up to date when our stamp records this very lockfile, or when npm's own hidden lockfile is newer
// than package-lock.json (a plain `npm ci` or `npm install` ran since the lockfile last changed).
const stampMatches = existsSync(stampPath) && readFileSync(stampPath, 'utf8').trim() === lockHash();
const upToDate = installed && (stampMatches || statSync(hiddenLock).mtimeMs >= statSync(lockPath).mtimeMs);
if (!upToDate) {
  console.log(installed ? 'Dependencies changed: running npm ci…' : 'First run: installing dependencies with npm ci (about a minute)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // The lockfile records every platform's optional packages, so npm ci takes it as it is.
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('Installing dependencies failed; see the output above.');
    process.exit(result.status ?? 1);
  }
}
writeFileSync(stampPath, lockHash() + '\n');
