import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { startAgenciesRig, syncedAgenciesRig, type AgencyFileEntry } from './rig.ts';
import { validEnquiry } from '../enquiries/support.ts';
import { onOneUtcDayFor } from '../support/test-clock.ts';

/*
 * Issue 24, item 6: under 30 SIGHUPs with 9 senders, 30 of 7,521 requests got 500 ("The database
 * connection is not open": a replaced agency's store closed under requests it was answering), and
 * a client at its 429 limit got 202s again after a reload changed its agency's origins (the
 * limiter's counts belonged to the replaced composition). Now a replaced composition's store
 * closes once its requests in flight are answered, and the per-client counts are kept per agency.
 */

const saleIdOf = (account: SimulatorState) =>
  account.listings.find(
    (listing) =>
      listing.propertyClass === 'residential' &&
      listing.publishedToWeb !== null &&
      listing.market === 'sale' &&
      ['listing', 'conditional'].includes(listing.status),
  )!.lifeId * 2;

/** The file's entries with every agency's origins changed: each reload replaces every agency. */
const withOrigins = (entries: AgencyFileEntry[], round: number) =>
  entries.map((entry) => ({ ...entry, allowedOrigins: [`https://${entry.slug}.example`, `https://round-${round}.${entry.slug}.example`] }));

describe('reloading AGENCIES_FILE under load', () => {
  const rig = syncedAgenciesRig({
    agencies: 3,
    listings: 12,
    // Every sender is one client: no per-client limit may answer for the reloads (the render limit is off).
    env: {
      ENQUIRY_RATE_LIMIT_PER_MINUTE: '100000',
      ENQUIRY_DAILY_LIMIT_PER_CLIENT: '100000',
      ENQUIRY_DAILY_BUDGET: '100000',
      UNCACHED_RENDERS_PER_MINUTE: '0',
    },
  });

  it('answers no request with a 500 through 30 reloads that replace every agency, while 9 senders post enquiries and read listings', async () => {
    const { entries, accounts } = rig();
    const original = [...entries];
    const statuses = new Map<number, number>();
    const fiveHundreds: string[] = [];
    let reloading = true;
    const sender = async (index: number) => {
      let step = 0;
      while (reloading) {
        const agency = (index + step) % original.length;
        const slug = original[agency]!.slug;
        const kind = [0, 1, 0, 2][step++ % 4]!;
        const path =
          kind === 0
            ? `/a/${slug}/api/v1/enquiries`
            : kind === 1
              ? `/a/${slug}/api/v1/listings?pageSize=24`
              : `/a/${slug}/api/v1/listings/${saleIdOf(accounts[agency]!)}`;
        const answer = await rig().request(
          path,
          kind === 0
            ? {
                method: 'POST',
                headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify(validEnquiry({ listingId: saleIdOf(accounts[agency]!) })),
              }
            : {},
        );
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status >= 500 && answer.status !== 503) fiveHundreds.push(`${answer.status} ${path}: ${answer.text.slice(0, 200)}`);
        if (answer.status === 503) expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      }
    };
    const senders = Array.from({ length: 9 }, (_, index) => sender(index));
    const answered = () => [...statuses.values()].reduce((sum, count) => sum + count, 0);
    // At least 30 reloads, and on until 300 requests have met them: a loaded machine answers fewer a
    // second (223 in 30 reloads at load 17), and the test is about requests meeting reloads.
    for (let round = 1; round <= 30 || (answered() <= 300 && round <= 300); round++) {
      rig().writeAgencies(withOrigins(original, round));
      const report = await rig().relay.agencies!.reload();
      expect(report).toMatchObject({ ok: true, changed: original.map((entry) => entry.slug) });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    reloading = false;
    await Promise.all(senders);
    expect(fiveHundreds).toEqual([]);
    expect(answered()).toBeGreaterThan(300);
    // Everything answered as usual: accepted, listed, or (rarely) 503 with Retry-After.
    expect(
      [...statuses.keys()].every((status) => [200, 202, 503].includes(status)),
      JSON.stringify(Object.fromEntries(statuses)),
    ).toBe(true);
  }, 120_000);
});

/**
 * A POST whose headers reach the relay at once (the agency's routes take it) and whose body only
 * after `meanwhile` has run: a request in flight for as long as the test wants.
 */
function slowPost(url: string, body: string, meanwhile: () => Promise<void>): Promise<{ status: number; text: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += String(chunk)));
      res.on('end', () => resolve({ status: res.statusCode!, text, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.flushHeaders();
    req.write(body.slice(0, 10));
    meanwhile().then(
      () => req.end(body.slice(10)),
      (error: unknown) => {
        req.destroy();
        reject(error as Error);
      },
    );
  });
}

describe('a request in flight while its agency is replaced', () => {
  const rig = syncedAgenciesRig({ agencies: 2, listings: 10 });

  it('is answered by the composition that took it (its store closes after), never a 500', async () => {
    const { entries, accounts } = rig();
    const [a] = entries as [AgencyFileEntry];
    const enquiry = validEnquiry({ listingId: saleIdOf(accounts[0]!) });
    const old = rig().relay.agencies!.get(a.slug)!;
    const answer = await slowPost(`${rig().relay.url}/a/${a.slug}/api/v1/enquiries`, JSON.stringify(enquiry), async () => {
      // The headers are in and the old composition holds the request; the reload replaces it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      rig().writeAgencies(withOrigins(entries, 1));
      expect(await rig().relay.agencies!.reload()).toMatchObject({ ok: true, changed: [a.slug, entries[1]!.slug] });
      expect(rig().relay.agencies!.get(a.slug)).not.toBe(old);
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    expect(answer.status, answer.text).toBe(202);
    // Stored in the agency's one outbox, which the new composition reads.
    const status = await rig().request(`/a/${a.slug}/api/v1/enquiries/${enquiry.originalId}`);
    expect(status.status).toBe(200);
  }, 30_000);

  it('one still running when the wait is over meets a closed store: 503 with Retry-After', async () => {
    const { entries, accounts } = rig();
    const [a] = entries as [AgencyFileEntry];
    const old = rig().relay.agencies!.get(a.slug)!;
    const enquiry = validEnquiry({ listingId: saleIdOf(accounts[0]!) });
    const answer = await slowPost(`${rig().relay.url}/a/${a.slug}/api/v1/enquiries`, JSON.stringify(enquiry), async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      rig().writeAgencies(withOrigins(entries, 2));
      await rig().relay.agencies!.reload();
      // As if REQUESTS_IN_FLIGHT_WAIT_MS had passed: the replaced composition's store is closed under the request.
      old.onIdle?.();
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(answer.status, answer.text).toBe(503);
    expect(answer.retryAfter).toMatch(/^\d+$/);
  }, 30_000);
});

describe('a client at its enquiry limit, across a reload', () => {
  async function atLimitAcrossReload(env: Record<string, string>, allowed: number, code: string) {
    const rig = await startAgenciesRig({ agencies: 2, listings: 10, env });
    try {
      await rig.syncAll();
      const [a, b] = rig.entries as [AgencyFileEntry, AgencyFileEntry];
      const [accountA, accountB] = rig.accounts as [SimulatorState, SimulatorState];
      const post = (slug: string, account: SimulatorState) =>
        rig.request(`/a/${slug}/api/v1/enquiries`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(validEnquiry({ listingId: saleIdOf(account) })),
        });
      const statuses: number[] = [];
      for (let sent = 0; sent < allowed; sent++) statuses.push((await post(a.slug, accountA)).status);
      expect(statuses).toEqual(Array(allowed).fill(202));
      const refused = await post(a.slug, accountA);
      expect([refused.status, refused.body.error]).toEqual([429, code]);

      // The agency's origins change: a new composition serves it, and the client is still at its limit.
      rig.writeAgencies(withOrigins(rig.entries, 1));
      expect(await rig.relay.agencies!.reload()).toMatchObject({ ok: true, changed: [a.slug, b.slug] });
      expect(rig.relay.agencies!.get(a.slug)!.entry.allowedOrigins).toContain(`https://round-1.${a.slug}.example`);
      for (let attempt = 0; attempt < 3; attempt++) {
        const after = await post(a.slug, accountA);
        expect([after.status, after.body.error]).toEqual([429, code]);
        expect(after.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      // Another agency's limits are its own: the same client is let in there.
      expect((await post(b.slug, accountB)).status).toBe(202);
    } finally {
      await rig.close();
    }
  }

  it('per minute: still 429 after a reload that changed its agency', async () => {
    await atLimitAcrossReload({ ENQUIRY_RATE_LIMIT_PER_MINUTE: '3', ENQUIRY_DAILY_LIMIT_PER_CLIENT: '100' }, 3, 'rate_limited');
  }, 60_000);

  it('per UTC day: still 429 after a reload that changed its agency', async () => {
    // The relay counts on the wall clock (it takes no other): posts, reload and posts on one UTC day.
    await onOneUtcDayFor(60_000);
    await atLimitAcrossReload({ ENQUIRY_RATE_LIMIT_PER_MINUTE: '100', ENQUIRY_DAILY_LIMIT_PER_CLIENT: '2' }, 2, 'daily_limit');
  }, 120_000);
});
