// Finds a Chromium for the browser tests, installing Debian's `chromium` package when it is
// missing and we are root on Debian. Usable as a module (findChromium) or run as a script.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** Flags that keep headless Chromium quiet on a machine with no internet and no sandbox. */
export const chromiumArgs = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

function locate() {
  if (process.env.CHROME_PATH) {
    if (existsSync(process.env.CHROME_PATH)) return process.env.CHROME_PATH;
    throw new Error(`CHROME_PATH is set to ${process.env.CHROME_PATH}, but no file is there.`);
  }
  return candidates.find((path) => existsSync(path));
}

export function findChromium() {
  const found = locate();
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log('Chromium is missing: installing the Debian package `chromium` for the browser tests…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
    const installed = locate();
    if (install && install.status === 0 && installed) return installed;
  }
  throw new Error(
    'No Chromium found for the browser tests. Install one (Debian: `apt-get install chromium`) ' + 'or set CHROME_PATH to a Chrome or Chromium binary.',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(`Chromium: ${findChromium()}`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
