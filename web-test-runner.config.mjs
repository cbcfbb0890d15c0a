// Element tests in headless Chromium. Run through tsx (see package.json) so this config can start
// a real relay (TypeScript) before the browsers: the elements talk to it over real HTTP.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { a11ySnapshotPlugin } from '@web/test-runner-commands/plugins';
import { writeFileSync } from 'node:fs';
import { findChromium, chromiumArgs } from './scripts/find-chromium.mjs';
import { faultPathsMiddleware } from './test/support/fault-paths.mjs';

const WTR_PORT = Number(process.env.WTR_PORT ?? 8765);
const pageOrigins = [`http://localhost:${WTR_PORT}`, `http://127.0.0.1:${WTR_PORT}`];

let relay;

/** Starts the relay (demo mode, embedded simulator) and hands its URL to the test pages. */
function relayPlugin() {
  return {
    name: 'estate-relay',
    async serverStart() {
      const { startTestRelay } = await import('./test/support/relay-fixture.ts');
      // The enquiry suites send many enquiries from one address within a minute, and the map suites
      // ask for many tiles and map answers (every test's views are new to the relay).
      relay = await startTestRelay({
        ALLOWED_ORIGINS: pageOrigins.join(','),
        ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000',
        ENQUIRY_DAILY_LIMIT_PER_CLIENT: '100000',
        MAP_TILE_RATE_PER_MINUTE: '100000',
        UNCACHED_RENDERS_PER_MINUTE: '0',
      });
      // Until the first sync has filled the cache the listing API answers 503 "filling": suites
      // that read the listings first would start with nothing.
      for (const deadline = Date.now() + 120_000; !(await fetch(`${relay.url}/readyz`)).ok;) {
        if (Date.now() > deadline) throw new Error('The test relay never became ready (first sync).');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // A first fill serves before its photos are mirrored (issue 33): the galleries and cards under test have them.
      await relay.listings.sync.photosMirrored();
    },
    async serverStop() {
      await relay?.close();
    },
    transform(context) {
      if (context.path === '/__relay.js') {
        return { body: `export const RELAY = ${JSON.stringify(relay.url)};`, type: 'js' };
      }
    },
    serve(context) {
      if (context.path === '/__relay.js') return { body: '', type: 'js' };
    },
  };
}

/** Writes pass/fail counts for scripts/test-all.mjs to add up. */
function jsonCountReporter(file) {
  const count = (suite, totals) => {
    for (const test of suite?.tests ?? []) {
      if (test.skipped) continue;
      if (test.passed) totals.passed += 1;
      else totals.failed += 1;
    }
    for (const child of suite?.suites ?? []) count(child, totals);
  };
  return {
    onTestRunFinished({ sessions }) {
      if (!file) return;
      const totals = { passed: 0, failed: 0 };
      for (const session of sessions) {
        count(session.testResults, totals);
        // A file that fails to load counts as one failure.
        if (!session.passed && (session.errors?.length ?? 0) > 0) totals.failed += 1;
      }
      writeFileSync(file, JSON.stringify(totals));
    },
  };
}

export default {
  files: ['test/elements/**/*.test.ts', 'widget/**/*.test.ts'],
  nodeResolve: { exportConditions: ['production'] },
  port: WTR_PORT,
  concurrency: 2,
  testFramework: { config: { timeout: 20000 } },
  testsFinishTimeout: 300000,
  browsers: [
    chromeLauncher({
      launchOptions: { executablePath: findChromium(), headless: true, args: chromiumArgs },
      // Two test files run at once, and only the front tab has focus: without this, focus/blur and
      // Tab navigation silently stop working in the other one (keyboard tests time out). Each file's
      // page is in a window of its own (a browser context): a tab behind another is hidden, and a
      // hidden page draws no frames, so requestAnimationFrame, ResizeObserver and animated moves
      // (the map's) never run there.
      async createPage({ browser }) {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        const session = await page.createCDPSession();
        await session.send('Emulation.setFocusEmulationEnabled', { enabled: true });
        return page;
      },
    }),
  ],
  // Failing relay paths (/__faults/...) for the enquiry form's offline, 5xx, 429 and in-flight states.
  middleware: [faultPathsMiddleware()],
  plugins: [
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: './tsconfig.json' }),
    relayPlugin(),
    // The accessibility tree as Chromium builds it (the honeypot must not be in it).
    a11ySnapshotPlugin(),
  ],
  reporters: [defaultReporter(), summaryReporter(), jsonCountReporter(process.env.WTR_JSON_REPORT)],
};
