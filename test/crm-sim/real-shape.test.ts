import { readRealRecords } from '../support/real-records.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crmPhotoSchema, crmPropertySchema } from '../../server/crm/schemas.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, manualClock, type ApiResponse } from './helpers.ts';

/*
 * The simulator must look like the CRM where the relay reads it: the same fields present, null
 * where real answers have nulls (and never null where they never are), the same statuses, photos
 * inline. Compared against one page of a real agency's sold list (anonymised, see
 * test/contract/fixtures/), so the next gap between the two shows up here.
 */

type Item = Record<string, unknown>;
const real = (JSON.parse(readRealRecords()) as { items: Item[] }).items;

const clock = manualClock('2025-03-14T02:00:00.000Z');
// Three accounts on the key: each is seeded on its own and must look like the real records.
const ACCOUNTS = 3;
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ listings: 160, seed: 7, now: clock.now, requestsPerSecond: 10_000, agencies: ACCOUNTS });
});
afterAll(() => sim.close());

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** For each field the relay reads: whether real records carry it, can hold null, and what else it holds. */
function profile(items: Item[], keys: string[]) {
  return Object.fromEntries(
    keys.map((key) => {
      const present = items.filter((item) => Object.hasOwn(item, key));
      return [
        key,
        {
          always: present.length === items.length,
          never: present.length === 0,
          nullable: present.some((item) => item[key] === null),
          nonNull: present.some((item) => item[key] !== null),
          kinds: [...new Set(present.map((item) => kind(item[key])).filter((type) => type !== 'null'))].sort(),
        },
      ];
    }),
  );
}

describe.each(Array.from({ length: ACCOUNTS }, (_, index) => index))('CRM simulator account %i against real v1.3 records', (accountIndex) => {
  let call: (path: string) => Promise<ApiResponse>;
  let sold: Item[];
  let available: Item[];
  let leased: Item[];

  beforeAll(async () => {
    const token = sim.key.accounts[accountIndex]!.options.accessToken;
    const client = apiClient(sim);
    call = (path) => client(path, { token });
    sold = (await call('/properties/residential/sale/sold?published=true&pagesize=100')).body.items;
    available = (await call('/properties/residential/sale/available?published=true&pagesize=100')).body.items;
    leased = (await call('/properties/residential/lease?status=management&published=true&pagesize=100')).body.items;
  });

  it('carries every field the relay reads that real records carry, with the same null-ability and types', () => {
    expect(sold.length).toBeGreaterThan(5);
    const keys = Object.keys(crmPropertySchema.shape);
    const realProfile = profile(real, keys);
    const soldProfile = profile(sold, keys);
    const anySaleProfile = profile([...sold, ...available], keys);
    const differences: string[] = [];
    for (const key of keys) {
      const want = realProfile[key]!;
      if (want.never) continue;
      const got = soldProfile[key]!;
      if (want.always && !got.always) differences.push(`${key}: missing on some simulated records`);
      if (!want.nullable && got.nullable) differences.push(`${key}: null in the simulator, never in real records`);
      if (want.nullable && !anySaleProfile[key]!.nullable) differences.push(`${key}: never null in the simulator, null in some real records`);
      if (want.nonNull && got.nonNull && got.kinds.join() !== want.kinds.join())
        differences.push(`${key}: ${got.kinds.join('|')} in the simulator, ${want.kinds.join('|')} in real records`);
    }
    const photoKeys = Object.keys(crmPhotoSchema.shape);
    const realPhotos = profile(
      real.flatMap((item) => item.photos as Item[]),
      photoKeys,
    );
    const simPhotos = profile(
      sold.flatMap((item) => item.photos as Item[]),
      photoKeys,
    );
    for (const key of photoKeys) {
      const want = realPhotos[key]!;
      const got = simPhotos[key]!;
      if (want.always && !got.always) differences.push(`photos[].${key}: missing on some simulated photos`);
      if (want.nullable !== got.nullable) differences.push(`photos[].${key}: null-ability differs`);
    }
    expect(differences).toEqual([]);
  });

  it('list items carry their photos inline, as real ones do, published and unpublished alike', () => {
    for (const item of [...sold, ...available, ...leased]) expect(item.photos).toEqual(expect.any(Array));
    const photos = available.flatMap((item) => item.photos as Item[]);
    expect(photos.length).toBeGreaterThan(0);
    expect(photos.some((photo) => photo.published === false)).toBe(true);
    for (const photo of photos)
      expect(photo).toMatchObject({ url: expect.any(String), modified: expect.any(String), width: expect.any(Number), height: expect.any(Number) });
  });

  it('uses the real statuses per list, null publishedToWeb on available listings, saleDetails on sold records', () => {
    expect(new Set(real.map((item) => item.status))).toEqual(new Set(['unconditional', 'settled']));
    expect(new Set(sold.map((item) => item.status))).toEqual(new Set(['unconditional', 'settled']));
    expect(new Set(available.map((item) => item.status))).toEqual(new Set(['listing', 'conditional']));
    expect(available.every((item) => item.publishedToWeb === null)).toBe(true);
    expect(real.every((item) => typeof item.saleDetails === 'object' && item.saleDetails !== null)).toBe(true);
    expect(sold.every((item) => typeof item.saleDetails === 'object' && item.saleDetails !== null)).toBe(true);
    // Confidential fields are there, as in real answers: the relay's allow-list must keep them in.
    for (const field of ['internalRemarks', 'folioNumber', 'volumeNumber', 'lotNumber', 'vpa', 'agentPriceOpinion']) {
      expect(Object.hasOwn(real[0]!, field), field).toBe(true);
      expect(Object.hasOwn(sold[0]!, field), field).toBe(true);
    }
  });

  it('has leased listings for the "leased" showcase, and off-market listings the published filter leaves out', async () => {
    expect(leased.length).toBeGreaterThan(0);
    const everyCurrent = (await call('/properties/residential/sale/available?pagesize=100')).body.items as Item[];
    expect(everyCurrent.length).toBeGreaterThan(available.length);
  });
});
