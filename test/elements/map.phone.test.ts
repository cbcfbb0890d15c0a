import { expect, oneEvent, waitUntil } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import { listingsPlaced, mapBesideList } from './map-relay.ts';
import '../../widget/map/define.ts';
import '../../widget/listings/define.ts';
import type { EstateMap } from '../../widget/map/map.ts';

// <estate-map> on a phone (issue 30): the map/list switch beside a list, the card as a strip that
// never covers its pin or a control, full screen on the same centre, and Back leaving it.

const shadow = (el: Element) => el.shadowRoot!;
const testPageUrl = window.location.href;
const part = (el: Element, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const parts = (el: Element, name: string) => [...shadow(el).querySelectorAll<HTMLElement>(`[part~="${name}"]`)];
const urlParam = (name: string) => new URL(window.location.href).searchParams.get(name);

function centre(el: EstateMap): [number, number, number] {
  const [west, south, east, north] = el.view!.bbox.split(',').map(Number) as [number, number, number, number];
  return [(south + north) / 2, (west + east) / 2, el.view!.zoom];
}

function expectSameCentre(now: [number, number, number], before: [number, number, number], what: string): void {
  expect(now[2], `${what}: zoom`).to.be.closeTo(before[2], 0.01);
  const tolerance = 0.0005 * 2 ** (16 - before[2]);
  expect(now[0], `${what}: latitude`).to.be.closeTo(before[0], tolerance);
  expect(now[1], `${what}: longitude`).to.be.closeTo(before[1], tolerance);
}

function meet(a: DOMRect, b: DOMRect): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

async function back(): Promise<void> {
  const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
  history.back();
  await popped;
}

/** Zooms into clusters (their own click) until the map has price pins. */
async function untilPins(el: EstateMap): Promise<void> {
  for (let step = 0; step < 10 && !parts(el, 'pin').length; step++) {
    const loaded = oneEvent(el, 'estate-map-loaded');
    parts(el, 'cluster')[0]!.click();
    await loaded;
    await el.updateComplete;
  }
  expect(parts(el, 'pin').length, 'price pins').to.be.greaterThan(0);
}

describe('<estate-map> on a phone', () => {
  before(async function () {
    this.timeout(60_000);
    await listingsPlaced();
  });

  afterEach(async () => {
    history.replaceState(null, '', testPageUrl);
    await setViewport({ width: 1000, height: 900 });
  });

  it('beside a list at 390 px: a Map/List switch shows one at a time, in the URL, and Back switches back', async () => {
    await setViewport({ width: 390, height: 844 });
    const { map, list } = await mapBesideList();
    await waitUntil(() => part(map, 'phone-switch'), 'the switch');
    const mapButton = part(map, 'phone-map')!;
    const listButton = part(map, 'phone-list')!;
    expect(part(map, 'phone-switch')!.getAttribute('role')).to.equal('group');
    expect(mapButton.getAttribute('aria-pressed')).to.equal('true');
    expect(listButton.getAttribute('aria-pressed')).to.equal('false');
    expect(listButton.getBoundingClientRect().height).to.be.at.least(44);
    expect(list.getBoundingClientRect().height, 'the list hidden while the map shows').to.equal(0);
    await expect(map).to.be.accessible();
    const view = centre(map);

    listButton.click();
    await map.updateComplete;
    expect(urlParam('show')).to.equal('list');
    expect(listButton.getAttribute('aria-pressed')).to.equal('true');
    expect(list.getBoundingClientRect().height, 'the list shown').to.be.greaterThan(100);
    expect(part(map, 'stage')!.getBoundingClientRect().height, 'the map hidden').to.equal(0);
    expect(part(map, 'phone-switch')!.getBoundingClientRect().height, 'the switch stays').to.be.greaterThan(0);
    await expect(map).to.be.accessible();

    await back();
    await map.updateComplete;
    expect(urlParam('show')).to.equal(null);
    expect(mapButton.getAttribute('aria-pressed')).to.equal('true');
    expect(list.getBoundingClientRect().height).to.equal(0);
    expectSameCentre(centre(map), view, 'the map kept its view');
  });

  it('has no switch on a wide screen', async () => {
    await setViewport({ width: 1280, height: 800 });
    const { map, list } = await mapBesideList();
    expect(part(map, 'phone-switch')).to.equal(null);
    expect(list.getBoundingClientRect().height).to.be.greaterThan(100);
  });

  it('a card along the bottom never covers its pin or a control: the map pans the pin clear', async () => {
    await setViewport({ width: 390, height: 844 });
    const { map } = await mapBesideList();
    await untilPins(map);
    // The lowest pin in view, the one the card would cover.
    const pin = parts(map, 'pin').sort((a, b) => b.getBoundingClientRect().top - a.getBoundingClientRect().top)[0]!;
    const id = pin.dataset.id;
    pin.click();
    await map.updateComplete;
    const card = part(map, 'card')!;
    const controls = ['zoom-in', 'zoom-out', 'fullscreen-button', 'follow'].map((name) => part(map, name)!);
    await waitUntil(() => {
      const open = shadow(map).querySelector<HTMLElement>(`[part~="pin"][data-id="${id}"]`);
      if (!open) return false;
      const box = open.getBoundingClientRect();
      return [card, ...controls].every((other) => !meet(box, other.getBoundingClientRect()));
    }, 'the pin clear of the card and the controls');
    const cardBox = card.getBoundingClientRect();
    const stage = part(map, 'stage')!.getBoundingClientRect();
    expect(cardBox.bottom, 'a strip along the bottom').to.be.greaterThan(stage.bottom - 48);
    for (const control of controls) expect(meet(cardBox, control.getBoundingClientRect()), 'the card covers a control').to.equal(false);
    await expect(map).to.be.accessible();
  });

  it('full screen keeps the centre, offers Filters, and Back leaves it without leaving the page', async () => {
    await setViewport({ width: 390, height: 844 });
    const { map } = await mapBesideList();
    const before = centre(map);
    const entries = history.length;
    part(map, 'fullscreen-button')!.click();
    await map.updateComplete;
    expect(map.hasAttribute('fullscreen')).to.equal(true);
    expect(history.length, 'entering pushed an entry').to.equal(entries + 1);
    await waitUntil(() => part(map, 'stage')!.getBoundingClientRect().height > 800, 'the map fills the screen');
    expectSameCentre(centre(map), before, 'full screen');
    expect(part(map, 'filters-button')?.textContent?.trim()).to.equal('Filters');
    await expect(map).to.be.accessible();
    await back();
    await map.updateComplete;
    expect(map.hasAttribute('fullscreen')).to.equal(false);
    expect(window.location.href.split('?')[0]).to.equal(testPageUrl.split('?')[0]);
    await waitUntil(() => part(map, 'stage')!.getBoundingClientRect().height < 800, 'back in the page');
    expectSameCentre(centre(map), before, 'after Back');
  });
});
