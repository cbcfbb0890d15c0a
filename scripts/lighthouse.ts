// `npm run lighthouse`: audits every demo page with Lighthouse (mobile, its default) against a
// relay in demo mode and production mode (NODE_ENV=production, DEMO_MODE=1: Express and the
// server-rendered pages as an agency runs them), printing one JSON line per page: the category
// scores and the page's first and largest contentful paint and total blocking time (ms, as
// Lighthouse simulates a mid-range phone; they move by ±150 ms between runs on a shared machine). `ssr-listing` and `ssr-buy` name the
// server-rendered listing page (the first listing's) and list page (#13), `ssr-team` and `ssr-agent` the
// server-rendered team page and the first agent's page (#31); `agent.html` shows the first agent. Exits non-zero when any category of any page
// scores below 0.9, the bar the demo site is held to.
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { findChromium, chromiumArgs } from './find-chromium.mjs';
import { startTestRelay } from '../test/support/relay-fixture.ts';
import { addressSlug } from '../contract/slug.ts';

const MIN_SCORE = 0.9;
const root = join(import.meta.dirname, '..');
const SSR_PAGES = ['ssr-listing', 'ssr-buy', 'ssr-team', 'ssr-agent'];
const pages = process.argv.slice(2).length ? process.argv.slice(2) : [...readdirSync(join(root, 'demo')).filter((f) => f.endsWith('.html')), ...SSR_PAGES];

const build = spawnSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const relay = await startTestRelay({ NODE_ENV: 'production', DEMO_MODE: '1' });
// Wait for the first sync, so the pages show listings as a visitor would see them.
for (let tries = 0; tries < 120; tries++) {
  const response = await fetch(`${relay.url}/api/v1/listings?pageSize=1`).catch(() => undefined);
  if (response?.ok && ((await response.json()) as { total: number }).total > 0) break;
  await new Promise((resolve) => setTimeout(resolve, 500));
}

const chrome = await chromeLauncher.launch({
  chromePath: findChromium(),
  chromeFlags: chromiumArgs,
});
let failed = false;
try {
  for (const page of pages) {
    const url = `${relay.url}/${await pagePath(relay.url, page)}`;
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const scores = Object.fromEntries(Object.entries(result.lhr.categories).map(([name, category]) => [name, category.score]));
    const ms = (audit: string) => Math.round(result.lhr.audits[audit]?.numericValue ?? Number.NaN);
    const timings = { fcpMs: ms('first-contentful-paint'), lcpMs: ms('largest-contentful-paint'), tbtMs: ms('total-blocking-time') };
    const below = Object.entries(scores).filter(([, score]) => score === null || score < MIN_SCORE);
    if (below.length) failed = true;
    const failing = below.length
      ? Object.values(result.lhr.audits)
          .filter((audit) => audit.score !== null && audit.score < 0.9 && audit.scoreDisplayMode !== 'informative')
          .map((audit) => audit.id)
      : [];
    console.log(JSON.stringify({ name: 'lighthouse', page, ...scores, ...timings, ...(failing.length ? { failing } : {}) }));
    if (process.env.LIGHTHOUSE_DETAILS) console.log(JSON.stringify(details(result.lhr.audits), null, 1));
    // The whole report, to read in Lighthouse's viewer or with jq (network requests, the dependency tree).
    if (process.env.LIGHTHOUSE_REPORT) writeFileSync(`${process.env.LIGHTHOUSE_REPORT}-${page.replace(/\W+/g, '-')}.json`, JSON.stringify(result.lhr));
  }
} finally {
  chrome.kill();
  await relay.close();
}
process.exit(failed ? 1 : 0);

/** LIGHTHOUSE_DETAILS=1: what the time went on (the LCP element and its phases, scripts' main-thread time, the long tasks). */
function details(audits: Record<string, { details?: unknown }>) {
  const items = (id: string) => (audits[id]?.details as { items?: Array<Record<string, unknown>> } | undefined)?.items ?? [];
  return {
    lcpElement: items('largest-contentful-paint-element')
      .flatMap((item) => (item.items as Array<Record<string, unknown>> | undefined) ?? [item])
      .slice(0, 4),
    bootup: items('bootup-time').map((item) => ({ url: item.url, totalMs: Math.round(Number(item.total)), scriptingMs: Math.round(Number(item.scripting)) })),
    mainThread: items('mainthread-work-breakdown').map((item) => ({ group: item.groupLabel, ms: Math.round(Number(item.duration)) })),
    longTasks: items('long-tasks').map((item) => ({ url: item.url, startMs: Math.round(Number(item.startTime)), ms: Math.round(Number(item.duration)) })),
  };
}

async function firstListing(base: string): Promise<{ id: number; address: { display: string } }> {
  const response = await fetch(`${base}/api/v1/listings?pageSize=1`);
  const body = (await response.json()) as { items: Array<{ id: number; address: { display: string } }> };
  return body.items[0]!;
}

async function firstAgent(base: string): Promise<{ id: number; slug: string }> {
  const response = await fetch(`${base}/api/v1/team`);
  const body = (await response.json()) as { items: Array<{ id: number; slug: string }> };
  return body.items[0]!;
}

async function pagePath(base: string, page: string): Promise<string> {
  if (page === 'listing.html') return `listing.html?id=${(await firstListing(base)).id}`;
  if (page === 'ssr-listing') {
    const listing = await firstListing(base);
    return `listings/${listing.id}/${addressSlug(listing.address.display)}`;
  }
  if (page === 'ssr-buy') return 'listings/buy';
  // The agent page shows one person (the team's first); the server-rendered team page and theirs (#31).
  if (page === 'agent.html') return `agent.html?id=${(await firstAgent(base)).id}`;
  if (page === 'ssr-team') return 'listings/agents';
  if (page === 'ssr-agent') {
    const agent = await firstAgent(base);
    return `listings/agents/${agent.id}/${agent.slug}`;
  }
  return page;
}
