import { describe, expect, it } from 'vitest';
import { getJson, startIntegratorRig, type IntegratorRig } from '../support/integrator-rig.ts';

/*
 * A cold start of many agencies, small (issue 23; `npm run bench -- integrator` measures 200 × 100
 * at 10 requests a second): twelve agencies of three sizes on one simulator key, one relay serving
 * them from an AGENCIES_FILE with its workers running, everything over real HTTP. The relay fills
 * agencies never filled one after another at the key's gate, the smallest first; the same start
 * with the agencies in turns (firstFillOrder: false, the order before) is the baseline.
 *
 * Compressed: the key allows 3 requests a second, not 10. An agency's sync asks one page at a
 * time, so each takes one of the slots that free together: about as many agencies fill at once as
 * the key allows requests a second (10 of 200 in the bench); 3 of 12 here shows the same order.
 */

/** Listings per agency, in file order: the sizes are mixed so that file order is not size order. */
const SIZES = [30, 3, 12, 30, 3, 12, 30, 3, 12, 30, 3, 12];

/** Seconds from start until each agency serves (its /a/<slug>/readyz: the listing cache filled), by file index. */
async function fillTimes(rig: IntegratorRig): Promise<number[]> {
  const started = performance.now();
  const filledAt: Array<number | undefined> = rig.agencies.map(() => undefined);
  while (filledAt.some((at) => at === undefined)) {
    if (performance.now() - started > 240_000) throw new Error(`not filled after 240 s: ${JSON.stringify(filledAt)}`);
    await Promise.all(
      rig.agencies.map(async (agency, index) => {
        if (filledAt[index] === undefined && (await getJson(`${rig.relay.url}/a/${agency.slug}/readyz`)).status === 200)
          filledAt[index] = (performance.now() - started) / 1000;
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return filledAt as number[];
}

async function coldStart(firstFillOrder: boolean): Promise<number[]> {
  const rig = await startIntegratorRig({
    agencies: SIZES.length,
    listings: SIZES[0]!,
    listingsEach: SIZES,
    requestsPerSecond: 3,
    firstFillOrder,
    dataDirPrefix: 'estate-first-fill-',
  });
  try {
    return await fillTimes(rig);
  } finally {
    await rig.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const bySize = (times: number[], size: number) => times.filter((_, index) => SIZES[index] === size);

describe('a cold start of many agencies: the small first', () => {
  it('fills the smaller agencies before the larger ones, and has the median agency serving well before the all-in-turns start', async () => {
    const ordered = await coldStart(true);
    const inTurns = await coldStart(false);
    const report = JSON.stringify({ ordered, inTurns });

    // The smaller agencies serve first: each size's median before the next's, and every small one before any large one.
    expect(median(bySize(ordered, 3)), report).toBeLessThan(median(bySize(ordered, 12)));
    expect(median(bySize(ordered, 12)), report).toBeLessThan(median(bySize(ordered, 30)));
    expect(Math.max(...bySize(ordered, 3)), report).toBeLessThan(Math.min(...bySize(ordered, 30)));
    // In turns every agency fills near the end, together; in order the median is serving much earlier.
    expect(median(ordered), report).toBeLessThan(median(inTurns) * 0.75);
    // The first serves within seconds, and the last not much later than in turns.
    expect(Math.min(...ordered), report).toBeLessThan(Math.min(...inTurns));
    expect(Math.max(...ordered), report).toBeLessThan(Math.max(...inTurns) * 1.25 + 3);
  }, 600_000);
});
