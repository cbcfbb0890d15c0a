/**
 * The phone the browser benchmarks load pages as: a 412 × 915 screen at 2x with touch, a slow 4G
 * line (150 ms latency, 1.6 Mbit/s down, 750 kbit/s up) and its CPU slowed 4x, as Lighthouse's
 * mobile profile simulates one (bench/ssr.ts, bench/map-pins.ts).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const PHONE_CONDITIONS = 'mobile 412x915 @2x, 150 ms, 1.6 Mbit/s, CPU 4x';

/** A browser context of that phone's screen (its pages share the HTTP cache: a second load is warm). */
export function phoneContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 412, height: 915 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
}

/** A new page in `context` on that phone's line and CPU. */
export async function throttledPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return page;
}
