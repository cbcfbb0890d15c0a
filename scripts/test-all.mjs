// `npm test`: type-check, the import walls (dependency-cruiser), lint and formatting, then the server suites (vitest), then the element suites in headless
// Chromium (@web/test-runner). Ends with one line totalling every runner: `N passed, N failed`.
import { spawn } from 'node:child_process';
import { readFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from './find-chromium.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const reportDir = join(root, '.tmp', 'test-reports');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

function run(command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let passed = 0;
let failed = 0;
const problems = [];
// The names of the failed tests, repeated at the end: a CI log is often read from its tail.
const failedTests = [];

// First, so that a fresh machine gets its Chromium (installed when missing) before any suite:
// the end-to-end, interop and CSP suites under vitest drive it too.
let chromePath;
try {
  chromePath = findChromium();
  process.env.CHROME_PATH = chromePath;
} catch (error) {
  console.error(error.message);
}

// The native compiler (TypeScript 7); the package named typescript is 6, for typescript-eslint's API.
const typecheck = await run(join(root, 'node_modules', '@typescript', 'native', 'bin', 'tsc'), ['--noEmit', '-p', 'tsconfig.json']);
if (typecheck === 0) passed += 1;
else {
  failed += 1;
  problems.push('type-check (tsc --noEmit)');
}

// The walls between modules (.dependency-cruiser.cjs): a broken rule prints the offending import.
const walls = await run(process.execPath, [join(root, 'scripts', 'walls.mjs')]);
if (walls === 0) passed += 1;
else {
  failed += 1;
  problems.push('import walls (dependency-cruiser, .dependency-cruiser.cjs)');
}

// Lint (eslint.config.js: rules that catch bugs) and formatting (prettier), as habits rather than reviews.
const lint = await run(bin('eslint'), ['.']);
if (lint === 0) passed += 1;
else {
  failed += 1;
  problems.push('lint (eslint .)');
}
const format = await run(bin('prettier'), ['--check', '.', '--log-level', 'warn']);
if (format === 0) passed += 1;
else {
  failed += 1;
  problems.push('formatting (prettier --check .; fix with npx prettier --write .)');
}

const firstLine = (text) =>
  String(text ?? '')
    .split('\n')
    .find((line) => line.trim()) ?? '';

// vitest writes a JSON report whose counts we add up; its own summary still prints.
async function vitest(name, label, args) {
  const json = join(reportDir, `${name}.json`);
  const code = await run(bin('vitest'), ['run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${json}`]);
  try {
    const report = JSON.parse(readFileSync(json, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    if (report.numFailedTests > 0 || code !== 0) problems.push(label);
    for (const file of report.testResults ?? []) {
      const where = file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
      for (const test of file.assertionResults ?? []) {
        if (test.status === 'failed') failedTests.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
      }
      if (file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed')) {
        failedTests.push(`${where}: ${firstLine(file.message)}`);
      }
    }
    if (code !== 0 && report.numFailedTests === 0) failed += 1; // a suite that failed to load
  } catch {
    failed += 1;
    problems.push(`${label}: no report`);
  }
}

// The first-run test runs a real `npm start`, whose widget build rewrites dist/widget (the SSR build
// empties dist/widget/ssr) while suites in the other worker render pages from it: so it runs alone, after.
const firstRun = 'test/cli/npm-start.first-run.test.ts';
await vitest('vitest', 'server suites (vitest)', [`--exclude=${firstRun}`]);
await vitest('vitest-first-run', `first-run suite (vitest ${firstRun})`, [firstRun]);

if (chromePath) {
  const wtrJson = join(reportDir, 'wtr.json');
  const wtrCode = await run(process.execPath, ['--import', 'tsx', join(root, 'node_modules/@web/test-runner/dist/bin.js')], {
    CHROME_PATH: chromePath,
    WTR_JSON_REPORT: wtrJson,
  });
  try {
    const report = JSON.parse(readFileSync(wtrJson, 'utf8'));
    passed += report.passed;
    failed += report.failed;
    if (report.failed > 0 || wtrCode !== 0) problems.push('element suites (web-test-runner)');
    if (wtrCode !== 0 && report.failed === 0) failed += 1;
  } catch {
    failed += 1;
    problems.push('element suites (web-test-runner): no report');
  }
} else {
  failed += 1;
  problems.push('element suites: no Chromium');
}

if (failedTests.length) console.log(`\nFailed tests:\n${failedTests.map((test) => `  ${test}`).join('\n')}`);
if (problems.length) console.log(`\nFailed: ${problems.join('; ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
