import { describe, expect, it } from 'vitest';
import { crmEnquirySchema, crmListEnvelopeSchema, crmPhotoSchema, crmPropertySchema, crmUserSchema, parseList } from '../../server/crm/schemas.ts';
import { toCrmDateTime, fullJitter } from '../../server/crm/client.ts';
import { parseRetryAfter } from '../../server/runtime/retry-after.ts';

/** A residential sale item as real v1.3 responses have it: nulls, unknown and confidential fields. */
function realisticProperty(overrides: Record<string, unknown> = {}) {
  return {
    id: 5012345,
    saleLifeId: 88001,
    leaseLifeId: null,
    inserted: '2022-03-20T23:10:00+00:00',
    modified: '2022-03-25T01:40:27+00:00',
    class: { id: 1, name: 'Residential', internalName: 'residential' },
    type: { id: 3, name: 'House', propertyClass: null },
    status: 'listing',
    portalStatus: null,
    displayAddress: '33 Example Street, Kew VIC',
    addressVisibility: 'fullAddress',
    address: {
      unitNumber: null,
      streetNumber: '33',
      street: 'Example Street',
      suburb: { id: null, name: 'KEW', postcode: '3101', state: { abbreviation: 'VIC' }, isPoBox: false },
      country: { isocode: 'AU' },
      royalMail: null,
    },
    geolocation: { latitude: null, longitude: null },
    heading: null,
    description: 'Family home\r\n&#x2022; North facing',
    displayPrice: 'Contact Agent',
    searchPrice: 1_350_000,
    bed: 4,
    bath: null,
    garages: 1,
    carports: null,
    openSpaces: 2,
    landArea: { value: null, units: 'sqm' },
    floorArea: null,
    methodOfSale: { name: 'Auction' },
    auctionDetails: { dateTime: '2022-04-30T00:30:00+00:00', venue: null, auctioneer: null },
    externalLinks: null,
    contactStaff: [
      {
        id: 77,
        firstName: 'Jo',
        lastName: 'Agent',
        phoneNumbers: [{ number: '0400 000 000', type: 'Mobile', typeCode: 'M' }],
        photo: null,
        showOnWeb: true,
        username: 'jo.agent',
        permissions: { settings: true },
        lastLogin: '2022-03-24T01:00:00+00:00',
      },
    ],
    // Confidential fields a real list response carries: accepted, typed unknown, never declared.
    internalRemarks: 'Vendor must sell before June',
    tenantName: 'A Tenant',
    vpa: 5000,
    agentPriceOpinion: 1_400_000,
    // A field from a later minor version.
    brandNewFieldFrom2031: { nested: [1, 2, 3] },
    ...overrides,
  };
}

describe('CRM schemas', () => {
  it('reads a realistic property with nulls, unknown and confidential fields', () => {
    const parsed = crmPropertySchema.parse(realisticProperty());
    expect(parsed.id).toBe(5012345);
    expect(parsed.leaseLifeId).toBeNull();
    expect(parsed.bath).toBeNull();
    expect(parsed.address?.suburb?.name).toBe('KEW');
    expect(parsed.externalLinks).toEqual([]); // null reads as an empty list
    expect(parsed.photos).toEqual([]); // absent reads as an empty list
    expect(parsed.contactStaff[0]?.firstName).toBe('Jo');
    // Unknown fields pass through (loose objects): nothing is silently lost from a sync.
    expect(parsed.brandNewFieldFrom2031).toEqual({ nested: [1, 2, 3] });
    expect(parsed.contactStaff[0]?.username).toBe('jo.agent');
  });

  it('accepts null in every declared field of a property except its id', () => {
    const allNull = Object.fromEntries(Object.keys(crmPropertySchema.shape).map((key) => [key, null]));
    const parsed = crmPropertySchema.parse({ ...allNull, id: 1 });
    expect(parsed.id).toBe(1);
    expect(() => crmPropertySchema.parse({ ...allNull, id: null })).toThrow();
    expect(() => crmPropertySchema.parse({ ...allNull })).toThrow();
  });

  it('accepts null in every declared field of photos, users and enquiries except the id', () => {
    for (const schema of [crmPhotoSchema, crmUserSchema, crmEnquirySchema]) {
      const allNull = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, null]));
      expect(schema.parse({ ...allNull, id: 9 }).id).toBe(9);
      expect(schema.safeParse({ ...allNull, id: null }).success).toBe(false);
    }
  });

  it('rejects a wrong type where it matters, naming the field', () => {
    const result = crmPropertySchema.safeParse(realisticProperty({ bed: 'four' }));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['bed']);
  });

  it('keeps the valid items of a list page and counts the invalid ones', () => {
    const envelope = crmListEnvelopeSchema.parse({
      items: [realisticProperty(), { ...realisticProperty(), id: null }, realisticProperty({ id: 7 })],
      totalItems: 3,
      totalPages: 1,
      urls: { previous: null, next: null, self: 'x' },
    });
    const { list, issues } = parseList(crmPropertySchema, envelope);
    expect(list.items.map((item) => item.id)).toEqual([5012345, 7]);
    expect(list.invalidItems).toBe(1);
    expect(list.totalItems).toBe(3);
    expect(issues).toEqual([{ index: 1, paths: ['id'] }]);
  });

  it('reads an envelope with null paging figures', () => {
    const envelope = crmListEnvelopeSchema.parse({ items: null, totalItems: null, totalPages: null });
    expect(parseList(crmPhotoSchema, envelope).list).toEqual({ items: [], totalItems: 0, totalPages: 1, invalidItems: 0 });
  });
});

describe('client helpers', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2024-05-01T10:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 May 2024 10:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Wed, 01 May 2024 09:00:00 GMT', now)).toBe(0); // in the past: now
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('writes DateTimes the way the CRM does', () => {
    expect(toCrmDateTime(new Date('2022-03-25T01:40:27.123Z'))).toBe('2022-03-25T01:40:27+00:00');
  });

  it('backs off with full jitter inside an exponentially growing, capped bound', () => {
    for (let retry = 1; retry <= 8; retry++) {
      const bound = Math.min(10_000, 500 * 2 ** (retry - 1));
      const samples = Array.from({ length: 200 }, () => fullJitter(500, retry));
      expect(Math.max(...samples)).toBeLessThanOrEqual(bound);
      expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
      // Full jitter spreads over the whole range, not around the bound.
      expect(Math.min(...samples)).toBeLessThan(bound / 4);
    }
  });
});
