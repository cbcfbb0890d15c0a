import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import { listingsPlaced, mapFixture, relayJson } from './map-relay.ts';
import '../../widget/map/define.ts';
import type { EstateMap } from '../../widget/map/map.ts';
import type { MapConfig } from '../../contract/relay-api.ts';

// <estate-map>'s labels layer (issue 30: suburb labels never hidden by pins) against the run's
// relay in demo mode, whose tiles come as the simulator's base without names and its labels-only
// layer (MAP_LABEL_TILE_URL). The names are a second tile layer above the pins and clusters,
// moving with the ground, hidden from assistive technology, and never in the way of a tap.

const shadow = (el: Element) => el.shadowRoot!;
const part = (el: Element, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const groundTiles = (el: EstateMap) => [...shadow(el).querySelectorAll<HTMLImageElement>('[part~="tiles"] .tile')];
const labelTiles = (el: EstateMap) => [...shadow(el).querySelectorAll<HTMLImageElement>('[part~="label-tiles"] .label-tile')];
const loaded = (image: HTMLImageElement) => image.complete && image.naturalWidth > 0;
/** A tile image's z/x/y, whichever layer it is of. */
const address = (image: HTMLImageElement) => /\/(\d+\/\d+\/\d+)(@2x)?\.png$/.exec(image.src)![1];

/** Replaces window.fetch for one test: the relay still answers, the wrapper may change an answer. */
function wrapFetch(wrapper: (real: typeof fetch, input: RequestInfo | URL, init?: RequestInit) => Promise<Response>): () => void {
  const real = window.fetch;
  window.fetch = (input, init) => wrapper(real, input, init);
  return () => {
    window.fetch = real;
  };
}

/** Every ground tile and every labels tile of the view in, at the same places. */
async function layersIn(el: EstateMap): Promise<void> {
  await waitUntil(
    () => {
      const ground = groundTiles(el).filter((image) => !image.classList.contains('retained'));
      const names = labelTiles(el).filter((image) => !image.classList.contains('retained'));
      return ground.length > 0 && names.length === ground.length && [...ground, ...names].every(loaded);
    },
    'the ground and its labels loaded',
    { timeout: 10_000 },
  );
}

/** The labels tile over each ground tile takes exactly its box: the two layers move as one. */
function expectInStep(el: EstateMap): void {
  const boxes = new Map(labelTiles(el).map((image) => [address(image), image.getBoundingClientRect()]));
  for (const image of groundTiles(el)) {
    if (image.classList.contains('retained')) continue;
    const over = boxes.get(address(image));
    expect(over, `a labels tile over ${address(image)}`).to.not.equal(undefined);
    const box = image.getBoundingClientRect();
    expect([over!.left, over!.top, over!.width, over!.height]).to.deep.equal([box.left, box.top, box.width, box.height]);
  }
}

describe('<estate-map> labels layer', () => {
  before(async function () {
    this.timeout(60_000);
    await listingsPlaced();
  });

  beforeEach(async () => {
    await setViewport({ width: 1000, height: 900 });
  });

  it('draws the relay’s labels tiles above the pins and clusters, in step with the ground, hidden and never taking a pointer', async () => {
    const config = await relayJson<MapConfig>('api/v1/map/config');
    expect(config.labels, 'the demo relay has a labels layer').to.equal('/tiles/labels/{z}/{x}/{y}.png');
    const el = await mapFixture();
    await expect(el).to.be.accessible();
    await layersIn(el);
    for (const image of labelTiles(el)) expect(image.src).to.match(new RegExp(`^${RELAY}/tiles/labels/\\d+/\\d+/\\d+\\.png$`));
    expect(labelTiles(el).find(loaded)!.naturalWidth).to.equal(256);
    expectInStep(el);

    const layer = part(el, 'label-tiles')!;
    expect(layer.getAttribute('aria-hidden')).to.equal('true');
    expect(getComputedStyle(layer).pointerEvents).to.equal('none');
    for (const image of labelTiles(el)) expect(getComputedStyle(image).pointerEvents).to.equal('none');

    const markers = [...shadow(el).querySelectorAll<HTMLElement>('.marker')];
    expect(markers.length, 'pins or clusters in view').to.be.greaterThan(0);
    const middle = (marker: HTMLElement) => {
      const box = marker.getBoundingClientRect();
      return [box.left + box.width / 2, box.top + box.height / 2] as const;
    };
    /** What a tap there reaches, named (chai would walk a whole element to print it). */
    const hitAt = (marker: HTMLElement) => {
      const hit = shadow(el).elementFromPoint(...middle(marker));
      return hit && marker.contains(hit) ? 'the marker' : `${hit?.tagName ?? 'nothing'}.${hit?.className ?? ''}`;
    };
    // A tap at a marker, over the labels tile that covers it, is the marker's.
    for (const marker of markers) expect(hitAt(marker), marker.getAttribute('aria-label')!).to.equal('the marker');

    // Above the markers at rest in the stacking order: made to take pointers, the labels layer is what is hit there.
    layer.style.pointerEvents = 'auto';
    try {
      for (const marker of markers) expect(hitAt(marker), `the labels over ${marker.getAttribute('aria-label')}`).to.equal('IMG.label-tile');
      // A marker focused from the keyboard (as a lit or open pin) comes above the names, its price or count whole.
      markers[0]!.focus();
      await sendKeys({ press: 'Shift' });
      expect(markers[0]!.matches(':focus-visible'), 'focus shown').to.equal(true);
      expect(hitAt(markers[0]!), 'a focused marker over the names').to.equal('the marker');
      for (const marker of markers.slice(1)) expect(hitAt(marker), 'the others under them').to.equal('IMG.label-tile');
    } finally {
      layer.style.pointerEvents = '';
    }
    expect(hitAt(markers[0]!)).to.equal('the marker');

    // Panned (an arrow key), the names stay on their ground.
    const before = el.view!.bbox;
    part(el, 'stage')!.focus();
    await sendKeys({ press: 'ArrowRight' });
    await waitUntil(() => el.view!.bbox !== before, 'panned');
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    await layersIn(el);
    expectInStep(el);
  });

  it('asks for the 512 px labels (@2x) on a high-density screen, as for the ground', async () => {
    const own = Object.getOwnPropertyDescriptor(window, 'devicePixelRatio');
    Object.defineProperty(window, 'devicePixelRatio', { value: 2, configurable: true });
    try {
      const el = await mapFixture();
      await layersIn(el);
      for (const image of labelTiles(el)) expect(image.src).to.match(new RegExp(`^${RELAY}/tiles/labels/\\d+/\\d+/\\d+@2x\\.png$`));
      expect(labelTiles(el).find(loaded)!.naturalWidth).to.equal(512);
      expectInStep(el);
    } finally {
      if (own) Object.defineProperty(window, 'devicePixelRatio', own);
      else delete (window as { devicePixelRatio?: number }).devicePixelRatio;
    }
  });

  it('draws no labels layer when the relay has none (its tiles carry their names), nor over a map without tiles', async () => {
    let answer: (config: MapConfig) => MapConfig = (config) => ({ ...config, labels: null, labels2x: null });
    const restore = wrapFetch(async (real, input, init) => {
      const response = await real(input, init);
      if (!String(input).endsWith('/api/v1/map/config')) return response;
      return new Response(JSON.stringify(answer((await response.json()) as MapConfig)), { headers: { 'Content-Type': 'application/json' } });
    });
    try {
      const plain = await mapFixture();
      await waitUntil(() => groundTiles(plain).some(loaded), 'the ground loaded');
      expect(labelTiles(plain)).to.have.length(0);
      // Labels but no tiles: the plain ground, where the map draws its own names; no labels tiles asked for.
      answer = (config) => ({ ...config, tiles: null, tiles2x: null });
      const bare = await mapFixture();
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      expect(part(bare, 'stage')!.classList.contains('plain')).to.equal(true);
      expect(shadow(bare).querySelectorAll('img')).to.have.length(0);
    } finally {
      restore();
    }
  });
});
