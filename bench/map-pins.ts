/**
 * Part of `npm run bench -- map` (issue #30): how soon the demo's /buy page shows the map's pins on
 * a phone, warm (the widget's chunks, the tiles and the map's settings already in the browser's
 * cache from a first visit), as Lighthouse's mobile profile throttles: 412 × 915 at 2x, 150 ms
 * latency, 1.6 Mbit/s down, CPU slowed 4x. From the navigation's start to the first marker drawn
 * (a pin or a cluster in the map's shadow root, seen each animation frame), against the same load's
 * first contentful paint (the baseline, measured in the same run). Goal: pins within 1 s.
 *
 * Env: BENCH_MAP_PIN_LOADS (warm loads measured, default 7).
 */
import type { BrowserContext } from 'playwright-core';
import { listingsPlaced, startDemoSiteRig } from '../test/support/browser.ts';
import { phoneContext, PHONE_CONDITIONS, throttledPage } from './phone.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const PINS_GOAL_MS = 1_000;

/** Set before the page's scripts: when the first marker and the first contentful paint came. */
const WATCH_SCRIPT = `window.__pins = 0; window.__fcp = 0;
new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') window.__fcp = entry.startTime; })
  .observe({ type: 'paint', buffered: true });
(function look() {
  if (document.querySelector('estate-map')?.shadowRoot?.querySelector('.marker')) window.__pins = performance.now();
  else requestAnimationFrame(look);
})();`;

interface Load {
  pinsMs: number;
  fcpMs: number;
}

async function load(context: BrowserContext, url: string): Promise<Load> {
  const page = await throttledPage(context);
  await page.addInitScript(WATCH_SCRIPT);
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __pins: number }).__pins > 0, undefined, { timeout: 60_000 });
  const result = await page.evaluate(() => {
    const seen = window as unknown as { __pins: number; __fcp: number };
    return { pinsMs: seen.__pins, fcpMs: seen.__fcp };
  });
  await page.close();
  return result;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runPins(context: BenchContext): Promise<BenchFigure[]> {
  const loads = Number(process.env.BENCH_MAP_PIN_LOADS ?? 7);
  const rig = await startDemoSiteRig();
  try {
    await listingsPlaced(rig.relay.url);
    const url = `${rig.relay.url}/buy`;
    const phone = await phoneContext(rig.browser);
    const cold = await load(phone, url);
    context.note(`first (cold) visit: pins at ${Math.round(cold.pinsMs)} ms`);
    const warm: Load[] = [];
    for (let index = 0; index < loads; index++) warm.push(await load(phone, url));
    await phone.close();
    const pinsMs = median(warm.map((entry) => entry.pinsMs));
    const fcpMs = median(warm.map((entry) => entry.fcpMs));
    return [
      {
        name: 'map-pins-warm-phone',
        page: '/buy',
        pinsP50Ms: Math.round(pinsMs),
        pinsMaxMs: Math.round(Math.max(...warm.map((entry) => entry.pinsMs))),
        firstContentfulPaintP50Ms: Math.round(fcpMs),
        pinsVsFirstPaint: Number((pinsMs / fcpMs).toFixed(2)),
        coldPinsMs: Math.round(cold.pinsMs),
        loads,
        conditions: `${PHONE_CONDITIONS}, warm cache`,
        goalMs: PINS_GOAL_MS,
        withinGoal: pinsMs <= PINS_GOAL_MS,
      },
    ];
  } finally {
    await rig.close();
  }
}
