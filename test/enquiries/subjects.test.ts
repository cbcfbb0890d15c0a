import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import type { SimEnquiry } from '../../crm-sim/model.ts';
import { crmPropertySchema, type CrmProperty } from '../../server/crm/schemas.ts';
import { decodeDestination, listingDestination } from '../../server/crm/lead-destination.ts';
import { toAddEnquiry } from '../../server/crm/lead-sink.ts';
import { listingId, publishedAddress } from '../../server/crm/public-fields.ts';
import { enquiryRequestSchema, type ParsedEnquiry } from '../../server/enquiries/schema.ts';
import { readRealRecords } from '../support/real-records.ts';
import { QUIET_DAY_NOON } from '../support/test-clock.ts';
import { simulatedCrm, type EnquiryHarness } from './support.ts';

// Every lead's subject names the place an agent knows it by: the listing's address as the public
// listing shows it (a withheld street stays withheld), an open home's date and time in the
// agency's zone, the CRM reference after them, never instead. Each kind through the relay's
// route, outbox and worker to the CRM simulator over HTTP (its look-ups asking the CRM).

const crm = simulatedCrm({ listings: 60, seed: 28 });

const contact = () => ({
  originalId: randomUUID(),
  fullName: 'Priya Raman',
  email: 'priya.raman@example.com',
  mobile: '0412 345 678',
  consent: true,
  website: '',
  elapsedMs: 30_000,
});

/** A time as an agent in Melbourne reads it (the SITE_TIME_ZONE below). */
const siteTime = new Intl.DateTimeFormat('en-AU', {
  timeZone: 'Australia/Melbourne',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

const setup = () => crm.harness({ env: { SITE_TIME_ZONE: 'Australia/Melbourne' }, settings: { reconcileDelayMs: 0 } });

async function sendAndDeliver(harness: EnquiryHarness, body: EnquiryRequest): Promise<SimEnquiry> {
  const response = await request(harness.app).post('/api/v1/enquiries').send(body);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  await harness.service.worker.drain();
  const held = crm.sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === body.originalId);
  expect(held).toHaveLength(1);
  return held[0]!;
}

async function saleListings(harness: EnquiryHarness): Promise<CrmProperty[]> {
  const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 100 });
  return page.items.filter((item) => item.saleLifeId != null && item.referenceID);
}

/** A listing whose whole address is public (its CRM displayAddress is what the listing shows). */
async function shownListing(harness: EnquiryHarness): Promise<CrmProperty> {
  const found = (await saleListings(harness)).find((item) => item.addressVisibility === 'fullAddress');
  expect(found).toBeDefined();
  return found!;
}

describe('a lead’s subject names the place', () => {
  it('a question with no subject: "Website enquiry: <address> (<reference>)"; one with its own keeps it and adds the place unless it names the address', async () => {
    const harness = await setup();
    const listing = await shownListing(harness);
    const id = listingId('sale', listing);
    const place = `${listing.displayAddress} (${listing.referenceID})`;
    const bare = await sendAndDeliver(harness, { ...contact(), listingId: id, message: 'Is it still available?' });
    expect(bare.subject).toBe(`Website enquiry: ${place}`);
    const own = await sendAndDeliver(harness, { ...contact(), listingId: id, subject: 'Contract of sale', message: 'May I see the contract?' });
    expect(own.subject).toBe(`Contract of sale: ${place}`);
    // The listing element sends the address as the subject: kept as it is.
    // (Another message: the same one again within a day would be one lead with the first.)
    const named = await sendAndDeliver(harness, { ...contact(), listingId: id, subject: listing.displayAddress!, message: 'Is there a building report?' });
    expect(named.subject).toBe(listing.displayAddress);
  });

  it('a listing whose address is partly withheld is named as the public listing names it, never by what is withheld', async () => {
    const harness = await setup();
    const withheld = (await saleListings(harness)).find(
      (item) => item.addressVisibility !== 'fullAddress' && item.address?.streetNumber && item.address.street,
    );
    expect(withheld, 'the seed has a listing that withholds its street number').toBeDefined();
    const held = await sendAndDeliver(harness, { ...contact(), listingId: listingId('sale', withheld!), message: 'Which number is it?' });
    // The CRM's own record holds the whole address whatever its visibility: the public listing's words are composed.
    expect(held.subject).toBe(`Website enquiry: ${withheld!.displayAddress} (${withheld!.referenceID})`);
    expect(held.subject).not.toContain(`${withheld!.address!.streetNumber} ${withheld!.address!.street}`);
  });

  it('an appraisal request names the property to appraise', async () => {
    const harness = await setup();
    const held = await sendAndDeliver(harness, { kind: 'appraisal', ...contact(), street: '14 Wellington Street', suburb: 'Kew', postcode: '3101' });
    expect(held.subject).toBe('Appraisal request: 14 Wellington Street, Kew 3101');
  });

  it('an open-home registration names the address, then the date and time in the agency’s zone, then the reference', async () => {
    const harness = await setup();
    const byId = new Map((await saleListings(harness)).map((item) => [item.id, item]));
    const now = Date.now();
    const list = await harness.crm.listOpenHomes({ startingAfter: new Date(now + 60 * 60_000), pageSize: 100 });
    const openHome = list.items.find(
      (item) => byId.get(item.property?.id ?? -1)?.addressVisibility === 'fullAddress' && item.isRental !== true && Date.parse(item.start!) > now + 3600_000,
    )!;
    expect(openHome).toBeDefined();
    const listing = byId.get(openHome.property!.id!)!;
    const held = await sendAndDeliver(harness, {
      kind: 'open-home',
      ...contact(),
      listingId: listingId('sale', listing),
      openHomeId: openHome.id,
      attendees: 2,
    });
    expect(held.subject!.startsWith(`Open home registration: ${listing.displayAddress}, ${siteTime.format(new Date(openHome.start!))} – `), held.subject!).toBe(
      true,
    );
    expect(held.subject!.endsWith(` (${listing.referenceID})`), held.subject!).toBe(true);
  });

  it('a private inspection request names the address, then the reference', async () => {
    const harness = await setup();
    const listing = await shownListing(harness);
    const day = 24 * 3600_000;
    const time = new Date(Math.floor((Date.now() + 2 * day) / 60_000) * 60_000).toISOString();
    const held = await sendAndDeliver(harness, { kind: 'inspection', ...contact(), listingId: listingId('sale', listing), preferredTimes: [time] });
    expect(held.subject).toBe(`Private inspection request: ${listing.displayAddress} (${listing.referenceID})`);
  });
});

describe('subjects on the real records (a real agency’s v1.3 list), each also with its displayAddress null', () => {
  const records = (JSON.parse(readRealRecords()) as { items: Array<Record<string, unknown>> }).items;
  const start = new Date(Date.parse(QUIET_DAY_NOON) + 3 * 86_400_000).toISOString();
  const end = new Date(Date.parse(start) + 30 * 60_000).toISOString();
  const leads: ParsedEnquiry[] = [
    { ...contact(), listingId: 2, message: 'Is it still available?' },
    { kind: 'open-home', ...contact(), listingId: 2, openHomeId: 9, attendees: 2 },
    { kind: 'inspection', ...contact(), listingId: 2, preferredTimes: [start] },
  ].map((body) => enquiryRequestSchema.parse(body) as ParsedEnquiry);
  const openHome = { start, end };
  /** What the CRM's lead says, its destination made as the relay makes it (listing cache and look-up alike: publishedAddress). */
  const subjectsOf = (record: Record<string, unknown>) => {
    const property = crmPropertySchema.parse(record);
    const target = decodeDestination(listingDestination('sale', property, publishedAddress(property)));
    return leads.map((lead) => {
      const withTimes = lead.kind === 'open-home' ? { ...lead, openHome } : lead;
      return toAddEnquiry(withTimes, target, { source: 'OFFICEWEBSITE', acceptedAt: new Date(QUIET_DAY_NOON), timeZone: 'Australia/Melbourne' }).subject!;
    });
  };
  /** Reads right for a person: words, no "null" or "undefined", no empty brackets or doubled or dangling separators. */
  const readsRight = (subject: string) => {
    expect(subject.trim(), subject).not.toBe('');
    expect(subject, subject).not.toMatch(/\bnull\b|\bundefined\b|\(\s*\)|,\s*,|:\s*:|[,:]\s*$|^\s*[,:]|\s{2}/i);
    expect(subject.length).toBeLessThanOrEqual(255);
  };

  it('each names the address as published (then the reference, when the record has one)', () => {
    expect(records.length).toBeGreaterThan(20);
    for (const record of records) {
      const shown = String(record.displayAddress).trim();
      const reference = typeof record.referenceID === 'string' && record.referenceID.trim() ? ` (${record.referenceID.trim()})` : '';
      const [question, registration, inspection] = subjectsOf(record);
      for (const subject of [question!, registration!, inspection!]) readsRight(subject);
      expect(question).toBe(`Website enquiry: ${shown}${reference}`);
      expect(registration!.startsWith(`Open home registration: ${shown}, `), registration).toBe(true);
      expect(inspection).toBe(`Private inspection request: ${shown}${reference}`);
    }
  });

  it('displayAddress null: the address composed from its parts; with no address, the reference; with neither, the kind of lead alone', () => {
    for (const record of records) {
      const address = record.address as { streetNumber?: string; street?: string; suburb?: { name?: string } };
      for (const subject of subjectsOf({ ...record, displayAddress: null })) {
        readsRight(subject);
        expect(subject).toContain(`${address.streetNumber} ${address.street}`);
        expect(subject.toUpperCase()).toContain(address.suburb!.name!.toUpperCase());
      }
      for (const subject of subjectsOf({ ...record, displayAddress: null, address: null, referenceID: 'HY40015' })) {
        readsRight(subject);
        expect(subject).toContain('HY40015');
      }
      const [question, registration, inspection] = subjectsOf({ ...record, displayAddress: null, address: null, referenceID: null });
      for (const subject of [question!, registration!, inspection!]) readsRight(subject);
      expect(question).toBe('Website enquiry about a listing');
      expect(inspection).toBe('Private inspection request');
      expect(registration!.startsWith('Open home registration: '), registration).toBe(true);
    }
  });
});
