// An open home's calendar file: the RFC 5545 writer on its own, then the relay's
// GET /api/v1/listings/:id/open-homes/:openHomeId.ics over real HTTP, from a real sync of the CRM
// simulator (the listing's "Add to calendar" links to it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';
import { buildIcs, icsEscape, icsFold, icsUtc, openHomeCalendar } from '../../server/listings/open-home-calendar.ts';
import { startListingRig, type ListingRig } from './rig.ts';
import { lastsBeyond } from '../support/test-clock.ts';

const NOW = new Date('2099-05-01T00:00:00Z');

function listing(overrides: Partial<ListingDetail> = {}): ListingDetail {
  return {
    id: 9,
    status: 'available',
    heading: 'Light-filled family home',
    address: { display: '9 Example Street, Kew VIC', suburb: 'Kew', postcode: '3101', state: 'VIC' },
    openHomes: [
      { id: 1, start: '2099-05-02T00:00:00.000Z', end: '2099-05-02T00:30:00.000Z' },
      { id: 2, start: '2000-05-02T00:00:00.000Z', end: '2000-05-02T00:30:00.000Z' },
    ],
    ...overrides,
  } as ListingDetail;
}

const options = { pageUrl: 'https://agency.example/listings/9', host: 'relay.example', now: NOW };

describe('open home calendar file', () => {
  it('writes UTC times and escapes text values', () => {
    expect(icsUtc(new Date('2024-05-04T10:00:00+10:00'))).toBe('20240504T000000Z');
    expect(icsEscape('Open home: 1/2 Main St, Kew; back\\door\nnote')).toBe('Open home: 1/2 Main St\\, Kew\\; back\\\\door\\nnote');
  });

  it('folds long lines at 75 octets without splitting a UTF-8 character', () => {
    const line = `SUMMARY:${'é'.repeat(60)}`;
    const parts = icsFold(line).split('\r\n');
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(75);
    expect(parts.slice(1).every((part) => part.startsWith(' '))).toBe(true);
    expect(parts.map((part, index) => (index ? part.slice(1) : part)).join('')).toBe(line);
  });

  it('builds a calendar with CRLF line ends', () => {
    const ics = buildIcs([
      { uid: 'a@b', start: new Date('2099-01-01T00:00:00Z'), end: new Date('2099-01-01T00:30:00Z'), summary: 'S', stamp: new Date('2098-01-01T00:00:00Z') },
    ]);
    expect(ics).toBe(
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//estate-embed//listing//EN\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\n' +
        'BEGIN:VEVENT\r\nUID:a@b\r\nDTSTAMP:20980101T000000Z\r\nDTSTART:20990101T000000Z\r\nDTEND:20990101T003000Z\r\nSUMMARY:S\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n',
    );
  });

  it('writes an upcoming open home with its fixed title, the shown address and the page', () => {
    const ics = openHomeCalendar(listing(), 1, options)!;
    expect(ics.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n')).toBe(true);
    expect(ics).toContain('\r\nUID:open-home-9-1@relay.example\r\n');
    expect(ics).toContain('\r\nDTSTAMP:20990501T000000Z\r\n');
    expect(ics).toContain('\r\nDTSTART:20990502T000000Z\r\n');
    expect(ics).toContain('\r\nDTEND:20990502T003000Z\r\n');
    expect(ics).toContain('\r\nSUMMARY:Open home: 9 Example Street\\, Kew VIC\r\n');
    expect(ics).toContain('\r\nLOCATION:9 Example Street\\, Kew VIC\r\n');
    expect(ics).toContain('\r\nURL:https://agency.example/listings/9\r\n');
    expect(ics.endsWith('END:VEVENT\r\nEND:VCALENDAR\r\n')).toBe(true);
  });

  it('writes none for an open home that is over, one not (or no longer) the listing’s, or a listing no longer for sale', () => {
    expect(openHomeCalendar(listing(), 2, options), 'over').toBeUndefined();
    expect(openHomeCalendar(listing(), 3, options), 'cancelled, or another listing’s').toBeUndefined();
    expect(openHomeCalendar(listing({ status: 'sold' }), 1, options), 'sold').toBeUndefined();
  });
});

describe('GET /api/v1/listings/:id/open-homes/:openHomeId.ics', () => {
  let rig: ListingRig;
  let withOpenHomes: ListingDetail[];

  beforeAll(async () => {
    rig = await startListingRig({ listings: 60, env: { ALLOWED_ORIGINS: 'https://agency.example' } });
    // One home with open homes whose agency shows only its suburb (the CRM still sends the street).
    const hidden = rig.sim.state.listings.find(
      (listing) =>
        listing.propertyClass === 'residential' && listing.status === 'listing' && listing.publishedToWeb !== null && listing.openHomeSlots.length > 0,
    )!;
    hidden.fields.addressVisibility = 'suburb';
    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
    const { items } = (await rig.get<Page<ListingSummary>>('/api/v1/listings?pageSize=100')).body;
    const details = await Promise.all(items.map(async (item) => (await rig.get<ListingDetail>(`/api/v1/listings/${item.id}`)).body));
    // Only open homes that cannot end during the suite: one that is over has no calendar file (404).
    const lasting = lastsBeyond(10 * 60_000);
    withOpenHomes = details.map((detail) => ({ ...detail, openHomes: detail.openHomes.filter(lasting) })).filter((detail) => detail.openHomes.length > 0);
    expect(withOpenHomes.length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await rig?.close();
  });

  const calendar = (id: number, openHome: number | string, query = '') => fetch(`${rig.relay.url}/api/v1/listings/${id}/open-homes/${openHome}.ics${query}`);

  it('serves the calendar file as text/calendar, an attachment named for the open home', async () => {
    const detail = withOpenHomes[0]!;
    const openHome = detail.openHomes[0]!;
    const page = `https://agency.example/listing.html?id=${detail.id}`;
    const response = await calendar(detail.id, openHome.id, `?page=${encodeURIComponent(page)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="open-home-${detail.id}-${openHome.id}.ics"`);
    const ics = (await response.text()).replace(/\r\n /g, '');
    expect(ics).toContain(`\r\nSUMMARY:Open home: ${icsEscape(detail.address.display)}\r\n`);
    expect(ics).toContain(`\r\nDTSTART:${icsUtc(new Date(openHome.start))}\r\n`);
    expect(ics).toContain(`\r\nDTEND:${icsUtc(new Date(openHome.end))}\r\n`);
    expect(ics).toContain(`\r\nURL:${page}\r\n`);
  });

  it("holds no word of a link's own: a forged summary (as an old element sent its title) is ignored, never refused", async () => {
    const detail = withOpenHomes[0]!;
    const openHome = detail.openHomes[0]!.id;
    const plain = (await (await calendar(detail.id, openHome)).text()).replace(/\r\n /g, '');
    const forgeries = [
      'Call 0400 000 000 to confirm {address}',
      '{address}\nDESCRIPTION:Pay the holding deposit to BSB 000-000',
      'Inspection: {address}',
      'x'.repeat(500),
    ];
    for (const summary of forgeries) {
      const response = await calendar(detail.id, openHome, `?summary=${encodeURIComponent(summary)}`);
      expect(response.status, summary).toBe(200);
      const ics = (await response.text()).replace(/\r\n /g, '');
      expect(ics).toContain(`\r\nSUMMARY:Open home: ${icsEscape(detail.address.display)}\r\n`);
      for (const words of ['0400', 'BSB', 'DESCRIPTION', 'Inspection', 'xxxxx']) expect(ics, summary).not.toContain(words);
      // The same file as without it (but for DTSTAMP, the time it was made).
      expect(ics.replace(/DTSTAMP:\S+/, '')).toBe(plain.replace(/DTSTAMP:\S+/, ''));
    }
  });

  it('links only a page of the agency’s own (its allowed origins, the relay’s), never another site', async () => {
    const detail = withOpenHomes[0]!;
    const openHome = detail.openHomes[0]!.id;
    const elsewhere = await (await calendar(detail.id, openHome, `?page=${encodeURIComponent('https://phish.example/pay-deposit')}`)).text();
    expect(elsewhere).not.toContain('phish.example');
    expect(elsewhere).not.toContain('\r\nURL:');
    const own = `${rig.publicUrl}/listings/${detail.id}/x`;
    expect(await (await calendar(detail.id, openHome, `?page=${encodeURIComponent(own)}`)).text()).toContain(`\r\nURL:${own}\r\n`);
  });

  it('never writes a withheld street address: only the address as the agency shows it', async () => {
    const withheld = withOpenHomes.filter((detail) => rig.simListing(detail.id).fields.addressVisibility !== 'fullAddress');
    expect(withheld.length, 'the seed has listings with a withheld street address and open homes').toBeGreaterThan(0);
    for (const detail of withheld) {
      const street = (rig.simListing(detail.id).fields.address as { streetNumber: string; street: string }) ?? {};
      const ics = await (await calendar(detail.id, detail.openHomes[0]!.id)).text();
      expect(ics.replace(/\r\n /g, '')).toContain(`LOCATION:${icsEscape(detail.address.display)}\r\n`);
      const visibility = rig.simListing(detail.id).fields.addressVisibility;
      if (visibility === 'suburb') expect(ics).not.toContain(street.street);
      expect(ics).not.toContain(`${street.streetNumber} ${street.street}`);
    }
  });

  it('answers 404 for an open home that is over or cancelled, or a listing it does not have', async () => {
    const detail = withOpenHomes[0]!;
    const unknown = Math.max(...detail.openHomes.map((openHome) => openHome.id)) + 1_000_000;
    const gone = await calendar(detail.id, unknown);
    expect(gone.status).toBe(404);
    expect((await gone.json()).error).toBe('open_home_not_found');
    expect((await calendar(999_999_999, detail.openHomes[0]!.id)).status).toBe(404);
  });

  it('answers 400 naming the field for a bad id or page', async () => {
    const detail = withOpenHomes[0]!;
    const openHome = detail.openHomes[0]!.id;
    const bad = async (response: Response, field: string) => {
      expect(response.status).toBe(400);
      expect(Object.keys((await response.json()).fields)).toEqual([field]);
    };
    await bad(await fetch(`${rig.relay.url}/api/v1/listings/${detail.id}/open-homes/first.ics`), 'openHomeId');
    await bad(await calendar(detail.id, openHome, `?page=${encodeURIComponent('javascript:alert(1)')}`), 'page');
  });
});
