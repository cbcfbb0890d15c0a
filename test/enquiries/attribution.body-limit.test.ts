import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { LEAD_BODY_BYTES } from '../../contract/attribution.ts';
import { validEnquiry, type EnquiryHarness, simulatedCrm } from './support.ts';

// The campaign never refuses a lead (issue 28): five long utm_* values pushed a valid 14.6 KB lead
// over the 16 KB body limit and it was refused (413). A lead whose own fields fit is accepted with
// its attribution dropped and named in `ignored`; one over the limit for its own words still is not.

const crm = simulatedCrm({ listings: 6, seed: 5 });

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

async function saleListingId(harness: EnquiryHarness): Promise<number> {
  const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 5 });
  return page.items.find((item) => item.saleLifeId != null)!.id;
}

/** Five campaign values at the widget's 200 characters, two bytes each in UTF-8. */
const LONG_CAMPAIGN = Object.fromEntries(
  ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'].map((name, index) => [
    name,
    `${'ü'.repeat(195)}-${name.slice(4, 8)}${index}`.slice(0, 200),
  ]),
);

describe('a lead over 16 KB only because of its attribution', () => {
  it('is accepted (202) with the campaign dropped and named in `ignored`, and its person’s fields and message reach the CRM', async () => {
    const harness = await crm.harness();
    const page = 'https://harbourandyarra.example/listings/42/1-main-street-kew';
    // 4,780 three-byte characters: a 14.6 KB lead, within the message's 5,000 characters.
    const lead = validEnquiry({ listingId: await saleListingId(harness), message: `${'京'.repeat(4_780)} Ring me.`, page });
    const body = { ...lead, campaign: LONG_CAMPAIGN };
    expect(bytes(lead)).toBeGreaterThan(14_400);
    expect(bytes(lead)).toBeLessThanOrEqual(LEAD_BODY_BYTES);
    expect(bytes(body)).toBeGreaterThan(LEAD_BODY_BYTES);

    const answer = await request(harness.app).post('/api/v1/enquiries').send(body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toEqual({ originalId: lead.originalId, status: 'queued', ignored: { campaign: 'dropped: the lead is over 16 KB with it' } });
    await harness.service.worker.drain();
    const [held, ...more] = crm.sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === lead.originalId);
    expect(more).toEqual([]);
    expect(held).toMatchObject({ fullName: lead.fullName, email: lead.email, mobile: '0412345678', body: lead.message });
    // The page still fits, so it stays; no campaign entry.
    expect(held!.metaData).toContainEqual({ key: 'page', value: page });
    expect(held!.metaData.filter(({ key }) => key.startsWith('utm_'))).toEqual([]);
  });

  it('drops the page too when the campaign alone is not enough', async () => {
    const harness = await crm.harness();
    const page = `https://harbourandyarra.example/${'listing-'.repeat(120)}`;
    const lead = validEnquiry({ listingId: await saleListingId(harness), subject: '京'.repeat(100), message: '京'.repeat(5_000) });
    const body = { ...lead, page, campaign: { utm_source: 'newsletter' } };
    expect(bytes(lead)).toBeLessThanOrEqual(LEAD_BODY_BYTES);
    expect(bytes({ ...lead, page })).toBeGreaterThan(LEAD_BODY_BYTES);
    const answer = await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
    expect(answer.body.ignored).toEqual({ campaign: 'dropped: the lead is over 16 KB with it', page: 'dropped: the lead is over 16 KB with it' });
  });
});

describe('a lead over 16 KB for its own words', () => {
  it('is still refused, 413, with or without a campaign, and nothing is stored', async () => {
    const harness = await crm.harness();
    const lead = validEnquiry({ listingId: await saleListingId(harness), message: '京'.repeat(5_500) });
    expect(bytes(lead)).toBeGreaterThan(LEAD_BODY_BYTES);
    for (const body of [lead, { ...lead, campaign: LONG_CAMPAIGN }]) {
      const answer = await request(harness.app).post('/api/v1/enquiries').send(body);
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({ error: 'payload_too_large', fields: { body: 'too large' } });
    }
    // A body past the parser's room for attribution: 413 from the parser itself.
    await request(harness.app)
      .post('/api/v1/enquiries')
      .send({ ...lead, campaign: { utm_source: 'x'.repeat(40_000) } })
      .expect(413);
    expect((await harness.service.outbox.counts()).queued).toBe(0);
  });
});
