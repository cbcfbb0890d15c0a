import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, toCrmDateTime, type CrmClient } from '../../server/crm/client.ts';
import type { CrmProperty } from '../../server/crm/schemas.ts';
import { clientFor, startSim, tempStore } from './support.ts';

/**
 * Every typed operation against the simulator, whose records carry what real ones carry: nulls,
 * fields our schemas do not declare (confidential ones included), and values the control surface
 * lets a test change.
 */

let simulator: Awaited<ReturnType<typeof startSim>>;
let temp: ReturnType<typeof tempStore>;
let crm: CrmClient;

beforeAll(async () => {
  simulator = await startSim({ listings: 30, requestsPerSecond: 50 });
  temp = tempStore();
  crm = clientFor(simulator.sim, temp.store, { requestsPerSecond: 50 });
});
afterAll(async () => {
  crm.close();
  await simulator.sim.close();
  temp.cleanup();
});

describe('CRM client operations against the simulator', () => {
  it('reads every property list, for every class and market, without dropping a record', async () => {
    const lists = [
      await crm.listProperties({ class: 'residential', saleOrLease: 'sale' }),
      await crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true }),
      await crm.listProperties({ class: 'residential', saleOrLease: 'sale', sold: true }),
      await crm.listProperties({ class: 'residential', saleOrLease: 'lease', available: true }),
      await crm.listProperties({ class: 'commercial', saleOrLease: 'sale', available: true }),
      await crm.listProperties({ class: 'commercial', saleOrLease: 'lease', available: true }),
      await crm.listProperties({ class: 'land', saleOrLease: 'sale', available: true }),
      await crm.listProperties({ class: 'rural', saleOrLease: 'sale', available: true }),
    ];
    for (const list of lists) {
      expect(list.invalidItems).toBe(0);
      expect(list.items.length).toBe(Math.min(list.totalItems, 50));
    }
    expect(lists[0]!.totalItems).toBeGreaterThan(0);
    const residentialSale = lists[0]!.items[0]!;
    expect(typeof residentialSale.id).toBe('number');
    expect(residentialSale.saleLifeId).toEqual(expect.any(Number));
    // Confidential fields arrive (the CRM sends them) but are not part of our declared shape.
    expect('internalRemarks' in residentialSale).toBe(true);
  });

  it('pages through a list with allPages: every record once', async () => {
    const ids: number[] = [];
    let pages = 0;
    let total = 0;
    for await (const page of allPages((paging) => crm.listProperties({ class: 'residential', saleOrLease: 'sale', ...paging }), 4)) {
      pages++;
      total = page.totalItems;
      ids.push(...page.items.map((item) => item.id));
    }
    expect(ids.length).toBe(total);
    expect(new Set(ids).size).toBe(total);
    expect(pages).toBe(Math.ceil(total / 4));
  });

  it('sends filters the CRM understands (published, status, modifiedSince, sort)', async () => {
    const all = await crm.listProperties({ class: 'residential', saleOrLease: 'sale', pageSize: 100 });
    const target = all.items[0]!;
    const before = new Date(Date.now() - 1000);
    await simulator.control('PATCH', `/listings/${target.id}`, { fields: { heading: 'Freshly changed' } });

    const changed = await crm.listProperties({ class: 'residential', saleOrLease: 'sale', modifiedSince: before, pageSize: 100 });
    expect(changed.items.map((item) => item.id)).toEqual([target.id]);
    expect(changed.items[0]!.heading).toBe('Freshly changed');
    // A string DateTime works as well as a Date.
    const sameAgain = await crm.listProperties({ class: 'residential', saleOrLease: 'sale', modifiedSince: toCrmDateTime(before) });
    expect(sameAgain.totalItems).toBe(1);

    const current = await crm.listProperties({
      class: 'residential',
      saleOrLease: 'sale',
      published: true,
      status: ['listing', 'conditional'],
      sort: 'searchPrice',
      sortOrder: 'desc',
      pageSize: 100,
    });
    expect(current.totalItems).toBeGreaterThan(0);
    expect(current.totalItems).toBeLessThanOrEqual(all.totalItems);
    for (const item of current.items) expect(['listing', 'conditional']).toContain(item.status);
    const prices = current.items.map((item) => item.searchPrice ?? 0);
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
  });

  it('tolerates nulls and unknown fields in a record, and one malformed record does not hide the page', async () => {
    const { items } = await crm.listProperties({ class: 'residential', saleOrLease: 'sale', pageSize: 100 });
    const [nulled, broken] = [items[1]!, items[2]!];
    await simulator.control('PATCH', `/listings/${nulled.id}`, {
      fields: { heading: null, displayPrice: null, bed: null, address: null, geolocation: null, fieldFromV14: { nested: [1, null] } },
    });
    await simulator.control('PATCH', `/listings/${broken.id}`, { fields: { bed: 'four' } });

    const single: CrmProperty = await crm.getProperty('residential', 'sale', nulled.id);
    expect(single).toMatchObject({ id: nulled.id, heading: null, displayPrice: null, bed: null, address: null, geolocation: null });
    expect(single.fieldFromV14).toEqual({ nested: [1, null] });

    const page = await crm.listProperties({ class: 'residential', saleOrLease: 'sale', pageSize: 100 });
    expect(page.invalidItems).toBe(1);
    expect(page.items.map((item) => item.id)).not.toContain(broken.id);
    expect(page.items.length).toBe(page.totalItems - 1);
    // A single record that does not match is an error naming the field, not a crash.
    await expect(crm.getProperty('residential', 'sale', broken.id)).rejects.toMatchObject({
      code: 'invalid_response',
      message: expect.stringContaining('bed'),
    });
  });

  it('answers 404 for a property that does not exist, as a not_found CrmError', async () => {
    await expect(crm.getProperty('residential', 'sale', 999_999_999)).rejects.toMatchObject({ code: 'not_found', status: 404, retryable: false });
  });

  it('reads photos, open homes, users, scopes, usage, holding area types and enquiry sources', async () => {
    const { items } = await crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true });
    const photos = await crm.listPhotos(items[0]!.id);
    expect(photos.invalidItems).toBe(0);
    expect(photos.items.length).toBeGreaterThanOrEqual(5);
    expect(photos.items[0]).toMatchObject({ id: expect.any(Number), url: expect.stringMatching(/^http/), modified: expect.any(String) });

    const openHomes = await crm.listOpenHomes({ startingAfter: new Date() });
    expect(openHomes.invalidItems).toBe(0);
    expect(openHomes.items.length).toBeGreaterThan(0);
    expect(openHomes.items[0]!.property?.id).toEqual(expect.any(Number));

    const users = await crm.listUsers();
    expect(users.invalidItems).toBe(0);
    expect(users.items.some((user) => user.showOnWeb === true)).toBe(true);

    expect(await crm.getScopes()).toContain('enquiries:write');
    const usage = await crm.getUsage();
    expect(usage.used).toBeGreaterThan(0);
    expect(usage.used! + usage.remaining!).toBe(10_000);

    const types = await crm.listHoldingAreaTypes();
    expect(types.items.map((type) => type.apiCode)).toContain('OFFICEWEBSITE');
    const sources = await crm.listEnquirySources();
    expect(sources.invalidItems).toBe(0);
    expect(sources.items.length).toBeGreaterThan(0);
  });

  it('posts an enquiry, reads it back by id and finds it by filter', async () => {
    const { items } = await crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true });
    const property = items[0]!;
    const stored = await crm.addEnquiry({
      originalId: '6f1c1f0e-2d1b-4a8e-9a53-0c6b7f0a1d2e',
      source: 'OFFICEWEBSITE',
      saleLifeId: property.saleLifeId!,
      propertyReference: property.referenceID ?? undefined,
      subject: 'Enquiry about the property',
      body: 'Is it still available?',
      fullName: 'Alex Buyer',
      email: 'alex.buyer@example.com',
      mobile: '0400 111 222',
      enquiryDate: toCrmDateTime(new Date()),
    });
    expect(stored).toMatchObject({ id: expect.any(Number), originalId: '6f1c1f0e-2d1b-4a8e-9a53-0c6b7f0a1d2e', saleLifeId: property.saleLifeId });

    expect(await crm.getEnquiry(stored.id)).toMatchObject({ id: stored.id, originalId: stored.originalId });
    const found = await crm.listEnquiries({ saleLifeId: property.saleLifeId!, source: 'OFFICEWEBSITE', enquiryDateSince: new Date(Date.now() - 60_000) });
    expect(found.items.map((enquiry) => enquiry.id)).toContain(stored.id);

    // What the CRM received, seen from its side.
    const received = (await simulator.control('GET', '/enquiries')) as { items: Array<{ id: number; received: { fullName: string; email: string } }> };
    expect(received.items.find((item) => item.id === stored.id)?.received).toMatchObject({ fullName: 'Alex Buyer', email: 'alex.buyer@example.com' });
  });

  it('refuses bad arguments before spending a request', async () => {
    const before = crm.budget().used;
    expect(() => crm.listProperties({ class: 'residential', saleOrLease: 'lease', sold: true })).toThrow(/sold/);
    expect(() => crm.getProperty('residential', 'sale', -1)).toThrow(/positive/);
    expect(() => crm.listPhotos(1, { page: 0 })).toThrow(/page/);
    expect(crm.budget().used).toBe(before);
  });
});
