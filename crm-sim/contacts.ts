import type { SimListing } from './model.ts';
import { CLASSES, STATES, SUBURBS, TYPES, type PropertyClassName, type SuburbInfo } from './seed-data.ts';
import { formatDateTime, SECOND } from './time.ts';

/**
 * The account's contacts, their categories and their buying or renting requirements (the CRM's own
 * saved search), with the shapes of crm-v1.3-openapi-contacts.yml: `POST /contacts` (AddContact),
 * `GET /search/contacts/email` (exact match, ContactSearchResult), `PUT /contacts/{id}/categories`
 * (replaces the set), `POST /contacts/{id}/requirements` (AddUpdateContactRequirement) and the
 * reverse, `matchingContacts` of a listing.
 *
 * Like POST /enquiries, neither create is idempotent: a second POST makes a second contact or a
 * second requirement. Where the published schema marks nothing required, the simulator's reading:
 * a contact needs a name (first or last) and an e-mail or phone number; a requirement's type is
 * sale, lease or saleOrLease; ids name records that exist (classes, types, categories); suburbs are
 * named by id, or by name (with postcode or state to tell two of one name apart), and answered whole.
 */

export class ContactInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Contact categories of the account (GET /categories/contact): an agency names its own. */
export const CONTACT_CATEGORIES = [
  { id: 61, name: 'Buyer' },
  { id: 62, name: 'Tenant' },
  { id: 63, name: 'Investor' },
  { id: 64, name: 'Web alerts' },
  { id: 65, name: 'Vendor' },
] as const;

export interface SimRequirement {
  id: number;
  inserted: number;
  modified: number;
  active: boolean;
  type: 'sale' | 'lease' | 'saleOrLease';
  propertyClass: PropertyClassName | null;
  minimumPrice: number | null;
  maximumPrice: number | null;
  minimumBed: number | null;
  minimumBath: number | null;
  minimumCar: number | null;
  landArea: { minimum: number | null; maximum: number | null; units: string } | null;
  buildingArea: { minimum: number | null; maximum: number | null; units: string } | null;
  /** Type keys of TYPES. */
  propertyTypes: Array<keyof typeof TYPES>;
  suburbs: SuburbInfo[];
  propertyTags: string[];
}

/** A note on a contact (POST /contacts/{id}/notes): what an agent reads on the contact's record. */
export interface SimContactNote {
  id: number;
  inserted: number;
  modified: number;
  body: string;
  readOnly: boolean;
}

export interface SimContact {
  id: number;
  inserted: number;
  modified: number;
  firstName: string | null;
  lastName: string | null;
  emails: string[];
  phoneNumbers: Array<{ number: string; typeCode: string; type: string }>;
  unsubscribe: { email: boolean; sms: boolean; letters: boolean };
  categories: number[];
  requirements: SimRequirement[];
  notes: SimContactNote[];
  /** Seeded (the agency's existing database) or posted through the API. */
  origin: 'seed' | 'api';
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const PHONE_TYPES: Record<string, string> = { H: 'Home', W: 'Work', M: 'Mobile', F: 'Facsimile', D: 'Direct' };

const record = (input: unknown, field: string): Record<string, unknown> => {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ContactInputError(field, `${field} must be a JSON object`);
  return input as Record<string, unknown>;
};

const text = (raw: Record<string, unknown>, field: string, max = 255): string | null => {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ContactInputError(field, `${field} must be a string`);
  if (value.length > max) throw new ContactInputError(field, `${field} must be at most ${max} characters`);
  return value.trim() === '' ? null : value.trim();
};

const id = (value: unknown, field: string): number => {
  const candidate = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  if (typeof candidate === 'number' && Number.isSafeInteger(candidate) && candidate > 0) return candidate;
  if (typeof candidate === 'string' && /^\d+$/.test(candidate)) return Number(candidate);
  throw new ContactInputError(field, `${field} must be {id: <whole number>}`);
};

const list = (raw: Record<string, unknown>, field: string, max = 100): unknown[] => {
  const value = raw[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > max) throw new ContactInputError(field, `${field} must be a list of at most ${max}`);
  return value;
};

const count = (raw: Record<string, unknown>, field: string): number | null => {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1000)
    throw new ContactInputError(field, `${field} must be a whole number from 0`);
  return value;
};

const amount = (raw: Record<string, unknown>, field: string): number | null => {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new ContactInputError(field, `${field} must be a number from 0`);
  return value;
};

function areaRange(raw: Record<string, unknown>, field: string): SimRequirement['landArea'] {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  const area = record(value, field);
  const units = area.units ?? 'sqm';
  if (units !== 'sqm' && units !== 'acre' && units !== 'hectare') throw new ContactInputError(field, `${field}.units must be sqm, acre or hectare`);
  return { minimum: count({ minimum: area.minimum }, 'minimum'), maximum: count({ maximum: area.maximum }, 'maximum'), units };
}

/** A Suburb as a requirement names it: by id, or by name (postcode or state to choose between two of one name). */
function suburbOf(value: unknown): SuburbInfo {
  const raw = record(value, 'suburbs');
  if (raw.id !== undefined && raw.id !== null) {
    const found = SUBURBS.find((suburb) => suburb.id === id(raw, 'suburbs'));
    if (!found) throw new ContactInputError('suburbs', `suburb id ${String(raw.id)} is not a suburb`);
    return found;
  }
  const name = typeof raw.name === 'string' ? raw.name.trim().toLowerCase() : '';
  if (!name) throw new ContactInputError('suburbs', 'a suburb must give its id or its name');
  const postcode = typeof raw.postcode === 'string' ? raw.postcode.trim() : undefined;
  const state = (raw.state as { abbreviation?: unknown } | null | undefined)?.abbreviation;
  const found = SUBURBS.filter(
    (suburb) =>
      suburb.name.toLowerCase() === name &&
      (postcode === undefined || suburb.postcode === postcode) &&
      (typeof state !== 'string' || suburb.state === state.toUpperCase()),
  );
  if (found.length === 0) throw new ContactInputError('suburbs', `no suburb named ${JSON.stringify(raw.name)}`);
  if (found.length > 1) throw new ContactInputError('suburbs', `${JSON.stringify(raw.name)} names more than one suburb: give its postcode`);
  return found[0]!;
}

/** AddContact → a new contact (id 0: the book numbers it). */
export function parseContact(input: unknown): Omit<SimContact, 'id' | 'inserted' | 'modified'> {
  const raw = record(input, '(body)');
  const firstName = text(raw, 'firstName');
  const lastName = text(raw, 'lastName');
  if (!firstName && !lastName) throw new ContactInputError('firstName', 'a name is required: firstName or lastName');
  const emails = list(raw, 'emails', 10).map((email) => {
    if (typeof email !== 'string' || !EMAIL.test(email.trim()) || email.length > 254) throw new ContactInputError('emails', 'emails must be e-mail addresses');
    return email.trim();
  });
  const phoneNumbers = list(raw, 'phoneNumbers', 10).map((entry) => {
    const phone = record(entry, 'phoneNumbers');
    const number = typeof phone.number === 'string' ? phone.number.trim() : '';
    if (!/^\+?[\d\s()-]{6,20}$/.test(number)) throw new ContactInputError('phoneNumbers', 'phoneNumbers[].number is not a phone number');
    const typeCode = typeof phone.typeCode === 'string' && PHONE_TYPES[phone.typeCode] ? phone.typeCode : 'M';
    return { number, typeCode, type: PHONE_TYPES[typeCode]! };
  });
  if (emails.length === 0 && phoneNumbers.length === 0) throw new ContactInputError('emails', 'a way to reach the contact is required: emails or phoneNumbers');
  const unsubscribeRaw = raw.unsubscribe === undefined || raw.unsubscribe === null ? {} : record(raw.unsubscribe, 'unsubscribe');
  const flag = (name: string) => {
    const value = unsubscribeRaw[name];
    if (value !== undefined && typeof value !== 'boolean') throw new ContactInputError('unsubscribe', `unsubscribe.${name} must be true or false`);
    return value === true;
  };
  return {
    firstName,
    lastName,
    emails,
    phoneNumbers,
    unsubscribe: { email: flag('email'), sms: flag('sms'), letters: flag('letters') },
    categories: [],
    requirements: [],
    notes: [],
    origin: 'api',
  };
}

/** AddContactNote → a note (id 0: the book numbers it): its body required, at most 10,000 characters. */
export function parseContactNote(input: unknown): Omit<SimContactNote, 'id' | 'inserted' | 'modified'> {
  const raw = record(input, '(body)');
  const body = raw.body;
  if (typeof body !== 'string' || body.trim() === '') throw new ContactInputError('body', 'body (the note text) is required');
  if (body.length > 10_000) throw new ContactInputError('body', 'body must be at most 10000 characters');
  if (raw.readOnly !== undefined && typeof raw.readOnly !== 'boolean') throw new ContactInputError('readOnly', 'readOnly must be true or false');
  return { body, readOnly: raw.readOnly === true };
}

/** ContactNoteExtended, as the CRM answers it. */
export function renderContactNote(note: SimContactNote): Record<string, unknown> {
  return {
    id: note.id,
    body: note.body,
    readOnly: note.readOnly,
    type: null,
    reminder: null,
    inserted: formatDateTime(note.inserted),
    modified: formatDateTime(note.modified),
    insertedBy: null,
    accessBy: [],
  };
}

/** AddUpdateContactRequirement → a requirement (id 0: the book numbers it). */
export function parseRequirement(input: unknown): Omit<SimRequirement, 'id' | 'inserted' | 'modified'> {
  const raw = record(input, '(body)');
  const type = raw.type;
  if (type !== 'sale' && type !== 'lease' && type !== 'saleOrLease') throw new ContactInputError('type', 'type must be sale, lease or saleOrLease');
  let propertyClass: PropertyClassName | null = null;
  if (raw.propertyClass !== undefined && raw.propertyClass !== null) {
    const classId = id(raw.propertyClass, 'propertyClass');
    const found = (Object.keys(CLASSES) as PropertyClassName[]).find((name) => CLASSES[name].id === classId);
    if (!found) throw new ContactInputError('propertyClass', `propertyClass ${classId} is not a property class`);
    propertyClass = found;
  }
  const propertyTypes = list(raw, 'propertyTypes', 50).map((entry) => {
    const typeId = id(entry, 'propertyTypes');
    const key = (Object.keys(TYPES) as Array<keyof typeof TYPES>).find((name) => TYPES[name].id === typeId);
    if (!key) throw new ContactInputError('propertyTypes', `property type ${typeId} is not a property type`);
    if (propertyClass !== null && TYPES[key].class !== propertyClass) {
      throw new ContactInputError('propertyTypes', `property type ${typeId} is not of the class ${propertyClass}`);
    }
    return key;
  });
  const suburbs = list(raw, 'suburbs', 100).map(suburbOf);
  const minimumPrice = amount(raw, 'minimumPrice');
  const maximumPrice = amount(raw, 'maximumPrice');
  if (minimumPrice !== null && maximumPrice !== null && maximumPrice < minimumPrice)
    throw new ContactInputError('maximumPrice', 'maximumPrice is below minimumPrice');
  const active = raw.active === undefined || raw.active === null ? true : raw.active;
  if (typeof active !== 'boolean') throw new ContactInputError('active', 'active must be true or false');
  const propertyTags = list(raw, 'propertyTags', 50).map((tag) => {
    if (typeof tag !== 'string' || tag.length > 100) throw new ContactInputError('propertyTags', 'propertyTags must be strings');
    return tag;
  });
  return {
    active,
    type,
    propertyClass,
    minimumPrice,
    maximumPrice,
    minimumBed: count(raw, 'minimumBed'),
    minimumBath: count(raw, 'minimumBath'),
    minimumCar: count(raw, 'minimumCar'),
    landArea: areaRange(raw, 'landArea'),
    buildingArea: areaRange(raw, 'buildingArea'),
    propertyTypes,
    suburbs,
    propertyTags,
  };
}

function renderClass(name: PropertyClassName | null) {
  return name === null ? null : { ...CLASSES[name] };
}

export function renderSuburb(suburb: SuburbInfo) {
  const state = STATES[suburb.state];
  return {
    id: suburb.id,
    name: suburb.name.toUpperCase(),
    postcode: suburb.postcode,
    state: { id: state.id, name: state.name, abbreviation: state.abbreviation },
    nzDistrict: null,
    isPoBox: false,
  };
}

/** ContactRequirement as the API answers it. */
export function renderRequirement(requirement: SimRequirement): Record<string, unknown> {
  return {
    id: requirement.id,
    inserted: formatDateTime(requirement.inserted),
    modified: formatDateTime(requirement.modified),
    active: requirement.active,
    propertyClass: renderClass(requirement.propertyClass),
    minimumPrice: requirement.minimumPrice,
    maximumPrice: requirement.maximumPrice,
    minimumBed: requirement.minimumBed,
    minimumBath: requirement.minimumBath,
    minimumCar: requirement.minimumCar,
    minimumPricePerSQM: null,
    maximumPricePerSQM: null,
    landArea: requirement.landArea,
    buildingArea: requirement.buildingArea,
    propertyTypes: requirement.propertyTypes.map((key) => ({ id: TYPES[key].id, name: TYPES[key].name, propertyClass: { ...CLASSES[TYPES[key].class] } })),
    propertyTags: [...requirement.propertyTags],
    suburbs: requirement.suburbs.map(renderSuburb),
    type: requirement.type,
    tenantedInvestment: false,
  };
}

/** ContactExtended as the API answers it (real contacts carry many nulls: the fields the agency never filled in). */
export function renderContact(contact: SimContact): Record<string, unknown> {
  const displayName = [contact.firstName, contact.lastName].filter(Boolean).join(' ');
  return {
    id: contact.id,
    title: null,
    firstName: contact.firstName,
    lastName: contact.lastName,
    greeting: contact.firstName,
    displayName,
    partnerTitle: null,
    partnerFirstName: null,
    partnerLastName: null,
    company: null,
    position: null,
    address: null,
    postalAddress: null,
    onDoNotCallList: false,
    archived: false,
    inserted: formatDateTime(contact.inserted),
    modified: formatDateTime(contact.modified),
    touched: formatDateTime(contact.modified),
    remoteId: null,
    unsubscribe: { ...contact.unsubscribe },
    entityType: { id: 1, name: 'Person' },
    emails: [...contact.emails],
    phoneNumbers: contact.phoneNumbers.map((phone) => ({ ...phone, comment: null })),
    legalDescription: null,
    abn: null,
    acn: null,
    marketingUsers: [],
    smsUnsubscribeUrl: null,
    customUnsubscribe: [],
    accessBy: [],
    sourceOfEnquiry: null,
  };
}

/** ContactSearchResult (GET /search/contacts/email). */
export function renderSearchResult(contact: SimContact): Record<string, unknown> {
  return {
    id: contact.id,
    name: [contact.firstName, contact.lastName].filter(Boolean).join(' '),
    greeting: contact.firstName,
    firstName: contact.firstName,
    lastName: contact.lastName,
    emails: [...contact.emails],
    phoneNumbers: contact.phoneNumbers.map((phone) => ({ ...phone, comment: null })),
    marketingUsers: [],
    editableBy: [],
  };
}

/** Does an active requirement match a listing? What agents use to send a new listing to its buyers. */
export function requirementMatches(requirement: SimRequirement, listing: SimListing): boolean {
  if (!requirement.active) return false;
  if (requirement.type !== 'saleOrLease' && requirement.type !== listing.market) return false;
  if (requirement.propertyClass !== null && requirement.propertyClass !== listing.propertyClass) return false;
  const fields = listing.fields as {
    type?: { id?: number };
    address?: { suburb?: { id?: number } };
    searchPrice?: number | null;
    bed?: number | null;
    bath?: number | null;
    garages?: number | null;
    carports?: number | null;
    openSpaces?: number | null;
    landArea?: { value?: number | null } | null;
  };
  if (requirement.propertyTypes.length > 0 && !requirement.propertyTypes.some((key) => TYPES[key].id === fields.type?.id)) return false;
  if (requirement.suburbs.length > 0 && !requirement.suburbs.some((suburb) => suburb.id === fields.address?.suburb?.id)) return false;
  const price = typeof fields.searchPrice === 'number' ? fields.searchPrice : null;
  if (requirement.minimumPrice !== null && (price === null || price < requirement.minimumPrice)) return false;
  if (requirement.maximumPrice !== null && (price === null || price > requirement.maximumPrice)) return false;
  const atLeast = (minimum: number | null, value: number | null | undefined) => minimum === null || (value ?? 0) >= minimum;
  const cars = (fields.garages ?? 0) + (fields.carports ?? 0) + (fields.openSpaces ?? 0);
  if (!atLeast(requirement.minimumBed, fields.bed) || !atLeast(requirement.minimumBath, fields.bath) || !atLeast(requirement.minimumCar, cars)) return false;
  const land = fields.landArea?.value ?? null;
  if (requirement.landArea?.minimum != null && (land === null || land < requirement.landArea.minimum)) return false;
  if (requirement.landArea?.maximum != null && (land === null || land > requirement.landArea.maximum)) return false;
  return true;
}

/** The account's contact database. Ids sit in the account's own id range, as every other record's. */
export class ContactBook {
  contacts: SimContact[] = [];
  private nextContactId: number;
  private nextRequirementId: number;
  private nextNoteId: number;

  constructor(
    private readonly idOffset: number,
    private readonly now: () => number,
  ) {
    this.nextContactId = 3_600_001 + idOffset;
    this.nextRequirementId = 120_001 + idOffset;
    this.nextNoteId = 880_001 + idOffset;
  }

  private stamp(): number {
    return Math.floor(this.now() / SECOND) * SECOND;
  }

  get(id: number): SimContact | undefined {
    return this.contacts.find((contact) => contact.id === id);
  }

  /** Exact match on any of a contact's e-mail addresses, ignoring case (as the CRM's search does). */
  byEmail(email: string): SimContact[] {
    const wanted = email.trim().toLowerCase();
    return this.contacts.filter((contact) => contact.emails.some((candidate) => candidate.toLowerCase() === wanted));
  }

  add(input: Omit<SimContact, 'id' | 'inserted' | 'modified'>): SimContact {
    const at = this.stamp();
    const contact: SimContact = { ...input, id: this.nextContactId++, inserted: at, modified: at };
    this.contacts.push(contact);
    return contact;
  }

  addRequirement(contact: SimContact, input: Omit<SimRequirement, 'id' | 'inserted' | 'modified'>): SimRequirement {
    const at = this.stamp();
    const requirement: SimRequirement = { ...input, id: this.nextRequirementId++, inserted: at, modified: at };
    contact.requirements.push(requirement);
    contact.modified = at;
    return requirement;
  }

  addNote(contact: SimContact, input: Omit<SimContactNote, 'id' | 'inserted' | 'modified'>): SimContactNote {
    const at = this.stamp();
    const note: SimContactNote = { ...input, id: this.nextNoteId++, inserted: at, modified: at };
    contact.notes.push(note);
    return note;
  }

  setCategories(contact: SimContact, ids: number[]): void {
    contact.categories = [...new Set(ids)];
    contact.modified = this.stamp();
  }

  /** The contacts posted through the API (not the seeded ones), oldest first. */
  posted(): SimContact[] {
    return this.contacts.filter((contact) => contact.origin === 'api');
  }

  /** Contacts with an active requirement matching the listing. */
  matching(listing: SimListing): SimContact[] {
    return this.contacts.filter((contact) => contact.requirements.some((requirement) => requirementMatches(requirement, listing)));
  }

  reset(): void {
    this.contacts = [];
  }
}

/** A category id list (`items: [{id}]`) checked against the account's categories. */
export function parseCategoryItems(input: unknown): number[] {
  const raw = record(input, '(body)');
  const items = list(raw, 'items', 100);
  return items.map((item) => {
    const categoryId = id(item, 'items');
    if (!CONTACT_CATEGORIES.some((category) => category.id === categoryId))
      throw new ContactInputError('items', `category ${categoryId} is not a contact category`);
    return categoryId;
  });
}
