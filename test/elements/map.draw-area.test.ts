import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import { listingsPlaced, relayJson } from './map-relay.ts';
import '../../widget/map/define.ts';
import '../../widget/listings/define.ts';
import '../../widget/saved-search/define.ts';
import type { AreaSuburbs } from '../../contract/saved-search-area.ts';
import type { EstateMap } from '../../widget/map/map.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import { DRAWN_CORNERS_MAX } from '../../widget/map/draw-session.ts';
import { defaultMapStrings } from '../../widget/map/strings.ts';
import { inArea, parseArea, type AreaPoint } from '../../contract/drawn-area.ts';
import type { ListingMap, ListingSummary } from '../../contract/relay-api.ts';

// "Draw an area" on <estate-map> (issue 30): with the keyboard's cross-hair and with a pointer's
// drag; the pins and the list beside the map filter to the outline, which goes in the URL (a
// history entry) and comes off it with Back.

const shadow = (el: Element) => el.shadowRoot!;
const testPageUrl = window.location.href;
const part = (el: Element, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const urlParam = (name: string) => new URL(window.location.href).searchParams.get(name);

async function back(): Promise<void> {
  const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
  history.back();
  await popped;
}

/**
 * A box centred on the median listing holding its 12 nearest neighbours: the map shows it with that
 * listing in the middle (inside any outline drawn around the middle) and others near the edges
 * (outside one).
 */
async function busyBox(): Promise<string> {
  const answer = await relayJson<ListingMap>('api/v1/listings/map?bbox=-180,-90,180,90&zoom=20');
  const coordinates = answer.features.map((feature) => feature.geometry.coordinates);
  const [lng, lat] = [...coordinates].sort((a, b) => a[0] - b[0])[Math.floor(coordinates.length / 2)]!;
  const nearest = [...coordinates].sort((a, b) => Math.hypot(a[0] - lng, a[1] - lat) - Math.hypot(b[0] - lng, b[1] - lat)).slice(0, 13);
  const dx = Math.max(...nearest.map((c) => Math.abs(c[0] - lng))) * 1.05;
  const dy = Math.max(...nearest.map((c) => Math.abs(c[1] - lat))) * 1.05;
  return [lng - dx, lat - dy, lng + dx, lat + dy].map((n) => n.toFixed(5)).join(',');
}

/** The list's last page, as its load event says. */
interface Shown {
  total: number;
  items: ListingSummary[];
}

/** A map above a list, both showing the busy box (the box applied: the list does not follow each move). */
async function mapAndList(): Promise<{ map: EstateMap; list: EstateListings; shown: Shown }> {
  const bbox = await busyBox();
  const holder = await fixture<HTMLDivElement>(
    html`<div style="width: 900px">
      <estate-map relay=${RELAY} bbox=${bbox} no-follow></estate-map>
      <estate-listings relay=${RELAY} bbox=${bbox} filters page-size="100"></estate-listings>
    </div>`,
  );
  const map = holder.querySelector('estate-map')!;
  map.style.setProperty('--estate-map-height', '480px');
  const list = holder.querySelector('estate-listings')!;
  const shown: Shown = { total: -1, items: [] };
  list.addEventListener('estate-listings-loaded', (event) => Object.assign(shown, { total: event.detail.total, items: event.detail.items }));
  await Promise.all([oneEvent(map, 'estate-map-loaded'), list.loadComplete]);
  await map.updateComplete;
  await waitUntil(() => shown.total >= 0, 'the list loaded');
  return { map, list, shown };
}

/** The pins' and clusters' positions, and the list's cards', all inside the outline. */
function expectAllInside(map: EstateMap, shown: Shown, area: AreaPoint[]): void {
  expect(map.features.length, 'pins inside').to.be.greaterThan(0);
  for (const feature of map.features) {
    const [lng, lat] = feature.geometry.coordinates;
    expect(inArea(area, lat, lng), `pin ${feature.properties.id} inside`).to.equal(true);
  }
  const items = shown.items;
  expect(items.length, 'cards inside').to.be.greaterThan(0);
  for (const card of items) expect(card.position && inArea(area, card.position.lat, card.position.lng), `card ${card.id} inside`).to.equal(true);
}

const drawnArea = (): AreaPoint[] => parseArea(urlParam('area') ?? '') as AreaPoint[];

describe('<estate-map> Draw an area', () => {
  before(async function () {
    this.timeout(60_000);
    await listingsPlaced();
  });
  beforeEach(async () => {
    await setViewport({ width: 1000, height: 900 });
  });
  afterEach(() => {
    history.replaceState(null, '', testPageUrl);
  });

  it('draws with the keyboard: a cross-hair, Enter for corners, Enter on the first closes; announced; the pins and list filter; Back removes it', async () => {
    const { map, list, shown } = await mapAndList();
    const totalBefore = shown.total;
    await expect(map).to.be.accessible();
    part(map, 'draw-area')!.focus();
    await sendKeys({ press: 'Enter' });
    // The drawing's code is fetched on the first press.
    await waitUntil(() => part(map, 'draw-surface'), 'the drawing surface');
    const surface = part(map, 'draw-surface')!;
    await waitUntil(() => shadow(map).activeElement === surface, 'the surface focused');
    expect(shadow(map).querySelector('[role="status"]')!.textContent).to.contain(defaultMapStrings.drawingStarted);
    await expect(map).to.be.accessible();
    const entries = history.length;

    // A square 200 px a side around the middle: up-left, right, down, left, then up onto the first corner.
    const press = async (key: string, times: number) => {
      const [modifier, name] = key.includes('+') ? key.split('+') : [null, key];
      if (modifier) await sendKeys({ down: modifier });
      for (let i = 0; i < times; i++) await sendKeys({ press: name! });
      if (modifier) await sendKeys({ up: modifier });
    };
    await press('Shift+ArrowUp', 2);
    await press('Shift+ArrowLeft', 2);
    await sendKeys({ press: 'Enter' });
    await map.updateComplete;
    expect(shadow(map).querySelector('[role="status"]')!.textContent).to.contain('Corner 1 added');
    await press('Shift+ArrowRight', 4);
    await sendKeys({ press: 'Space' });
    await press('Shift+ArrowDown', 4);
    await sendKeys({ press: 'Enter' });
    // A corner too many, taken back.
    await press('ArrowLeft', 3);
    await sendKeys({ press: 'Enter' });
    await sendKeys({ press: 'Backspace' });
    await map.updateComplete;
    expect(shadow(map).querySelector('[role="status"]')!.textContent).to.contain('3 left');
    await press('ArrowRight', 3);
    await press('Shift+ArrowLeft', 4);
    await sendKeys({ press: 'Enter' });
    await press('Shift+ArrowUp', 4);
    await map.updateComplete;
    expect(shadow(map).querySelector('[role="status"]')!.textContent).to.contain(defaultMapStrings.onFirstCorner);
    const loaded = oneEvent(map, 'estate-map-loaded');
    await sendKeys({ press: 'Enter' });
    await loaded;

    expect(part(map, 'draw-surface'), 'drawing over').to.equal(null);
    expect(history.length, 'one new entry').to.equal(entries + 1);
    const area = drawnArea();
    expect(area).to.have.length(4);
    expect(map.area).to.equal(urlParam('area'));
    await waitUntil(() => list.area === urlParam('area') && shown.total < totalBefore, 'the list filtered to the area');
    await list.loadComplete;
    await waitUntil(() => map.features.every((f) => inArea(area, f.geometry.coordinates[1], f.geometry.coordinates[0])), 'the pins filtered');
    expectAllInside(map, shown, area);
    // The outline over the map, and focus on "Remove area".
    expect(shadow(map).querySelector('polygon.drawn-area')!.getAttribute('points')!.split(' ')).to.have.length(4);
    expect(shadow(map).activeElement).to.equal(part(map, 'remove-area'));
    await waitUntil(() => shadow(map).querySelector('[role="status"]')!.textContent!.startsWith(defaultMapStrings.areaDrawn), 'announced with its count');
    await expect(map).to.be.accessible();

    await back();
    await waitUntil(() => map.area === null && list.area === null, 'Back removes the area');
    await waitUntil(() => shown.total === totalBefore, 'the list as before');
    expect(shadow(map).querySelector('polygon.drawn-area')).to.equal(null);
    expect(part(map, 'draw-area')).to.not.equal(null);
  });

  it('draws with a pointer: a freehand drag, simplified, closes the outline; Remove area removes it; Escape cancels a drawing', async () => {
    const { map, list, shown } = await mapAndList();
    const totalBefore = shown.total;
    part(map, 'draw-area')!.click();
    await waitUntil(() => part(map, 'draw-surface'), 'the drawing surface');
    const surface = part(map, 'draw-surface')!;
    const box = surface.getBoundingClientRect();
    const [cx, cy] = [box.left + box.width / 2, box.top + box.height / 2];
    const pointer = (type: string, x: number, y: number) =>
      surface.dispatchEvent(
        new PointerEvent(type, {
          clientX: x,
          clientY: y,
          pointerId: 7,
          pointerType: 'touch',
          isPrimary: true,
          bubbles: true,
          composed: true,
          cancelable: true,
        }),
      );
    // A wobbly circle of 300 points, 130 px across.
    pointer('pointerdown', cx + 130, cy);
    for (let i = 1; i <= 300; i++) {
      const angle = (2 * Math.PI * i) / 300;
      const radius = 130 + 6 * Math.sin(angle * 17);
      pointer('pointermove', cx + radius * Math.cos(angle), cy + radius * Math.sin(angle));
    }
    const loaded = oneEvent(map, 'estate-map-loaded');
    pointer('pointerup', cx + 130, cy);
    await loaded;
    const area = drawnArea();
    expect(area.length).to.be.within(8, DRAWN_CORNERS_MAX);
    await waitUntil(() => list.area === urlParam('area'), 'the list has the area');
    await waitUntil(() => shown.total < totalBefore, `the list filtered (${shown.total} of ${totalBefore})`);
    await list.loadComplete;
    await waitUntil(() => map.features.every((f) => inArea(area, f.geometry.coordinates[1], f.geometry.coordinates[0])), 'the pins filtered');
    expectAllInside(map, shown, area);

    // Remove area: the list shows what it did (the map's applied box), and it is a history entry.
    const entries = history.length;
    part(map, 'remove-area')!.click();
    await waitUntil(() => urlParam('area') === null && list.area === null, 'removed');
    expect(history.length).to.equal(entries + 1);
    await waitUntil(() => shown.total === totalBefore, 'the list as before');

    // Escape while drawing: nothing applied, focus back on the button.
    part(map, 'draw-area')!.click();
    await waitUntil(() => part(map, 'draw-surface'), 'the drawing surface');
    part(map, 'draw-surface')!.focus();
    await sendKeys({ press: 'Enter' });
    await sendKeys({ press: 'Escape' });
    await map.updateComplete;
    expect(part(map, 'draw-surface')).to.equal(null);
    expect(urlParam('area')).to.equal(null);
    expect(shadow(map).activeElement).to.equal(part(map, 'draw-area'));
  });

  it('draws across the antimeridian: corners within ±180°, one outline on the map', async () => {
    // The Chatham Islands' side of 180°, at a zoom where 200 px span about a degree.
    history.replaceState(null, '', '?view=-44.00000,180.00000,9.00');
    const holder = await fixture<HTMLDivElement>(html`<div style="width: 900px"><estate-map relay=${RELAY}></estate-map></div>`);
    const map = holder.querySelector('estate-map')!;
    map.style.setProperty('--estate-map-height', '480px');
    await oneEvent(map, 'estate-map-loaded');
    await map.updateComplete;
    part(map, 'draw-area')!.click();
    await waitUntil(() => part(map, 'draw-surface'), 'the drawing surface');
    part(map, 'draw-surface')!.focus();
    const press = async (key: string, times: number) => {
      await sendKeys({ down: 'Shift' });
      for (let i = 0; i < times; i++) await sendKeys({ press: key });
      await sendKeys({ up: 'Shift' });
    };
    // A square 200 px a side around 180°: up-left, right, down, left.
    await press('ArrowUp', 2);
    await press('ArrowLeft', 2);
    await sendKeys({ press: 'Enter' });
    await press('ArrowRight', 4);
    await sendKeys({ press: 'Enter' });
    await press('ArrowDown', 4);
    await sendKeys({ press: 'Enter' });
    await press('ArrowLeft', 4);
    await sendKeys({ press: 'Enter' });
    await press('ArrowUp', 4);
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => urlParam('area') !== null, 'the area applied');
    const area = drawnArea();
    expect(area, urlParam('area') ?? '').to.have.length(4);
    // Both sides of 180°, every longitude as the relay takes it.
    expect(area.some((corner) => corner.lng > 179)).to.equal(true);
    expect(area.some((corner) => corner.lng < -179)).to.equal(true);
    for (const corner of area) expect(Math.abs(corner.lng)).to.be.at.most(180);
    expect(inArea(area, -44, 180)).to.equal(true);
    expect(inArea(area, -44, -179.9)).to.equal(true);
    expect(inArea(area, -44, 0)).to.equal(false);
    // The outline drawn as the 200 px square it was, not stretched round the world.
    await map.updateComplete;
    const xs = shadow(map)
      .querySelector('polygon.drawn-area')!
      .getAttribute('points')!
      .split(' ')
      .map((point) => Number(point.split(',')[0]));
    expect(Math.max(...xs) - Math.min(...xs)).to.be.within(190, 210);
  });

  it('shows an area its URL names, and refuses a finish with fewer than 3 corners', async () => {
    const bbox = await busyBox();
    const [west, south, east, north] = bbox.split(',').map(Number) as [number, number, number, number];
    const area = `${north},${west};${north},${east};${south},${((west + east) / 2).toFixed(5)}`;
    history.replaceState(null, '', `?area=${area}`);
    const holder = await fixture<HTMLDivElement>(html`<div style="width: 900px"><estate-map relay=${RELAY}></estate-map></div>`);
    const map = holder.querySelector('estate-map')!;
    await oneEvent(map, 'estate-map-loaded');
    await map.updateComplete;
    expect(map.area).to.equal(area);
    expect(shadow(map).querySelector('polygon.drawn-area')).to.not.equal(null);
    expect(part(map, 'remove-area')).to.not.equal(null);

    history.replaceState(null, '', testPageUrl);
    part(map, 'remove-area')!.click();
    await waitUntil(() => part(map, 'draw-area'), 'removed');
    part(map, 'draw-area')!.click();
    await waitUntil(() => part(map, 'draw-finish'), 'drawing');
    part(map, 'draw-finish')!.click();
    await map.updateComplete;
    expect(shadow(map).querySelector('[role="status"]')!.textContent).to.contain(defaultMapStrings.areaTooSmall);
    expect(part(map, 'draw-surface')).to.not.equal(null);
  });

  it('offers alerts for a drawn area as the suburbs it covers, and says so', async () => {
    const [west, south, east, north] = (await busyBox()).split(',').map(Number) as [number, number, number, number];
    const area = [
      [north, west],
      [north, east],
      [south, east],
      [south, west],
    ]
      .map(([lat, lng]) => `${lat!.toFixed(5)},${lng!.toFixed(5)}`)
      .join(';');
    const covered = await relayJson<AreaSuburbs>(`api/v1/suburbs?area=${area}`);
    expect(covered.items.length).to.be.greaterThan(0);
    const el = await fixture<HTMLElement>(html`<estate-saved-search relay=${RELAY} .search=${{ type: 'sale', area }}></estate-saved-search>`);
    await waitUntil(() => shadow(el).textContent!.includes('(the suburbs your area covers)'), 'the suburbs named');
    const text = shadow(el).textContent!.replace(/\s+/g, ' ');
    for (const suburb of covered.items) expect(text).to.contain(suburb.name);
    await expect(el).to.be.accessible();
  });
});
