import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/map/define.ts';
import type { EstateMap } from '../../widget/map/map.ts';
import type { MapConfig } from '../../contract/relay-api.ts';

// <estate-map>'s tiles against the real relay of the run (demo mode). The tiles of a test are
// held on the runner's own server (/__faults/<token>/hold/, test/support/fault-paths.mjs) until
// the test releases them, so it can look at the map between a zoom and its tiles' arrival.

const shadow = (el: Element) => el.shadowRoot!;
const part = (el: Element, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);

/** Replaces window.fetch for one test: the relay still answers, the wrapper may change an answer. */
function wrapFetch(wrapper: (real: typeof fetch, input: RequestInfo | URL, init?: RequestInit) => Promise<Response>): () => void {
  const real = window.fetch;
  window.fetch = (input, init) => wrapper(real, input, init);
  return () => {
    window.fetch = real;
  };
}

/**
 * The map's config with its tiles (1x and 2x) from held paths of the runner, one per zoom (the
 * zoom is in the path's token): nothing of zoom z loads until `release(z)`. On the page's other
 * host name, so held tiles never take the connections the page needs.
 */
function heldTiles(): { restore: () => void; release: (zoom: number) => Promise<void> } {
  const token = `tiles${Math.random().toString(36).slice(2)}`;
  const otherHost = new URL(location.href);
  otherHost.hostname = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  const restore = wrapFetch(async (real, input, init) => {
    const response = await real(input, init);
    if (!String(input).endsWith('/api/v1/map/config')) return response;
    const body = (await response.json()) as MapConfig;
    const held = `${otherHost.origin}/__faults/${token}-{z}/hold`;
    return new Response(JSON.stringify({ ...body, tiles: `${held}/{x}/{y}.png`, tiles2x: `${held}/{x}/{y}@2x.png` }), {
      headers: { 'Content-Type': 'application/json' },
    });
  });
  return { restore, release: async (zoom) => void (await fetch(`/__faults/${token}-${zoom}/release`, { method: 'POST' })) };
}

interface ShownTile {
  z: number;
  loaded: boolean;
  retained: boolean;
  box: DOMRect;
}

function shownTiles(el: EstateMap): ShownTile[] {
  return [...shadow(el).querySelectorAll<HTMLImageElement>('.tile')].map((image) => ({
    z: Number(/-(\d+)\/hold\//.exec(image.src)?.[1]),
    loaded: image.complete && image.naturalWidth > 0,
    retained: image.classList.contains('retained'),
    box: image.getBoundingClientRect(),
  }));
}

/** Points of the stage (a grid of 7 × 5) that no loaded tile covers: the bare background shows there. */
function holes(el: EstateMap): number {
  const stage = part(el, 'stage')!.getBoundingClientRect();
  const loaded = shownTiles(el).filter((tile) => tile.loaded);
  let count = 0;
  for (let i = 1; i <= 7; i++) {
    for (let j = 1; j <= 5; j++) {
      const x = stage.left + (stage.width * i) / 8;
      const y = stage.top + (stage.height * j) / 6;
      if (!loaded.some(({ box }) => x >= box.left && x <= box.right && y >= box.top && y <= box.bottom)) count++;
    }
  }
  return count;
}

async function mapFixture(): Promise<EstateMap> {
  const holder = await fixture<HTMLDivElement>(html`<div style="width: 800px"><estate-map relay=${RELAY}></estate-map></div>`);
  const el = holder.querySelector('estate-map')!;
  el.style.setProperty('--estate-map-height', '480px');
  await oneEvent(el, 'estate-map-loaded');
  return el;
}

/** A busy machine's tiles, over real HTTP from the relay, may take seconds: the polls wait that long (waitUntil's default is 1 s). */
const SLOW = { timeout: 15_000 };

describe('<estate-map> tiles', () => {
  beforeEach(async () => {
    await setViewport({ width: 1000, height: 900 });
  });

  it('keeps the previous zoom’s tiles, scaled, under the new ones until they have loaded: no blink', async () => {
    const tiles = heldTiles();
    try {
      const el = await mapFixture();
      await waitUntil(() => shownTiles(el).length > 0, 'tiles asked for', SLOW);
      const z = shownTiles(el)[0]!.z;
      await tiles.release(z);
      await waitUntil(() => shownTiles(el).every((tile) => tile.loaded), 'the first zoom’s tiles loaded', SLOW);
      expect(holes(el), 'the ground is covered').to.equal(0);

      part(el, 'stage')!.focus();
      const zoom = el.view!.zoom;
      await sendKeys({ press: '+' });
      await waitUntil(() => Math.abs(el.view!.zoom - (zoom + 1)) < 0.01, 'zoomed in', SLOW);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const between = shownTiles(el);
      const newer = between.filter((tile) => tile.z === z + 1);
      const older = between.filter((tile) => tile.z === z);
      expect(newer.length, 'the new zoom’s tiles are asked for').to.be.greaterThan(0);
      expect(
        newer.every((tile) => !tile.loaded),
        'and held',
      ).to.equal(true);
      expect(older.length, 'the previous zoom’s tiles are kept').to.be.greaterThan(0);
      expect(older.every((tile) => tile.retained)).to.equal(true);
      // Scaled to the new zoom: twice their size.
      for (const tile of older) expect(Math.round(tile.box.width)).to.be.within(512, 513);
      expect(holes(el), 'no hole while the new tiles load').to.equal(0);
      // Under the new ones: earlier in the layer.
      const images = [...shadow(el).querySelectorAll('.tile')];
      const lastOlder = Math.max(...images.map((image, index) => (image.classList.contains('retained') ? index : -1)));
      const firstNewer = images.findIndex((image) => !image.classList.contains('retained'));
      expect(lastOlder).to.be.lessThan(firstNewer);

      await tiles.release(z + 1);
      await waitUntil(() => shownTiles(el).every((tile) => tile.z === z + 1 && tile.loaded), 'the old tiles go once the new ones are in', SLOW);
      expect(holes(el)).to.equal(0);
    } finally {
      tiles.restore();
    }
  });

  it('draws 512 px tiles (the relay’s @2x) on a high-density screen, 256 px ones on a plain one', async () => {
    const tileImages = (el: EstateMap) => [...shadow(el).querySelectorAll<HTMLImageElement>('.tile')];
    const plain = await mapFixture();
    await waitUntil(() => tileImages(plain).some((image) => image.complete && image.naturalWidth > 0), 'tiles', SLOW);
    for (const image of tileImages(plain)) expect(image.src).to.match(new RegExp(`^${RELAY}/tiles/\\d+/\\d+/\\d+\\.png$`));
    expect(tileImages(plain).find((image) => image.naturalWidth > 0)!.naturalWidth).to.equal(256);

    const own = Object.getOwnPropertyDescriptor(window, 'devicePixelRatio');
    Object.defineProperty(window, 'devicePixelRatio', { value: 2, configurable: true });
    try {
      const dense = await mapFixture();
      await waitUntil(() => tileImages(dense).some((image) => image.complete && image.naturalWidth > 0), '2x tiles', SLOW);
      for (const image of tileImages(dense)) expect(image.src).to.match(new RegExp(`^${RELAY}/tiles/\\d+/\\d+/\\d+@2x\\.png$`));
      const loaded = tileImages(dense).find((image) => image.naturalWidth > 0)!;
      expect(loaded.naturalWidth).to.equal(512);
      // Drawn at the same size on the page: twice the pixels, the same ground.
      expect(Math.round(loaded.getBoundingClientRect().width)).to.be.within(256, 257);
    } finally {
      if (own) Object.defineProperty(window, 'devicePixelRatio', own);
      else delete (window as { devicePixelRatio?: number }).devicePixelRatio;
    }
  });
});
