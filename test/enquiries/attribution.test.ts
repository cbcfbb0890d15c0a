import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/runtime/log.ts';
import { rawRows, storeVariants, type StoreVariant } from '../support/store-variants.ts';
import { validEnquiry, type EnquiryHarness, type HarnessOptions, simulatedCrm } from './support.ts';

// Where a lead came from (issue 22): the page and the campaign (utm_*) a lead is sent with reach
// the CRM's metaData beside it; what the relay cannot use is dropped and named, never a refusal.

const crm = simulatedCrm({ listings: 6, seed: 5 });

let variant: StoreVariant = { name: 'SQLite' };

async function setup(options: HarnessOptions = {}): Promise<EnquiryHarness> {
  return crm.harness({
    postgresServer: variant.postgresServer,
    ...options,
  });
}

async function saleListingId(harness: EnquiryHarness): Promise<number> {
  const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 5 });
  return page.items.find((item) => item.saleLifeId != null)!.id;
}

/** Posts, delivers, and gives the answer and the metaData the simulator received. */
async function sendAndDeliver(
  harness: EnquiryHarness,
  extra: object,
): Promise<{ answer: Record<string, unknown>; metaData: Array<{ key: string; value: string }> }> {
  const body = { ...validEnquiry({ listingId: await saleListingId(harness) }), ...extra };
  const answer = await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
  await harness.service.worker.drain();
  const posted = crm.sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === body.originalId);
  expect(posted).toHaveLength(1);
  return { answer: answer.body as Record<string, unknown>, metaData: posted[0]!.metaData };
}

const CAMPAIGN = { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring-open-homes', utm_term: 'kew houses', utm_content: 'hero-button' };

for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    beforeAll(() => {
      variant = storeVariant;
    });

    it('puts the page and each campaign parameter into the lead metaData, after consent and channel', async () => {
      const harness = await setup();
      const { answer, metaData } = await sendAndDeliver(harness, { page: 'https://harbourandyarra.example/listings/42/1-main-street-kew', campaign: CAMPAIGN });
      expect(answer).not.toHaveProperty('ignored');
      expect(metaData).toEqual([
        { key: 'consent', value: 'given' },
        { key: 'channel', value: 'estate-embed website form' },
        { key: 'page', value: 'https://harbourandyarra.example/listings/42/1-main-street-kew' },
        { key: 'utm_source', value: 'newsletter' },
        { key: 'utm_medium', value: 'email' },
        { key: 'utm_campaign', value: 'spring-open-homes' },
        { key: 'utm_term', value: 'kew houses' },
        { key: 'utm_content', value: 'hero-button' },
      ]);
      // Kept with the lead in the outbox until delivered (and erased with its payload).
      const [row] = await rawRows(harness.store, 'enquiry_outbox');
      expect(JSON.parse(String(row!.payload))).toMatchObject({ page: 'https://harbourandyarra.example/listings/42/1-main-street-kew', campaign: CAMPAIGN });
    });
  });
}

describe('what the relay cannot use is dropped and named, and the lead still goes', () => {
  it('keeps only origin and path of a page: no query, fragment, user or password', async () => {
    const harness = await setup();
    const { answer, metaData } = await sendAndDeliver(harness, {
      page: 'https://user:secret@harbourandyarra.example/contact?email=jane%40example.com&token=abc#form',
    });
    expect(answer).not.toHaveProperty('ignored');
    expect(metaData).toContainEqual({ key: 'page', value: 'https://harbourandyarra.example/contact' });
    expect(JSON.stringify(metaData)).not.toMatch(/secret|jane|token|#form|user/);
  });

  it('sends no page or campaign entries when the lead has none', async () => {
    const harness = await setup();
    const { answer, metaData } = await sendAndDeliver(harness, {});
    expect(answer).not.toHaveProperty('ignored');
    expect(metaData.map((entry) => entry.key)).toEqual(['consent', 'channel']);
  });

  const cases: Array<[what: string, extra: object, ignored: Record<string, string>, kept: string[]]> = [
    ['a page that is not text', { page: 42 }, { page: 'must be text (a URL)' }, []],
    ['a page that is not a URL', { page: 'about our homes' }, { page: 'is not a URL' }, []],
    ['a javascript: page', { page: 'javascript:alert(1)' }, { page: 'must be an http or https URL' }, []],
    ['a data: page', { page: 'data:text/html,<p>hi</p>' }, { page: 'must be an http or https URL' }, []],
    [
      'a page over 1000 characters',
      { page: `https://harbourandyarra.example/${'a'.repeat(1000)}` },
      { page: 'must be at most 1000 characters (origin and path)' },
      [],
    ],
    ['a campaign that is not an object', { campaign: 'utm_source=google' }, { campaign: 'must be an object of utm_* values' }, []],
    ['a campaign that is a list', { campaign: ['google'] }, { campaign: 'must be an object of utm_* values' }, []],
    [
      'a campaign value over 200 characters, beside a good one',
      { campaign: { utm_source: 'google', utm_term: 't'.repeat(201) } },
      { 'campaign.utm_term': 'must be at most 200 characters' },
      ['utm_source'],
    ],
    [
      'a campaign value that is not text',
      { campaign: { utm_source: { nested: true }, utm_medium: 'cpc' } },
      { 'campaign.utm_source': 'must be text' },
      ['utm_medium'],
    ],
    [
      'a campaign value with a line break',
      { campaign: { utm_campaign: 'spring\nsale' } },
      { 'campaign.utm_campaign': 'contains characters that are not allowed' },
      [],
    ],
    [
      'keys that are not campaign parameters (named by count, not echoed)',
      { campaign: { utm_source: 'google', gclid: 'abc', 'jane@example.com': 'x' } },
      { campaign: 'only utm_source, utm_medium, utm_campaign, utm_term, utm_content are kept; 2 other keys were dropped' },
      ['utm_source'],
    ],
  ];
  for (const [what, extra, ignored, kept] of cases) {
    it(`drops ${what}`, async () => {
      const lines: string[] = [];
      const log = createLogger({ level: 'info' }, { write: (line: string) => lines.push(line) });
      const harness = await setup({ log });
      const { answer, metaData } = await sendAndDeliver(harness, extra);
      expect(answer.ignored).toEqual(ignored);
      const keys = metaData.map((entry) => entry.key);
      expect(keys).not.toContain('page');
      expect(keys.filter((key) => key.startsWith('utm_'))).toEqual(kept);
      // The log says what was dropped and why, never the value.
      const line = lines
        .map((text) => JSON.parse(text) as { msg: string; ignored?: unknown })
        .find((entry) => entry.msg.includes('origin (page, campaign) dropped'));
      expect(line?.ignored).toEqual(ignored);
      expect(lines.join('\n')).not.toMatch(/jane@example\.com|alert\(1\)|spring\\nsale|about our homes/);
    });
  }

  it('an empty or blank campaign value is no value, and not a problem', async () => {
    const harness = await setup();
    const { answer, metaData } = await sendAndDeliver(harness, { campaign: { utm_source: '  ', utm_medium: '', utm_campaign: ' spring ' } });
    expect(answer).not.toHaveProperty('ignored');
    expect(metaData.filter((entry) => entry.key.startsWith('utm_'))).toEqual([{ key: 'utm_campaign', value: 'spring' }]);
  });

  it('a retry from another page or campaign is the same lead (202, not 409), sent once with its first page', async () => {
    const harness = await setup();
    const body = {
      ...validEnquiry({ listingId: await saleListingId(harness) }),
      page: 'https://harbourandyarra.example/listings/buy',
      campaign: { utm_source: 'google' },
    };
    await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
    await request(harness.app)
      .post('/api/v1/enquiries')
      .send({ ...body, page: 'https://harbourandyarra.example/contact', campaign: { utm_source: 'bing' } })
      .expect(202);
    await harness.service.worker.drain();
    const posted = crm.sim.state.postedEnquiries();
    expect(posted).toHaveLength(1);
    expect(posted[0]!.metaData).toContainEqual({ key: 'page', value: 'https://harbourandyarra.example/listings/buy' });
    expect(posted[0]!.metaData).toContainEqual({ key: 'utm_source', value: 'google' });
  });
});
