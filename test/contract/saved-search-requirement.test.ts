// The filter table (contract/listing-filters.ts) against the CRM requirement: every filter decides
// whether a saved search keeps it (contract/saved-search.ts), and every kept filter has its place in
// the requirement (server/crm/requirement.ts), checked by the value it lands there with. A filter
// added to the table without both decisions fails here (and the compiler refuses it first).
import { describe, expect, it } from 'vitest';
import { LISTING_FILTER_NAMES, LISTING_FILTERS } from '../../contract/listing-filters.ts';
import { SAVED_SEARCH_FILTERS, SAVED_SEARCH_FILTER_NAMES, type SavedSearchFilterName } from '../../contract/saved-search.ts';
import { REQUIREMENT_FIELDS, requirementEquals, toRequirement } from '../../server/crm/requirement.ts';
import type { AddRequirement } from '../../server/crm/contact-schemas.ts';

/** A value of each kind, as the saved-search body carries it. */
const SAMPLE: { [Name in SavedSearchFilterName]: NonNullable<Parameters<(typeof REQUIREMENT_FIELDS)[Name]['map']>[0]> } = {
  type: 'lease',
  suburb: 'Kew',
  minPrice: 650_000,
  maxPrice: 900_000,
  minBeds: 3,
  minBaths: 2,
  minCars: 1,
  propertyType: 'Townhouse',
  minLand: 600,
};

const WORDS = {
  suburb: { id: 3101, name: 'KEW', postcode: '3101', state: { id: 7, name: 'Victoria', abbreviation: 'VIC' } },
  type: { id: 3, classId: 1, className: 'residential' as const },
  classIds: new Map([['residential' as const, 1]]),
};

/** What each kept filter's value must be found as in the requirement. */
const EXPECTED: { [Name in SavedSearchFilterName]: Partial<AddRequirement> } = {
  type: { type: 'lease' },
  suburb: { suburbs: [{ id: 3101 }] },
  minPrice: { minimumPrice: 650_000 },
  maxPrice: { maximumPrice: 900_000 },
  minBeds: { minimumBed: 3 },
  minBaths: { minimumBath: 2 },
  minCars: { minimumCar: 1 },
  propertyType: { propertyTypes: [{ id: 3 }], propertyClass: { id: 1 } },
  minLand: { landArea: { minimum: 600, units: 'sqm' } },
};

describe('listing filters → CRM requirement', () => {
  it('every filter of the table decides whether a saved search keeps it', () => {
    expect(Object.keys(SAVED_SEARCH_FILTERS).sort()).toEqual([...LISTING_FILTER_NAMES].sort());
  });

  it('every kept filter has its requirement field, and no entry is left for a filter not kept', () => {
    expect(Object.keys(REQUIREMENT_FIELDS).sort()).toEqual([...SAVED_SEARCH_FILTER_NAMES].sort());
    expect(Object.keys(SAMPLE).sort()).toEqual([...SAVED_SEARCH_FILTER_NAMES].sort());
  });

  for (const name of SAVED_SEARCH_FILTER_NAMES) {
    it(`${name} (${LISTING_FILTERS[name].kind}) lands in ${String(REQUIREMENT_FIELDS[name].field)} with its value`, () => {
      const requirement = toRequirement({ [name]: SAMPLE[name] }, WORDS);
      expect(requirement).toMatchObject(EXPECTED[name]);
      expect(Object.keys(EXPECTED[name])).toContain(REQUIREMENT_FIELDS[name].field);
      // Nothing else is set but the requirement's constants (and the class the site's one class gives).
      const others = Object.keys(requirement).filter((key) => !(key in EXPECTED[name]) && !['active', 'type', 'propertyClass'].includes(key));
      expect(others).toEqual([]);
    });
  }

  it('a search without a type follows sale and lease; a suburb the CRM never named goes by name; an unknown type keeps the class only', () => {
    expect(toRequirement({}, { classIds: new Map() })).toEqual({ active: true, type: 'saleOrLease' });
    expect(toRequirement({ suburb: 'Nowhere' }, { classIds: new Map() }).suburbs).toEqual([{ name: 'NOWHERE' }]);
    expect(toRequirement({ propertyType: 'Castle' }, { classIds: WORDS.classIds, onlyClass: 'residential' })).toEqual({
      active: true,
      type: 'saleOrLease',
      propertyClass: { id: 1 },
    });
  });

  it('recognises the requirement it would make among those the CRM holds (and nothing that differs)', () => {
    const sent = toRequirement(SAMPLE, WORDS);
    const held = {
      id: 9,
      type: 'lease',
      propertyClass: { id: 1 },
      minimumPrice: 650_000,
      maximumPrice: 900_000,
      minimumBed: 3,
      minimumBath: 2,
      minimumCar: 1,
      propertyTypes: [{ id: 3, name: 'Townhouse' }],
      suburbs: [{ id: 3101, name: 'KEW' }],
      landArea: { minimum: 600, maximum: null, units: 'sqm' },
    };
    expect(requirementEquals(held, sent)).toBe(true);
    expect(requirementEquals({ ...held, landArea: null }, sent)).toBe(false);
    expect(requirementEquals({ ...held, minimumBed: 4 }, sent)).toBe(false);
    expect(requirementEquals({ ...held, suburbs: [] }, sent)).toBe(false);
    expect(requirementEquals({ ...held, type: 'sale' }, sent)).toBe(false);
  });
});
