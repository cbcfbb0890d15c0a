// The lists the sync asks the CRM for: one `/available` list per class and type the CRM has
// (land and rural have no lease list), and the sold and leased showcase lists only with SOLD_DAYS.
import { describe, expect, it } from 'vitest';
import { listSpecs } from '../../server/crm/lists.ts';

const listings = (classes: Array<'residential' | 'commercial' | 'land' | 'rural'>, soldDays = 0) =>
  ({ listings: { classes, soldDays } }) as Parameters<typeof listSpecs>[0];

describe('listSpecs', () => {
  it('asks each class for its published sale list, and residential and commercial for their lease list, in class order', () => {
    const specs = listSpecs(listings(['residential', 'land', 'commercial', 'rural']));
    expect(specs.map(({ source, group, propertyClass, type, status, path, query }) => ({ source, group, propertyClass, type, status, path, query }))).toEqual([
      {
        source: 'residential/sale/available',
        group: 'residential',
        propertyClass: 'residential',
        type: 'sale',
        status: 'available',
        path: '/properties/residential/sale/available',
        query: { published: true },
      },
      {
        source: 'residential/lease/available',
        group: 'residential',
        propertyClass: 'residential',
        type: 'lease',
        status: 'available',
        path: '/properties/residential/lease/available',
        query: { published: true },
      },
      {
        source: 'land/sale/available',
        group: 'land',
        propertyClass: 'land',
        type: 'sale',
        status: 'available',
        path: '/properties/land/sale/available',
        query: { published: true },
      },
      {
        source: 'commercial/sale/available',
        group: 'commercial',
        propertyClass: 'commercial',
        type: 'sale',
        status: 'available',
        path: '/properties/commercial/sale/available',
        query: { published: true },
      },
      {
        source: 'commercial/lease/available',
        group: 'commercial',
        propertyClass: 'commercial',
        type: 'lease',
        status: 'available',
        path: '/properties/commercial/lease/available',
        query: { published: true },
      },
      {
        source: 'rural/sale/available',
        group: 'rural',
        propertyClass: 'rural',
        type: 'sale',
        status: 'available',
        path: '/properties/rural/sale/available',
        query: { published: true },
      },
    ]);
    expect(specs.every((spec) => spec.windowStart === undefined)).toBe(true);
  });

  it('adds the residential sold and leased lists, windowed to SOLD_DAYS, only when SOLD_DAYS > 0', () => {
    const specs = listSpecs(listings(['residential'], 90));
    expect(specs.map((spec) => spec.source)).toEqual([
      'residential/sale/available',
      'residential/lease/available',
      'residential/sale/sold',
      'residential/lease/leased',
    ]);
    expect(specs[3]).toMatchObject({ path: '/properties/residential/lease', query: { published: true, status: 'management' } });
    expect(specs[2]!.windowStart!(100 * 86_400_000)).toBe(10 * 86_400_000);
    expect(listSpecs(listings(['commercial'], 90)).map((spec) => spec.source)).toEqual(['commercial/sale/available', 'commercial/lease/available']);
  });
});
