import type { SavedSearchFilterName, SavedSearchFilters } from '../../contract/saved-search.ts';
import type { PropertyClass } from './client.ts';
import type { AddRequirement, CrmRequirement, CrmSuburb, RequirementSuburb } from './contact-schemas.ts';
import type { KnownType } from './vocabulary.ts';

/**
 * A saved search in the CRM's words: a buying or renting requirement (AddUpdateContactRequirement),
 * the CRM's own saved search, which agents match new listings against.
 */

/** What the mapping knows of the CRM's records for the search's names (vocabulary.ts). */
export interface RequirementWords {
  suburb?: CrmSuburb;
  /** The records of a map area's suburbs (`search.suburbs`), in its order; undefined where the CRM's listings never named one. */
  areaSuburbs?: ReadonlyArray<CrmSuburb | undefined>;
  type?: KnownType;
  classIds: ReadonlyMap<PropertyClass, number>;
  /** The one class the relay shows (LISTING_CLASSES), when it shows one: a search without a type is of that class. */
  onlyClass?: PropertyClass;
}

type Mapping<Name extends SavedSearchFilterName> = {
  /** The requirement field it fills (for the reference and the contract test). */
  field: keyof AddRequirement;
  map: (value: NonNullable<SavedSearchFilters[Name]>, words: RequirementWords) => Partial<AddRequirement>;
};

/**
 * Where each filter a saved search keeps (contract/saved-search.ts) lands in the requirement: one
 * entry per kept filter, no more, no less, or the compiler refuses (and
 * test/contract/saved-search-requirement.test.ts fails).
 */
export const REQUIREMENT_FIELDS: { [Name in SavedSearchFilterName]: Mapping<Name> } = {
  type: { field: 'type', map: (type) => ({ type }) },
  suburb: { field: 'suburbs', map: (suburb, words) => ({ suburbs: [suburbOf(suburb, words.suburb)] }) },
  minPrice: { field: 'minimumPrice', map: (minPrice) => ({ minimumPrice: minPrice }) },
  maxPrice: { field: 'maximumPrice', map: (maxPrice) => ({ maximumPrice: maxPrice }) },
  minBeds: { field: 'minimumBed', map: (minBeds) => ({ minimumBed: minBeds }) },
  minBaths: { field: 'minimumBath', map: (minBaths) => ({ minimumBath: minBaths }) },
  minCars: { field: 'minimumCar', map: (minCars) => ({ minimumCar: minCars }) },
  // A type the CRM's listings never named has no id to send: the requirement keeps the class only.
  minLand: { field: 'landArea', map: (minLand) => ({ landArea: { minimum: minLand, units: 'sqm' } }) },
  propertyType: { field: 'propertyTypes', map: (_propertyType, words) => (words.type ? { propertyTypes: [{ id: words.type.id }] } : {}) },
};

/** The suburb by the CRM's id when its records named it, else by name (the Suburb shape requires no field). */
function suburbOf(name: string, known: CrmSuburb | undefined): RequirementSuburb {
  if (known?.id != null) return { id: known.id };
  return { name: name.trim().toUpperCase() };
}

/** The requirement for a saved search, built field by field from the mapping table. */
export function toRequirement(search: SavedSearchFilters, words: RequirementWords): AddRequirement {
  // No type chosen: homes for sale and for lease alike.
  const requirement: AddRequirement = { active: true, type: 'saleOrLease' };
  for (const name of Object.keys(REQUIREMENT_FIELDS) as SavedSearchFilterName[]) {
    const value = search[name];
    if (value === undefined) continue;
    Object.assign(requirement, (REQUIREMENT_FIELDS[name].map as (value: unknown, words: RequirementWords) => Partial<AddRequirement>)(value, words));
  }
  // A map area's suburbs (never beside `suburb`: the schema refuses both): the requirement's suburbs, in the form's order.
  if (search.suburbs !== undefined) requirement.suburbs = search.suburbs.map((name, index) => suburbOf(name, words.areaSuburbs?.[index]));
  // The class: the chosen type's, else the one class the site shows (a site of several classes leaves it open).
  const classId = words.type?.classId ?? (words.onlyClass ? words.classIds.get(words.onlyClass) : undefined);
  if (classId != null) requirement.propertyClass = { id: classId };
  return requirement;
}

/**
 * Whether a requirement the CRM holds is the one `sent` would make: how a requirement whose POST
 * had an unknown outcome is recognised (the CRM keeps no marker of the caller's on a requirement).
 */
export function requirementEquals(held: CrmRequirement, sent: AddRequirement): boolean {
  const same = (left: number | null | undefined, right: number | null | undefined) => (left ?? null) === (right ?? null);
  if ((held.type ?? null) !== sent.type) return false;
  if (!same(held.propertyClass?.id, sent.propertyClass?.id)) return false;
  if (!same(held.minimumPrice, sent.minimumPrice) || !same(held.maximumPrice, sent.maximumPrice)) return false;
  if (!same(held.minimumBed, sent.minimumBed) || !same(held.minimumBath, sent.minimumBath) || !same(held.minimumCar, sent.minimumCar)) return false;
  if (!same(held.landArea?.minimum, sent.landArea?.minimum)) return false;
  const heldTypes = held.propertyTypes.map((type) => type.id).sort();
  const sentTypes = (sent.propertyTypes ?? []).map((type) => type.id).sort();
  if (heldTypes.join(',') !== sentTypes.join(',')) return false;
  const sentSuburbs = sent.suburbs ?? [];
  if (held.suburbs.length !== sentSuburbs.length) return false;
  return sentSuburbs.every((suburb) =>
    held.suburbs.some((candidate) =>
      suburb.id !== undefined ? candidate.id === suburb.id : (candidate.name ?? '').toLowerCase() === (suburb.name ?? '').toLowerCase(),
    ),
  );
}
