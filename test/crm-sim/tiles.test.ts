// The simulator's made-up map tiles (demo mode's tile provider): 256 px tiles, and the same drawing
// at 512 px for high-density screens (`@2x`, the `{r}` of the relay's MAP_TILE_URL). They read as a
// map where the demo opens (zoom 5-6 over Sydney and Melbourne): sea beyond the coast, land inside,
// highways and the cities' names. And the same split in two layers, as real providers offer it: a
// base without names and the names alone on transparent tiles (the relay's MAP_LABEL_TILE_URL).
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tileX, tileY } from '../../contract/map-area.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { drawTile } from '../../crm-sim/tile-drawing.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ listings: 1 });
});
afterAll(async () => {
  await sim?.close();
});

/** Kew, Melbourne at zoom 14: streets and parks are drawn there. */
const TILE = '14/14788/10060';

async function tile(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${sim.origin}/tiles/${path}`, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The tile at zoom `z` over a place, as a path. */
function tileAt(z: number, latitude: number, longitude: number): string {
  return `${z}/${tileX(longitude, z)}/${tileY(latitude, z)}`;
}

/** The colour (RGB) of a zoom-`z` tile's pixel at a place, the tile fetched as `tileAt` names it. */
async function colourAt(z: number, latitude: number, longitude: number): Promise<number[]> {
  const world = 256 * 2 ** z;
  const sin = Math.sin((latitude * Math.PI) / 180);
  const x = Math.floor(((longitude + 180) / 360) * world) % 256;
  const y = Math.floor((0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * world) % 256;
  const png = (await tile(`${tileAt(z, latitude, longitude)}.png`)).bytes;
  const raw = await sharp(png).removeAlpha().extract({ left: x, top: y, width: 1, height: 1 }).raw().toBuffer();
  return [...raw];
}

/** A PNG's pixels as RGB triples. */
async function pixels(png: Buffer): Promise<Array<[number, number, number]>> {
  const raw = await sharp(png).removeAlpha().raw().toBuffer();
  const out: Array<[number, number, number]> = [];
  for (let index = 0; index < raw.length; index += 3) out.push([raw[index]!, raw[index + 1]!, raw[index + 2]!]);
  return out;
}

/** Whether a pixel is within a few levels of a colour (`#rrggbb`): the PNGs are palette-quantised. */
function near(pixel: readonly number[], hex: string): boolean {
  return pixel.every((level, index) => Math.abs(level - parseInt(hex.slice(1 + 2 * index, 3 + 2 * index), 16)) <= 6);
}

/** The share of pixels near a colour. */
function shareOf(all: Array<[number, number, number]>, hex: string): number {
  return all.filter((pixel) => near(pixel, hex)).length / all.length;
}

/** Mean difference per channel between a 2x tile halved and its 1x tile. */
async function halvedDifference(one: Buffer, two: Buffer): Promise<number> {
  const halved = await sharp(two).resize(256, 256).removeAlpha().raw().toBuffer();
  const plain = await sharp(one).removeAlpha().raw().toBuffer();
  let difference = 0;
  for (let index = 0; index < plain.length; index++) difference += Math.abs(plain[index]! - halved[index]!);
  return difference / plain.length;
}

const WATER = '#aad3df';
const LAND = '#f2efe9';

describe("the simulator's tiles", () => {
  it('draws a tile at 256 px, and at @2x the same ground at 512 px, each with its own ETag and 304', async () => {
    const one = await tile(`${TILE}.png`);
    const two = await tile(`${TILE}@2x.png`);
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(two.headers.get('content-type')).toBe('image/png');
    expect(two.headers.get('cache-control')).toBe('public, max-age=86400');
    const [metaOne, metaTwo] = await Promise.all([sharp(one.bytes).metadata(), sharp(two.bytes).metadata()]);
    expect([metaOne.width, metaOne.height]).toEqual([256, 256]);
    expect([metaTwo.width, metaTwo.height]).toEqual([512, 512]);
    // The same drawing: the 2x tile halved is the 1x tile, within the antialiasing of its lines.
    expect(await halvedDifference(one.bytes, two.bytes)).toBeLessThan(4);
    expect(two.headers.get('etag')).not.toBe(one.headers.get('etag'));
    expect((await tile(`${TILE}@2x.png`, { 'If-None-Match': two.headers.get('etag')! })).status).toBe(304);
    expect((await tile(`${TILE}@3x.png`)).status).toBe(404);
  });

  it('reads as a map where the demo opens: sea east of Sydney and south of Melbourne, land inland, roads and names', async () => {
    // Zoom 5: a tile of the Tasman Sea east of Sydney, one of inland Australia west of it.
    const tasman = await tile(`${tileAt(5, -33.9, 160)}.png`);
    const inland = await tile(`${tileAt(5, -31, 140)}.png`);
    expect([tasman.status, inland.status]).toEqual([200, 200]);
    expect(shareOf(await pixels(tasman.bytes), WATER)).toBeGreaterThan(0.95);
    expect(shareOf(await pixels(inland.bytes), LAND)).toBeGreaterThan(0.95);
    // Zoom 6, on either side of the coast: sea east of Sydney and south of Melbourne, land behind them.
    for (const [latitude, longitude, colour] of [
      [-33.87, 152.2, WATER],
      [-32.5, 150.8, LAND],
      [-38.8, 145.0, WATER],
      [-37.0, 146.8, LAND],
    ] as const) {
      const pixel = await colourAt(6, latitude, longitude);
      expect(near(pixel, colour), `${latitude}, ${longitude} is ${pixel.join()}, not ${colour}`).toBe(true);
    }
    // Zoom 6 over Sydney, the map's opening zoom: the coast, the highways and the city's name.
    const sydney = tileAt(6, -33.87, 151.21);
    const one = await tile(`${sydney}.png`);
    const all = await pixels(one.bytes);
    expect(shareOf(all, WATER)).toBeGreaterThan(0.1);
    expect(shareOf(all, LAND)).toBeGreaterThan(0.3);
    expect(new Set(all.map((pixel) => pixel.join())).size).toBeGreaterThan(8);
    // A name's dark letters (and its dot) are drawn: the text renders here.
    expect(all.filter((pixel) => pixel.every((level) => level < 90)).length).toBeGreaterThan(30);
    // The @2x tile draws the same at twice the size, names and coast included.
    const two = await tile(`${sydney}@2x.png`);
    expect(await halvedDifference(one.bytes, two.bytes)).toBeLessThan(6);
    // Zoom 13 over Paddington: the suburb is named where the listings are.
    const suburb = await pixels((await tile(`${tileAt(13, -33.8842, 151.2268)}.png`)).bytes);
    expect(suburb.filter((pixel) => pixel.every((level) => level < 110)).length).toBeGreaterThan(30);
  });

  it('splits a tile in two layers: the ground without names (/tiles/base/…) and the names alone on a transparent tile (/tiles/labels/…)', async () => {
    // Zoom 13 over Paddington: a suburb's name on streets and parks.
    const at = `${tileAt(13, -33.8842, 151.2268)}`;
    const all = await tile(`${at}.png`);
    const base = await tile(`base/${at}.png`);
    const labels = await tile(`labels/${at}.png`);
    expect([all.status, base.status, labels.status]).toEqual([200, 200, 200]);
    expect(labels.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(new Set([all, base, labels].map((answer) => answer.headers.get('etag'))).size).toBe(3);
    expect((await tile(`labels/${at}.png`, { 'If-None-Match': labels.headers.get('etag')! })).status).toBe(304);
    const dark = (pixels: Array<[number, number, number]>) => pixels.filter((pixel) => pixel.every((level) => level < 110)).length;
    // The base has no name's dark letters; the combined tile has them.
    expect(dark(await pixels(all.bytes))).toBeGreaterThan(30);
    expect(dark(await pixels(base.bytes))).toBe(0);
    // The labels: mostly transparent, no ground (no water, park or road colour), the name's letters opaque and dark, its halo white.
    const { data, info } = await sharp(labels.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([256, 256, 4]);
    let clear = 0;
    let letters = 0;
    let halo = 0;
    let ground = 0;
    for (let index = 0; index < data.length; index += 4) {
      const [red, green, blue, alpha] = [data[index]!, data[index + 1]!, data[index + 2]!, data[index + 3]!];
      if (alpha === 0) clear++;
      else if (alpha > 200 && red < 110 && green < 110 && blue < 110) letters++;
      else if (alpha > 200 && red > 245 && green > 245 && blue > 245) halo++;
      // (The land's colour is too near the halo's white antialiased over the letters to tell apart.)
      if (alpha > 200 && [WATER, '#d7e8c6', '#e4ddd0', '#f8d292'].some((colour) => near([red, green, blue], colour))) ground++;
    }
    expect(clear / (256 * 256)).toBeGreaterThan(0.8);
    expect(letters).toBeGreaterThan(30);
    expect(halo).toBeGreaterThan(letters);
    expect(ground).toBe(0);
    // The labels over the base are the combined tile (within the palette's quantising).
    const stacked = await sharp(base.bytes)
      .composite([{ input: labels.bytes }])
      .png()
      .toBuffer();
    const [stackedOff, baseOff] = [await halvedDifference(all.bytes, stacked), await halvedDifference(all.bytes, base.bytes)];
    expect(stackedOff).toBeLessThan(1);
    expect(baseOff).toBeGreaterThan(stackedOff * 2);
    // At 2x too, and a tile away from any name is wholly transparent.
    const labels2x = await sharp((await tile(`labels/${at}@2x.png`)).bytes).metadata();
    expect([labels2x.width, labels2x.height, labels2x.hasAlpha]).toEqual([512, 512, true]);
    // (The Southern Ocean south-west of Australia: no place named there.)
    const ocean = await sharp((await tile(`labels/${tileAt(5, -45, 100)}.png`)).bytes)
      .ensureAlpha()
      .raw()
      .toBuffer();
    expect(ocean.filter((_, index) => index % 4 === 3 && ocean[index] !== 0).length).toBe(0);
    expect((await tile(`labels/${at}@3x.png`)).status).toBe(404);
    expect((await tile(`other/${at}.png`)).status).toBe(404);
  });

  it('draws the same bytes for the same tile each time', async () => {
    const [z, x, y] = tileAt(6, -37.81, 144.96).split('/').map(Number) as [number, number, number];
    const served = await tile(`${z}/${x}/${y}.png`);
    expect(Buffer.compare(served.bytes, await drawTile(z, x, y, 1))).toBe(0);
    expect(Buffer.compare(await drawTile(z, x, y, 2), await drawTile(z, x, y, 2))).toBe(0);
  });
});
