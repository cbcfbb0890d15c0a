import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, CRM_DATE_TIME, manualClock } from './helpers.ts';

const clock = manualClock('2025-03-14T02:00:00.000Z');
let sim: RunningSimulator;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  sim = await startSimulator({ listings: 12, seed: 5, now: clock.now, requestsPerSecond: 10_000 });
  call = apiClient(sim);
});
afterAll(() => sim.close());

const isJpeg = (bytes: Uint8Array) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9;

describe('CRM simulator: photos', () => {
  it('lists 5-20 photos per listing in the reference shape, floorplans and unpublished ones included', async () => {
    let sawUnpublished = false;
    let sawFloorplan = false;
    for (const listing of sim.state.listings) {
      const { status, body } = await call(`/properties/${listing.id}/photos`);
      expect(status).toBe(200);
      expect(body.totalItems).toBeGreaterThanOrEqual(5);
      expect(body.totalItems).toBeLessThanOrEqual(20);
      for (const photo of body.items) {
        expect(photo).toMatchObject({
          id: expect.any(Number),
          filesize: expect.any(Number),
          width: expect.any(Number),
          height: expect.any(Number),
          type: expect.stringMatching(/^(Photograph|Floorplan)$/),
          url: expect.stringMatching(new RegExp(`^${sim.origin}/files/photos/${listing.id}/[0-9a-f]+\\.jpg$`)),
          filename: expect.stringMatching(/\.jpg$/),
          thumbnails: { thumb_180: expect.any(String), thumb_1024: expect.any(String) },
          published: expect.any(Boolean),
        });
        expect(photo.modified).toMatch(CRM_DATE_TIME);
        sawUnpublished ||= !photo.published;
        sawFloorplan ||= photo.type === 'Floorplan';
      }
    }
    expect(sawUnpublished).toBe(true);
    expect(sawFloorplan).toBe(true);
  });

  it('serves real JPEGs without API auth, matching the listed size, with Last-Modified', async () => {
    const listing = sim.state.listings[0]!;
    const photo = (await call(`/properties/${listing.id}/photos`)).body.items[0];
    const response = await fetch(photo.url); // no X-Api-Key, no bearer
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(response.headers.get('last-modified')).toBe(new Date(photo.modified).toUTCString());
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(isJpeg(bytes)).toBe(true);
    expect(bytes.length).toBe(photo.filesize);
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: photo.width, height: photo.height });

    const thumb = new Uint8Array(await (await fetch(photo.thumbnails.thumb_180)).arrayBuffer());
    expect((await sharp(thumb).metadata()).width).toBe(180);
    const large = new Uint8Array(await (await fetch(photo.thumbnails.thumb_1024)).arrayBuffer());
    expect((await sharp(large).metadata()).width).toBe(1024);
  });

  it('answers 304 to a revalidation with If-Modified-Since or If-None-Match', async () => {
    const photo = (await call(`/properties/${sim.state.listings[1]!.id}/photos`)).body.items[0];
    const first = await fetch(photo.url);
    await first.arrayBuffer();
    const byDate = await fetch(photo.url, { headers: { 'If-Modified-Since': first.headers.get('last-modified')! } });
    expect(byDate.status).toBe(304);
    const byTag = await fetch(photo.url, { headers: { 'If-None-Match': first.headers.get('etag')! } });
    expect(byTag.status).toBe(304);
    expect(sim.state.counters.photoNotModified).toBeGreaterThanOrEqual(2);
  });

  it('replacing a photo gives new bytes at the same URL and bumps photo and listing modified', async () => {
    const listing = sim.state.listings[2]!;
    const before = (await call(`/properties/${listing.id}/photos`)).body.items[0];
    const oldBytes = Buffer.from(await (await fetch(before.url)).arrayBuffer());
    const listingModified = listing.modified;

    clock.advance(3_600_000);
    await sim.state.replacePhoto(before.id);

    const after = (await call(`/properties/${listing.id}/photos`)).body.items[0];
    expect(after.url).toBe(before.url);
    expect(Date.parse(after.modified)).toBe(clock.now().getTime());
    expect(listing.modified).toBeGreaterThan(listingModified);
    const response = await fetch(after.url, { headers: { 'If-Modified-Since': new Date(before.modified).toUTCString() } });
    expect(response.status).toBe(200);
    expect(response.headers.get('last-modified')).toBe(clock.now().toUTCString());
    const newBytes = Buffer.from(await response.arrayBuffer());
    expect(newBytes.equals(oldBytes)).toBe(false);
    expect(isJpeg(newBytes)).toBe(true);
    expect(newBytes.length).toBe(after.filesize);
  });

  it('serves staff portraits without auth and 404s unknown files', async () => {
    const user = (await call('/account/users')).body.items.find((candidate: { photo: unknown }) => candidate.photo);
    const portrait = await fetch(user.photo.thumb_360);
    expect(portrait.status).toBe(200);
    expect((await sharp(Buffer.from(await portrait.arrayBuffer())).metadata()).width).toBe(360);
    expect((await fetch(`${sim.origin}/files/photos/1/nothing.jpg`)).status).toBe(404);
    expect((await call('/properties/1/photos')).status).toBe(404);
  });

  it('counts photo downloads', async () => {
    const before = sim.state.counters.photoDownloads;
    const photo = (await call(`/properties/${sim.state.listings[3]!.id}/photos`)).body.items[0];
    await (await fetch(photo.url)).arrayBuffer();
    expect(sim.state.counters.photoDownloads).toBe(before + 1);
  });
});
