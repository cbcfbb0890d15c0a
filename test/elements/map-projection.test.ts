import { expect } from '@open-wc/testing';
import {
  fitBox,
  fromScreen,
  intersectBoxes,
  MAX_LATITUDE,
  project,
  scaleOf,
  tileAddress,
  tileUrl,
  toScreen,
  unproject,
  viewAt,
  viewBox,
  wrapLongitude,
  zoomOf,
} from '../../widget/map/projection.ts';
import { suburbOf } from '../../widget/map/map.ts';

// The map's Web Mercator math (widget/map/projection.ts), against figures every web map agrees on:
// the slippy-map tile numbers of OpenStreetMap's wiki for a place at a zoom.

/** OpenStreetMap's tile number for a longitude and latitude at a zoom (the wiki's formula, as written there). */
function osmTile(lng: number, lat: number, zoom: number): [number, number] {
  const n = 2 ** zoom;
  const rad = (lat * Math.PI) / 180;
  return [Math.floor(((lng + 180) / 360) * n), Math.floor(((1 - Math.asinh(Math.tan(rad)) / Math.PI) / 2) * n)];
}

const close = (actual: number, expected: number, within = 1e-9) => expect(Math.abs(actual - expected), `${actual} ≈ ${expected}`).to.be.lessThan(within);

describe('map projection', () => {
  it('puts (0, 0) at the middle of the world and the edges at ±0.5', () => {
    expect(project(0, 0)).to.deep.equal([0, -0]);
    close(project(180, 0)[0], 0.5);
    close(project(-180, 0)[0], -0.5);
    close(project(0, MAX_LATITUDE)[1], -0.5, 1e-9);
    close(project(0, -MAX_LATITUDE)[1], 0.5, 1e-9);
    // Beyond Web Mercator's latitude, clamped rather than infinite.
    expect(project(0, 90)[1]).to.equal(project(0, MAX_LATITUDE)[1]);
  });

  it('round-trips longitude and latitude', () => {
    for (const [lng, lat] of [
      [145.0355, -37.8312],
      [151.2093, -33.8688],
      [-0.1276, 51.5072],
      [-179.9, 84],
    ] as const) {
      const [x, y] = project(lng, lat);
      const [lng2, lat2] = unproject(x, y);
      close(lng2, lng);
      close(lat2, lat);
    }
  });

  it('agrees with the slippy-map tile numbers (Kew, Sydney, London at several zooms)', () => {
    for (const [lng, lat] of [
      [145.0355, -37.8312],
      [151.2093, -33.8688],
      [-0.1276, 51.5072],
    ] as const) {
      for (const zoom of [3, 10, 15, 17]) {
        // A view whose world's top-left corner is at (0, 0): screen pixels / 256 are tile numbers.
        const k = scaleOf(zoom);
        const [x, y] = toScreen({ k, x: k / 2, y: k / 2 }, lng, lat);
        expect([Math.floor(x / 256), Math.floor(y / 256)]).to.deep.equal(osmTile(lng, lat, zoom));
      }
    }
  });

  it('converts zoom and scale both ways, and centres a view on a place', () => {
    expect(scaleOf(0)).to.equal(256);
    expect(zoomOf(scaleOf(12.5))).to.equal(12.5);
    const view = viewAt(145.0355, -37.8312, 14, { width: 800, height: 600 });
    const [x, y] = toScreen(view, 145.0355, -37.8312);
    close(x, 400, 1e-6);
    close(y, 300, 1e-6);
    const [lng, lat] = fromScreen(view, 400, 300);
    close(lng, 145.0355);
    close(lat, -37.8312);
  });

  it('gives the box a view shows, rounded outward, and fits a box into a view', () => {
    const size = { width: 800, height: 600 };
    const view = viewAt(145, -37.8, 12, size);
    const box = viewBox(view, size);
    const [west, north] = fromScreen(view, 0, 0);
    const [east, south] = fromScreen(view, 800, 600);
    expect(box.west).to.be.at.most(west);
    expect(box.east).to.be.at.least(east);
    expect(box.north).to.be.at.least(north);
    expect(box.south).to.be.at.most(south);
    close(box.west, west, 1e-5);
    // Five decimals at most: short, stable query parameters.
    for (const edge of Object.values(box)) expect(String(edge)).to.match(/^-?\d+(\.\d{1,5})?$/);

    const target = { west: 144.9, south: -37.9, east: 145.1, north: -37.7 };
    const fitted = fitBox(target, size, { padding: 20, minZoom: 0, maxZoom: 17 });
    const shown = viewBox(fitted, size);
    expect(shown.west).to.be.at.most(target.west);
    expect(shown.east).to.be.at.least(target.east);
    expect(shown.south).to.be.at.most(target.south);
    expect(shown.north).to.be.at.least(target.north);
    // The deepest whole zoom: one more would not fit.
    const zoom = zoomOf(fitted.k);
    expect(Number.isInteger(zoom)).to.equal(true);
    const deeper = viewBox(viewAt(145, -37.8, zoom + 1, size), size);
    expect(deeper.west > target.west || deeper.north < target.north).to.equal(true);
    // With each side's room (a map's controls): the box lands inside what is left, never under them.
    const insets = { top: 120, right: 70, bottom: 20, left: 20 };
    const clear = fitBox(target, size, { padding: insets, minZoom: 0, maxZoom: 17 });
    const [westX, northY] = toScreen(clear, target.west, target.north);
    const [eastX, southY] = toScreen(clear, target.east, target.south);
    expect(westX).to.be.at.least(insets.left - 1e-6);
    expect(northY).to.be.at.least(insets.top - 1e-6);
    expect(eastX).to.be.at.most(size.width - insets.right + 1e-6);
    expect(southY).to.be.at.most(size.height - insets.bottom + 1e-6);
    // A single point (one listing) gets the deepest zoom allowed.
    expect(zoomOf(fitBox({ west: 145, south: -37.8, east: 145, north: -37.8 }, size, { minZoom: 0, maxZoom: 16 }).k)).to.equal(16);
  });

  it('shows the whole world’s width when zoomed out past it, and wraps longitudes', () => {
    const size = { width: 1200, height: 600 };
    const box = viewBox(viewAt(0, 0, 1, size), size);
    expect([box.west, box.east]).to.deep.equal([-180, 180]);
    expect(wrapLongitude(190)).to.equal(-170);
    expect(wrapLongitude(-190)).to.equal(170);
    expect(wrapLongitude(180)).to.equal(180);
    expect(tileAddress(-1, 3, 2)).to.deep.equal({ x: 3, y: 3, z: 2 });
    expect(tileAddress(5, 3, 2)).to.deep.equal({ x: 1, y: 3, z: 2 });
    expect(tileUrl('/tiles/{z}/{x}/{y}.png', { x: 7, y: 9, z: 4 })).to.equal('/tiles/4/7/9.png');
  });

  it('intersects two boxes, or says they do not meet', () => {
    const a = { west: 144, south: -38, east: 146, north: -37 };
    expect(intersectBoxes(a, { west: 145, south: -37.5, east: 147, north: -36 })).to.deep.equal({ west: 145, south: -37.5, east: 146, north: -37 });
    expect(intersectBoxes(a, { west: 150, south: -34, east: 151, north: -33 })).to.equal(null);
  });

  it('reads a suburb from a card’s title, for the labels of a map without tiles', () => {
    expect(suburbOf('33 Example Street, Kew VIC 3101')).to.equal('Kew');
    expect(suburbOf('Ann Street, Paddington NSW')).to.equal('Paddington');
    expect(suburbOf('Box Hill North VIC')).to.equal('Box Hill North');
    expect(suburbOf('Unit 4 12')).to.equal(null);
    expect(suburbOf(null)).to.equal(null);
  });
});
