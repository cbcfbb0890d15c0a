import { afterEach, describe, expect, it } from 'vitest';
import { crmListings, getJson, isOnSale, startIntegratorRig, type IntegratorRig, type RigAgency } from '../support/integrator-rig.ts';

/*
 * A fleet's cold start (issue 33): one relay, agencies of their own sizes on one simulator key, over
 * real HTTP, the key allowing 3 requests a second (so that the order shows). Each agency serves (its listing API lists its listings) as soon as its own CRM requests
 * are through, the smaller first; its photos are mirrored after, while it already serves. The
 * largest agency's photos come slowly from the file host here (PHOTO_DELAY_MS each), so an agency
 * that waited for its photos before serving would serve only once they are all in.
 */

/** Listings per agency, in file order: the first (the simulator's own account, whose files the fault slows) is the largest. */
const SIZES = [24, 3, 3, 3];
const PHOTO_DELAY_MS = 4_000;

interface Card {
  id: number;
  photo: { url: string } | null;
  photoCount: number;
}

const cards = async (agency: RigAgency) => (await getJson<{ items: Card[] }>(`${agency.api}/listings?type=sale&pageSize=50`)).body.items;

let rig: IntegratorRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('a fleet’s first fill: listings before photos, the smaller agencies first', () => {
  it('serves every agency, the largest last, while the largest one’s photos are still on their way; they follow', async () => {
    rig = await startIntegratorRig({
      agencies: SIZES.length,
      listings: SIZES[0]!,
      listingsEach: SIZES,
      requestsPerSecond: 3,
      dataDirPrefix: 'estate-fleet-first-fill-',
    });
    await rig.sim.control('/faults', { method: 'POST', body: { match: '/files/photos/**', latencyMs: PHOTO_DELAY_MS } });
    const forSale = await Promise.all(rig.agencies.map(async (agency) => (await crmListings(rig!, agency)).filter(isOnSale).length));
    // Serving: the listing API answers (not "filling") and lists every listing for sale.
    const serves = async (agency: RigAgency, index: number) => {
      const { status, body } = await getJson<{ total?: number }>(`${agency.api}/listings?type=sale&pageSize=1`);
      return status === 200 && (body.total ?? 0) >= forSale[index]!;
    };
    const started = performance.now();
    const servedAt: Array<number | undefined> = SIZES.map(() => undefined);
    // The largest agency's cards at the moment it first serves.
    let firstAnswer: Card[] | undefined;
    while (servedAt.some((at) => at === undefined)) {
      if (performance.now() - started > 120_000) throw new Error(`not all served after 120 s: ${JSON.stringify(servedAt)}`);
      await Promise.all(
        rig.agencies.map(async (agency, index) => {
          if (servedAt[index] !== undefined || !(await serves(agency, index))) return;
          servedAt[index] = (performance.now() - started) / 1000;
          if (index === 0) firstAnswer = await cards(agency);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const report = JSON.stringify({ forSale, servedAt, photoCounts: firstAnswer?.map((card) => card.photoCount) });

    // The smaller agencies serve before the largest.
    expect(Math.max(...servedAt.slice(1).map(Number)), report).toBeLessThan(servedAt[0]!);
    // The largest serves its listings with its photos still coming: a card says it has none yet
    // (no photo, a count of 0: the widget shows its placeholder), never a photo that is not there.
    expect(firstAnswer!.length, report).toBeGreaterThan(0);
    expect(
      firstAnswer!.some((card) => card.photo === null && card.photoCount === 0),
      report,
    ).toBe(true);
    for (const card of firstAnswer!) expect(card.photo === null, report).toBe(card.photoCount === 0);
    const detail = await getJson<{ photos: unknown[] }>(`${rig.agencies[0]!.api}/listings/${firstAnswer!.find((card) => card.photo === null)!.id}`);
    expect(detail.status).toBe(200);
    expect(Array.isArray(detail.body.photos)).toBe(true);

    // Then the photos follow.
    const deadline = performance.now() + 120_000;
    let latest = await cards(rig.agencies[0]!);
    while (latest.some((card) => card.photo === null) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      latest = await cards(rig.agencies[0]!);
    }
    expect(
      latest.every((card) => card.photo !== null && card.photoCount > 0),
      JSON.stringify(latest),
    ).toBe(true);
  }, 300_000);
});
