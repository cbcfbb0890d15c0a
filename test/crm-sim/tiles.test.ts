// The simulator's plain map tiles (demo mode's tile provider): 256 px tiles, and the same drawing
// at 512 px for high-density screens (`@2x`, the `{r}` of the relay's MAP_TILE_URL).
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';

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
    const halved = await sharp(two.bytes).resize(256, 256).removeAlpha().raw().toBuffer();
    const plain = await sharp(one.bytes).removeAlpha().raw().toBuffer();
    let difference = 0;
    for (let index = 0; index < plain.length; index++) difference += Math.abs(plain[index]! - halved[index]!);
    expect(difference / plain.length).toBeLessThan(4);
    expect(two.headers.get('etag')).not.toBe(one.headers.get('etag'));
    expect((await tile(`${TILE}@2x.png`, { 'If-None-Match': two.headers.get('etag')! })).status).toBe(304);
    expect((await tile(`${TILE}@3x.png`)).status).toBe(404);
  });
});
