import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, CRM_DATE_TIME, manualClock } from './helpers.ts';

const clock = manualClock('2025-03-14T02:00:00.000Z');
let sim: RunningSimulator;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  sim = await startSimulator({ listings: 20, seed: 11, now: clock.now, requestsPerSecond: 10_000 });
  call = apiClient(sim);
});
afterAll(() => sim.close());
beforeEach(() => sim.state.reset());

function saleListing() {
  return sim.state.listings.find((listing) => listing.market === 'sale' && listing.publishedToWeb !== null)!;
}

function validEnquiry(overrides: Record<string, unknown> = {}) {
  return {
    enquiryDate: '2025-03-14T12:30:00+11:00',
    subject: 'Enquiry from the website',
    body: 'Could I inspect on Saturday?',
    originalId: '6f1c2a4e-0d7b-4f7e-9a7e-1b2c3d4e5f60',
    source: 'OFFICEWEBSITE',
    saleLifeId: saleListing().lifeId,
    fullName: 'Casey Example',
    email: 'casey@example.com',
    mobile: '0491 570 006',
    ...overrides,
  };
}

describe('CRM simulator: POST /enquiries', () => {
  it('stores the enquiry and answers 201 with it', async () => {
    const response = await call('/enquiries', { method: 'POST', body: validEnquiry() });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: expect.any(Number),
      originalId: '6f1c2a4e-0d7b-4f7e-9a7e-1b2c3d4e5f60',
      source: 'OFFICEWEBSITE',
      sourceName: 'Office Website',
      saleLifeId: saleListing().lifeId,
      leaseLifeId: null,
      processed: false,
      personName: 'Casey Example',
      personEmails: ['casey@example.com'],
      personPhoneNumbers: [expect.objectContaining({ number: '0491 570 006', type: 'Mobile' })],
    });
    expect(response.body.inserted).toMatch(CRM_DATE_TIME);
    // The given DateTime in +11:00 comes back in UTC.
    expect(response.body.enquiryDate).toBe('2025-03-14T01:30:00+00:00');
    expect(sim.state.postedEnquiries()).toHaveLength(1);
    expect(sim.state.counters.enquiriesStored).toBe(1);

    const fetched = await call(`/enquiries/${response.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(response.body);
  });

  it('does not reject a repeated originalId: two posts make two enquiries', async () => {
    const first = await call('/enquiries', { method: 'POST', body: validEnquiry() });
    const second = await call('/enquiries', { method: 'POST', body: validEnquiry() });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
    expect(sim.state.postedEnquiries().map((enquiry) => enquiry.originalId)).toEqual([
      '6f1c2a4e-0d7b-4f7e-9a7e-1b2c3d4e5f60',
      '6f1c2a4e-0d7b-4f7e-9a7e-1b2c3d4e5f60',
    ]);
  });

  it('accepts a "contact me" enquiry to a user, without property fields', async () => {
    const user = sim.state.users.find((candidate) => candidate.showOnWeb)!;
    const response = await call('/enquiries', { method: 'POST', body: validEnquiry({ saleLifeId: undefined, userId: user.id }) });
    expect(response.status).toBe(201);
    expect(response.body.user).toMatchObject({ id: user.id });
    expect(response.body.saleLifeId).toBeNull();
  });

  it('refuses bad input with 400 and a msg naming the field, storing nothing', async () => {
    const cases: [unknown, string][] = [
      ['[1,2]', 'body'],
      ['{"fullName": ', 'JSON'],
      [validEnquiry({ fullName: undefined }), 'name'],
      [validEnquiry({ email: undefined, mobile: undefined }), 'email, mobile or telephone'],
      [validEnquiry({ email: 'not-an-email' }), 'email'],
      [validEnquiry({ mobile: 'call me maybe' }), 'mobile'],
      [validEnquiry({ subject: 42 }), 'subject'],
      [validEnquiry({ body: 'x'.repeat(10_001) }), 'body'],
      [validEnquiry({ source: 'NOPE' }), 'source'],
      [validEnquiry({ saleLifeId: 1 }), 'saleLifeId'],
      [validEnquiry({ saleLifeId: 'abc' }), 'saleLifeId'],
      [validEnquiry({ leaseLifeId: 990_001 }), 'not both'],
      [validEnquiry({ userId: 1 }), 'userId'],
      [validEnquiry({ enquiryDate: 'last tuesday' }), 'enquiryDate'],
      [validEnquiry({ categories: [{ id: 9999 }] }), 'categories'],
      [validEnquiry({ metaData: [{ key: 1 }] }), 'metaData'],
    ];
    for (const [body, mentions] of cases) {
      const response = await call('/enquiries', { method: 'POST', body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body).toMatchObject({ success: false, code: 'INVALID_DATA' });
      expect(response.body.msg).toContain(mentions);
    }
    expect(sim.state.postedEnquiries()).toHaveLength(0);
  });

  it('files an enquiry without source under OTHER', async () => {
    const response = await call('/enquiries', { method: 'POST', body: validEnquiry({ source: undefined }) });
    expect(response.body.source).toBe('OTHER');
  });
});

describe('CRM simulator: GET /enquiries', () => {
  it('filters by date, life id, user, source and processed, and pages', async () => {
    const listing = saleListing();
    clock.set('2025-03-14T02:00:00.000Z');
    await call('/enquiries', { method: 'POST', body: validEnquiry({ enquiryDate: undefined, originalId: 'a' }) });
    clock.set('2025-03-14T03:00:00.000Z');
    await call('/enquiries', { method: 'POST', body: validEnquiry({ enquiryDate: undefined, originalId: 'b' }) });
    const user = sim.state.users[1]!;
    await call('/enquiries', { method: 'POST', body: validEnquiry({ enquiryDate: undefined, originalId: 'c', saleLifeId: undefined, userId: user.id }) });

    const ids = (response: { body: { items: { originalId: string }[] } }) => response.body.items.map((item) => item.originalId);
    expect(ids(await call('/enquiries?enquiryDateSince=2025-03-14T02:30:00Z&source=OFFICEWEBSITE'))).toEqual(['b', 'c']);
    expect(ids(await call('/enquiries?enquiryDateBefore=2025-03-14T02:30:00Z&source=OFFICEWEBSITE'))).toEqual(['a']);
    expect(ids(await call(`/enquiries?saleLifeId=${listing.lifeId}&source=OFFICEWEBSITE`))).toEqual(['a', 'b']);
    expect(ids(await call(`/enquiries?userId=${user.id}&source=OFFICEWEBSITE`))).toEqual(['c']);

    // The seeded holding area has portal enquiries too, processed and not.
    const portal = await call('/enquiries?source=REA');
    expect(portal.body.items.every((item: { source: string }) => item.source === 'REA')).toBe(true);
    const unprocessed = await call('/enquiries?processed=false&pagesize=100');
    expect(unprocessed.body.items.every((item: { processed: boolean }) => !item.processed)).toBe(true);
    const all = await call('/enquiries?pagesize=100');
    expect(all.body.totalItems).toBe(sim.state.enquiries.length);
    const paged = await call('/enquiries?pagesize=2&page=2');
    expect(paged.body.items).toHaveLength(2);
    expect(paged.body.totalPages).toBe(Math.ceil(all.body.totalItems / 2));

    expect((await call('/enquiries?source=BOGUS')).status).toBe(400);
    expect((await call('/enquiries?enquiryDateSince=soon')).status).toBe(400);
    expect((await call('/enquiries/123')).status).toBe(404);
  });
});
