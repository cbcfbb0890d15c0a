import type { ImageRef, Market, OpenHomeSlot, SimEnquiry, SimListing, SimPhoto, SimUser } from './model.ts';
import { photoScenesFor } from './photos.ts';
import { Prng } from './prng.ts';
import {
  ACCOUNT,
  agencyIdentity,
  type AgencyIdentity,
  AUTHORITY_TYPES,
  BRANCHES,
  CLASSES,
  COUNTRY,
  ENQUIRY_CATEGORIES,
  FICTIONAL_MOBILES,
  FIRST_NAMES,
  GROWTH_STREETS,
  HOLDING_AREA_TYPES,
  LAST_NAMES,
  LATER_STAFF_FROM,
  METHODS_OF_SALE,
  OTHER_AGENCY_PEOPLE,
  type PropertyClassName,
  RURAL_ROADS,
  STAFF,
  type StaffSeed,
  STATES,
  STREETS,
  STREETS_BY_SUBURB,
  RURAL_ROADS_BY_SUBURB,
  SUBURBS,
  type SuburbInfo,
  TYPES,
  type TypeKey,
} from './seed-data.ts';
import { DAY, HOUR, MINUTE, formatDateTime, localDayStart, localTimeToUtc, startOfUtcDay } from './time.ts';

export interface SeedOptions {
  listings: number;
  seed: number;
  /** The clock at start: seeded dates sit before this UTC day, auctions after it. */
  now: number;
  /** Added to every seeded id (users, properties, lives, photos, enquiries) so accounts on one key never share one. */
  idOffset?: number;
  /** Keep only the first N photos of each listing (benches with many accounts); default all (5-20). */
  photosPerListing?: number;
  /** The agency the account belongs to (default: the original one). */
  agency?: AgencyIdentity;
}

export interface SeedData {
  users: SimUser[];
  listings: SimListing[];
  enquiries: SimEnquiry[];
  nextIds: { property: number; saleLife: number; leaseLife: number; photo: number; enquiry: number };
}

export const FIRST_PROPERTY_ID = 2_140_001;
const FIRST_SALE_LIFE_ID = 880_001;
const FIRST_LEASE_LIFE_ID = 990_001;
const FIRST_PHOTO_ID = 151_500_001;
const FIRST_USER_ID = 450_101;
const FIRST_ENQUIRY_ID = 7_300_001;

export type Category = 'residentialSale' | 'residentialLease' | 'land' | 'commercialSale' | 'commercialLease' | 'rural';

export const CATEGORY_SHAPE: Record<Category, { propertyClass: PropertyClassName; market: Market }> = {
  residentialSale: { propertyClass: 'residential', market: 'sale' },
  residentialLease: { propertyClass: 'residential', market: 'lease' },
  land: { propertyClass: 'land', market: 'sale' },
  commercialSale: { propertyClass: 'commercial', market: 'sale' },
  commercialLease: { propertyClass: 'commercial', market: 'lease' },
  rural: { propertyClass: 'rural', market: 'sale' },
};

// The first listings cover every category so that even a tiny seed exercises every endpoint.
const OPENING_CATEGORIES: Category[] = [
  'residentialSale',
  'residentialLease',
  'residentialSale',
  'land',
  'commercialSale',
  'commercialLease',
  'rural',
  'residentialSale',
  'residentialLease',
  'residentialSale',
];

const CATEGORY_WEIGHTS: [Category, number][] = [
  ['residentialSale', 50],
  ['residentialLease', 26],
  ['land', 8],
  ['commercialSale', 5],
  ['commercialLease', 5],
  ['rural', 6],
];

export function money(value: number): string {
  return `$${String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

function roundTo(value: number, step: number): number {
  return Math.round(value / step) * step;
}

/** Builds the whole account deterministically from the seed and the start day. */
export function generateSeed(options: SeedOptions): SeedData {
  const rng = new Prng(options.seed);
  const today = startOfUtcDay(options.now);
  const offset = options.idOffset ?? 0;
  const agency = options.agency ?? agencyIdentity(0);
  const users = buildUsers(rng, today, offset, agency);
  const ids = {
    property: FIRST_PROPERTY_ID + offset,
    saleLife: FIRST_SALE_LIFE_ID + offset,
    leaseLife: FIRST_LEASE_LIFE_ID + offset,
    photo: FIRST_PHOTO_ID + offset,
    enquiry: FIRST_ENQUIRY_ID + offset,
  };
  const listings: SimListing[] = [];
  for (let index = 0; index < options.listings; index++) {
    const category = index < OPENING_CATEGORIES.length ? OPENING_CATEGORIES[index]! : rng.weighted(CATEGORY_WEIGHTS);
    const listing = buildListing(rng, { category, today, users, ids, agency });
    // Trimmed after building, so the random draws (and so the rest of the seed) stay the same.
    if (options.photosPerListing !== undefined) listing.photos = listing.photos.slice(0, options.photosPerListing);
    listings.push(listing);
  }
  offerForSaleAndLease(listings);
  shareResultsWithEveryAgent(listings, users);
  if (offset > 0) keepOneOffMarket(listings);
  const enquiries = buildSeedEnquiries(rng, today, listings, users, ids);
  return { users, listings, enquiries, nextIds: ids };
}

/**
 * Real agencies keep a current listing or two off the web (off-market): another account on the key
 * gets one even when its draws gave none, so each looks like the real thing. No random draws; the
 * original account is left as its seed made it.
 */
function keepOneOffMarket(listings: SimListing[]): void {
  const current = listings.filter((listing) => listing.propertyClass === 'residential' && listing.market === 'sale' && listing.status === 'listing');
  if (current.length < 2 || current.some((listing) => listing.publishedToWeb === null)) return;
  const last = current[current.length - 1]!;
  last.publishedToWeb = null;
  last.openHomeSlots = [];
}

/** Fields that describe the property itself, the same in its sale and its lease record. */
const PROPERTY_FIELDS = [
  'address',
  'displayAddress',
  'addressVisibility',
  'type',
  'bed',
  'bath',
  'garages',
  'carports',
  'openSpaces',
  'ensuites',
  'toilets',
  'landArea',
  'floorArea',
  'geolocation',
  'yearBuilt',
];

/**
 * One property offered for sale and for lease at once, as agencies do with an investment home: the
 * first current residential lease becomes the lease life of the first current residential sale's
 * property (same property id, address, rooms and photos; its own lease life id, price and staff).
 * No random draws, so the rest of the seed is unchanged.
 */
function offerForSaleAndLease(listings: SimListing[]): void {
  const current = (market: Market) =>
    listings.find(
      (listing) => listing.propertyClass === 'residential' && listing.market === market && listing.status === 'listing' && listing.publishedToWeb !== null,
    );
  const sale = current('sale');
  const lease = current('lease');
  if (!sale || !lease) return;
  lease.id = sale.id;
  for (const field of PROPERTY_FIELDS) if (Object.hasOwn(sale.fields, field)) lease.fields[field] = sale.fields[field];
  // The same home is described the same way (its bedrooms and land), ending with the lease's own last line.
  const [saleText, leaseText] = [sale.fields.description, lease.fields.description];
  if (typeof saleText === 'string' && typeof leaseText === 'string') {
    lease.fields.description = saleText.slice(0, saleText.lastIndexOf(LOCATION_LINE)) + leaseText.slice(leaseText.lastIndexOf(LOCATION_LINE));
  }
  if (Object.hasOwn(sale.fields, 'highlights')) lease.fields.highlights = sale.fields.highlights;
  lease.timeZone = sale.timeZone;
  lease.photos = sale.photos;
}

// ---------------------------------------------------------------------------------------------
// Staff

function phone(number: string, kind: 'M' | 'W') {
  return { number, typeCode: kind, type: kind === 'M' ? 'Mobile' : 'Work', comment: null };
}

/**
 * The staff: the original agency's as listed; another agency's are other people (OTHER_AGENCY_PEOPLE,
 * drawn from their own PRNG, so the rest of the seed's draws are those of the original) in the same
 * places, with the same kinds of profile.
 */
function staffOf(agency: AgencyIdentity): readonly StaffSeed[] {
  if (agency.id === ACCOUNT.id) return STAFF;
  const people = new Prng(agency.id).sample(OTHER_AGENCY_PEOPLE, STAFF.length);
  return STAFF.map((staff, index) => {
    const person = people[index % people.length]!;
    return { ...staff, firstName: person.firstName, lastName: person.lastName, portrait: staff.portrait && person.portrait };
  });
}

/** A profile as the agency's own: its people's names, its name and domain. */
function profileText(template: string | null, firstName: string, agency: AgencyIdentity): string | null {
  return template && template.replaceAll('{first}', firstName).replaceAll('{agency}', agency.name).replaceAll('{domain}', agency.domain);
}

function buildUsers(rng: Prng, today: number, idOffset: number, agency: AgencyIdentity): SimUser[] {
  // Staff who joined after the seed's stream was fixed draw from their own, so the listings' draws stay the same.
  const laterDraws = new Prng(agency.id * 7 + 1);
  return staffOf(agency).map((staff, index) => {
    const draws = index < LATER_STAFF_FROM ? rng : laterDraws;
    const id = FIRST_USER_ID + idOffset + index;
    const handle = `${staff.firstName}.${staff.lastName}`.toLowerCase().replace(/[^a-z.]/g, '');
    const landline = staff.state === 'VIC' ? `(03) 5550 ${1100 + index * 7}` : `(02) 5550 ${2100 + index * 7}`;
    const mobile = phone(FICTIONAL_MOBILES[index % FICTIONAL_MOBILES.length]!, 'M');
    const fields: Record<string, unknown> = {
      id,
      firstName: staff.firstName,
      lastName: staff.lastName,
      username: handle,
      email: `${handle}@${agency.domain}`,
      adminAccess: staff.adminAccess,
      position: staff.position,
      role: staff.role,
      lastLogin: formatDateTime(today - draws.int(1, 72) * HOUR - draws.int(0, 3599) * 1000),
      phoneNumbers: staff.phones === 'mobile-only' ? [mobile] : [mobile, phone(landline, 'W')],
      profile: profileText(staff.profile, staff.firstName, agency),
      permissions: {
        settings: staff.adminAccess,
        accessPropertyManagement: staff.role === 'propertyManagement' || staff.adminAccess,
        accessSales: staff.role !== 'propertyManagement' || staff.adminAccess,
        canLogin: true,
        deleteContacts: staff.adminAccess,
        deleteProperties: staff.adminAccess,
        globalActionListsReadWrite: true,
        globalContactsReadWrite: true,
        globalNotesRead: true,
        globalNotesReadWrite: staff.adminAccess,
        globalPropertiesRead: true,
        globalPropertiesReadWrite: staff.adminAccess,
        globalTasksReadWrite: true,
        sendSMS: true,
        accessPropertyFinancials: staff.adminAccess,
        accessAlarmDetails: staff.adminAccess,
        modifyWebsiteContent: staff.adminAccess,
        editMarketingContact: true,
      },
      websiteUrl: staff.showOnWeb ? `https://${agency.domain}/team/${handle.replace('.', '-')}` : null,
      showOnWeb: staff.showOnWeb,
      externalReference: null,
      ssoIdentifier: null,
      signature: staff.showOnWeb ? `${staff.firstName} ${staff.lastName} | ${staff.position} | ${agency.name}` : null,
      account: { id: agency.id, name: agency.name },
      hideMobileFromPortal: staff.hideMobileFromPortal ?? false,
    };
    const photo = staff.portrait
      ? {
          image: { pool: 'agent', scene: `agent-${staff.portrait}`, revision: 0 } satisfies ImageRef,
          modified: today - draws.int(30, 400) * DAY,
          filename: `${draws.hex(24)}.jpg`,
        }
      : null;
    return {
      id,
      fields,
      photo,
      showOnWeb: staff.showOnWeb,
      state: staff.state,
      role: staff.role,
      listsProperties: staff.listsProperties,
      leadsTheTeam: staff.leadsTheTeam === true,
    };
  });
}

/**
 * Agents show their results: every public agent of a sales or rental team who has no sold or leased
 * home of their own joins, as second contact, the newest one of their state (else any) their team
 * closed with one agent, as co-listing agents do. No random draws, so the rest of the seed stays.
 */
function shareResultsWithEveryAgent(listings: SimListing[], users: SimUser[]): void {
  const closed: Record<string, (listing: SimListing) => boolean> = {
    residentialSales: (listing) => listing.market === 'sale' && (listing.status === 'unconditional' || listing.status === 'settled'),
    propertyManagement: (listing) => listing.market === 'lease' && listing.status === 'management',
  };
  const shown = listings.filter((listing) => listing.propertyClass === 'residential' && listing.publishedToWeb !== null);
  for (const user of users) {
    const isClosed = closed[user.role];
    if (!isClosed || !user.showOnWeb || !user.listsProperties) continue;
    if (shown.some((listing) => isClosed(listing) && listing.staffIds.includes(user.id))) continue;
    const candidates = shown.filter((listing) => isClosed(listing) && listing.staffIds.length === 1).sort((a, b) => b.modified - a.modified || a.id - b.id);
    const ownState = candidates.find((listing) => users.find((other) => other.id === listing.staffIds[0])?.state === user.state);
    const chosen = ownState ?? candidates[0];
    if (!chosen) continue;
    chosen.staffIds.push(user.id);
    const details = chosen.saleDetails;
    if (details && Array.isArray(details.contactStaff))
      details.contactStaff = [...(details.contactStaff as unknown[]), { id: user.id, name: `${user.fields.firstName} ${user.fields.lastName}` }];
  }
}

// ---------------------------------------------------------------------------------------------
// Listings

export interface BuildContext {
  category: Category;
  today: number;
  users: SimUser[];
  ids: SeedData['nextIds'];
  /** Whose listing it is (default: the original agency). */
  agency?: AgencyIdentity;
}

const RESIDENTIAL_TYPES: [TypeKey, number][] = [
  ['House', 45],
  ['Townhouse', 18],
  ['Unit', 15],
  ['Apartment', 17],
  ['Villa', 5],
];

const TYPE_PRICE_FACTOR: Partial<Record<TypeKey, number>> = {
  House: 1,
  Townhouse: 0.78,
  Unit: 0.5,
  Apartment: 0.55,
  Villa: 0.62,
};

const SALE_STATUSES: [string, number][] = [
  ['listing', 56],
  ['conditional', 8],
  ['unconditional', 6],
  ['settled', 12],
  ['withdrawn', 5],
  ['appraisal', 8],
  ['prospect', 5],
];

const LEASE_STATUSES: [string, number][] = [
  ['listing', 62],
  ['management', 24],
  ['withdrawn', 5],
  ['appraisal', 9],
];

const FEATURES: Record<string, string[]> = {
  House: [
    'Light-filled open-plan living and dining opening to a north-facing deck',
    'Stone kitchen with Miele appliances, butler&#39;s pantry &amp; island bench',
    'Main bedroom with walk-in robe and fully tiled ensuite',
    'Ducted heating, split-system cooling and double glazing throughout',
    'Landscaped rear garden with established ornamental pear trees',
    'Off-street parking via rear lane &amp; remote double garage',
    'Separate study or fifth bedroom at the front of the home',
    'Solar panels, 5,000L water tank and EV charging point',
    'Polished Victorian Ash floorboards and original fireplaces',
  ],
  Townhouse: [
    'Private courtyard with paved entertaining area',
    'Two living zones across two levels',
    'Kitchen with stone benchtops, gas cooking &amp; dishwasher',
    'Secure double garage with internal access',
    'Main bedroom with ensuite and private balcony',
    'Low owners&#39; corporation fees in a boutique block of four',
  ],
  Unit: [
    'Updated kitchen with plenty of bench space',
    'Sunny living room with reverse-cycle air conditioning',
    'Built-in robes to both bedrooms',
    'Allocated carport and lock-up storage cage',
    'Walk to trams, cafés and the station',
  ],
  Apartment: [
    'Floor-to-ceiling glazing with city skyline views',
    'Balcony off the living area, ideal for morning coffee',
    'European appliances and stone island kitchen',
    'Secure basement car space and storage',
    'Building gym, rooftop terrace &amp; concierge',
    'Energy-efficient design with a 7.5-star rating',
  ],
  Villa: [
    'Single-level living, no stairs',
    'Private north-facing courtyard garden',
    'Remote single garage with internal access',
    'Quiet rear position in a group of three',
  ],
  Land: [
    'Fully serviced lot with titles expected soon',
    'Regular shaped block, ideal for a family home',
    'Walk to the planned town centre, schools and parkland',
    'No building time frames: build when you are ready',
  ],
  Commercial: [
    'Prominent main-road exposure with high passing traffic',
    'Flexible open-plan layout with meeting rooms',
    'Two allocated car spaces plus visitor parking',
    'Zoned for a wide range of uses (STCA)',
    'Secure tenancy with annual CPI increases',
  ],
  Rural: [
    'Gently undulating, well-fenced paddocks',
    'Permanent creek frontage and two dams',
    'Four-bedroom homestead with wraparound verandah',
    'Machinery shed, hay shed and cattle yards',
    'Sweeping views to the ranges',
  ],
};

const HEADING_OPENERS = [
  'Family Living Moments from',
  'Character and Space near',
  'Renovated and Ready in',
  'A Quiet Haven close to',
  'Lock-and-Leave Lifestyle near',
  'Tightly Held Pocket of',
  'Light, Bright and Moments from',
  'Period Charm meets Modern Living near',
];

const LANDMARKS: Record<string, string[]> = {
  default: ['the Village', 'Parklands', 'the Station', 'Cafés and Shops', 'Top Schools', 'the Park'],
};

const ROOM_CAPTIONS = ['', '', 'Living', 'Kitchen', 'Dining', 'Main bedroom', 'Bathroom', 'Rear garden', 'Outlook', null];

function pickSuburb(rng: Prng, category: Category): SuburbInfo {
  const kind = category === 'land' ? 'growth' : category === 'rural' ? 'rural' : 'inner';
  const commercial = ['Richmond', 'Surry Hills', 'Parramatta', 'Box Hill', 'Footscray', 'Brunswick'];
  const pool = SUBURBS.filter((suburb) =>
    category === 'commercialSale' || category === 'commercialLease' ? commercial.includes(suburb.name) : suburb.kind === kind,
  );
  return rng.pick(pool);
}

function staffFor(users: SimUser[], state: 'VIC' | 'NSW', roles: string[]): SimUser[] {
  const listers = users.filter((user) => user.listsProperties && roles.includes(user.role));
  const matching = listers.filter((user) => user.state === state);
  return matching.length > 0 ? matching : listers;
}

function buildAddress(rng: Prng, suburb: SuburbInfo, category: Category, typeKey: TypeKey) {
  const state = STATES[suburb.state];
  let unitNumber: string | null = null;
  let streetNumber: string;
  let street: string;
  if (category === 'land') {
    streetNumber = `Lot ${rng.int(101, 1899)}`;
    street = rng.pick(GROWTH_STREETS);
  } else if (category === 'rural') {
    streetNumber = String(rng.int(120, 2900));
    street = rng.pick(RURAL_ROADS_BY_SUBURB[suburb.name] ?? RURAL_ROADS);
  } else {
    streetNumber = String(rng.int(1, 240));
    // One draw whatever the list: the seed's other draws stay as they were.
    street = rng.pick(STREETS_BY_SUBURB[suburb.name] ?? STREETS);
    if (typeKey === 'Unit' || typeKey === 'Apartment' || typeKey === 'Villa' || (typeKey === 'Townhouse' && rng.chance(0.6))) {
      unitNumber = String(typeKey === 'Apartment' ? rng.int(101, 1408) : rng.int(1, 12));
    }
    if (category === 'commercialSale' || category === 'commercialLease') {
      unitNumber = rng.chance(0.4) ? `Suite ${rng.int(1, 9)}` : null;
    }
  }
  const visibility = rng.weighted([
    ['fullAddress', 86],
    ['streetAndSuburb', 9],
    ['suburb', 5],
  ] as const);
  const suburbLabel = `${suburb.name} ${state.abbreviation}`;
  const number = unitNumber ? `${unitNumber.startsWith('Suite') ? `${unitNumber}, ` : `${unitNumber}/`}${streetNumber}` : streetNumber;
  const displayAddress =
    visibility === 'fullAddress' ? `${number} ${street}, ${suburbLabel}` : visibility === 'streetAndSuburb' ? `${street}, ${suburbLabel}` : suburbLabel;
  const stateObject = { id: state.id, name: state.name, abbreviation: state.abbreviation };
  return {
    addressVisibility: visibility,
    displayAddress,
    // The API returns the full address whatever addressVisibility says; honouring it is the client's job.
    address: {
      level: null,
      unitNumber,
      streetNumber,
      street,
      suburb: {
        id: suburb.id,
        name: suburb.name.toUpperCase(),
        postcode: suburb.postcode,
        state: stateObject,
        isPoBox: false,
      },
      state: stateObject,
      country: { ...COUNTRY },
      royalMail: null,
      customAddress: null,
    },
  };
}

/**
 * Features that name a number of bedrooms, and the counts they fit: a description must not call a
 * two-bedroom unit's robes "both" of three, nor give a homestead four bedrooms the record lacks.
 */
const FEATURE_BEDROOMS: Record<string, (bed: number | null) => boolean> = {
  'Main bedroom with walk-in robe and fully tiled ensuite': (bed) => bed !== null && bed >= 2,
  'Main bedroom with ensuite and private balcony': (bed) => bed !== null && bed >= 2,
  'Separate study or fifth bedroom at the front of the home': (bed) => bed === 4,
  'Built-in robes to both bedrooms': (bed) => bed === 2,
  'Four-bedroom homestead with wraparound verandah': (bed) => bed === 4,
};

/** Whether a feature agrees with the home's bedrooms. */
function fitsBedrooms(feature: string, bed: number | null): boolean {
  return FEATURE_BEDROOMS[feature]?.(bed) ?? true;
}

/** Where a description's last paragraph (the suburb, then the sale's or lease's own closing) starts. */
const LOCATION_LINE = '\r\n\r\nLocated in ';

function describe(rng: Prng, featureKey: string, bed: number | null, suburb: SuburbInfo, lead: string, closing: string): string {
  // Drawn from the whole list, then the misfits left out: the draws (and so every later one of the seed) are those of before.
  const features = rng.sample(FEATURES[featureKey] ?? FEATURES.House!, rng.int(3, 5)).filter((feature) => fitsBedrooms(feature, bed));
  const bullets = features.map((feature) => `&#x2022; ${feature}`).join('\r\n');
  return `${lead}\r\n\r\n${bullets}${LOCATION_LINE}${suburb.name}, close to transport, shops &amp; schools. ${closing}`;
}

function legalFields(rng: Prng, suburb: SuburbInfo) {
  const lot = String(rng.int(1, 40));
  if (suburb.state === 'VIC') {
    const volume = String(rng.int(8000, 12999));
    const folio = String(rng.int(1, 999));
    return {
      lotNumber: lot,
      volumeNumber: volume,
      folioNumber: folio,
      certificateOfTitle: `Volume ${volume} Folio ${folio}`,
      legalDescription: `Lot ${lot} on Plan of Subdivision ${rng.int(100000, 899999)}${rng.pick(['K', 'L', 'M', 'X'])}`,
    };
  }
  const plan = rng.int(1000, 1299999);
  return {
    lotNumber: lot,
    volumeNumber: null,
    folioNumber: `${lot}/${plan}`,
    certificateOfTitle: `${lot}/${plan}`,
    legalDescription: `Lot ${lot} in Deposited Plan ${plan}`,
  };
}

function geolocation(rng: Prng, suburb: SuburbInfo) {
  // A few records were never geocoded; the API then returns nulls inside the object.
  if (rng.chance(0.05)) return { latitude: null, longitude: null, accuracy: null };
  return {
    latitude: Number((suburb.latitude + (rng.next() - 0.5) * 0.02).toFixed(6)),
    longitude: Number((suburb.longitude + (rng.next() - 0.5) * 0.02).toFixed(6)),
    accuracy: rng.pick(['ROOFTOP', 'ROOFTOP', 'ROOFTOP', 'RANGE_INTERPOLATED']),
  };
}

function withoutCoordinates(id: number, geo: ReturnType<typeof geolocation>): ReturnType<typeof geolocation> {
  return id % 3 === 0 ? { latitude: null, longitude: null, accuracy: null } : geo;
}

function branchFor(suburb: SuburbInfo) {
  const branch = BRANCHES[suburb.state];
  const state = STATES[suburb.state];
  return {
    id: branch.id,
    name: branch.name,
    shortName: branch.shortName,
    websiteUrl: branch.websiteUrl,
    address: {
      streetNumber: branch.address.streetNumber,
      street: branch.address.street,
      suburb: { name: branch.address.suburb, postcode: branch.address.postcode, state: { abbreviation: state.abbreviation } },
    },
  };
}

function externalLinks(rng: Prng, at: number) {
  const links: Record<string, unknown>[] = [];
  if (rng.chance(0.3)) {
    links.push({
      id: rng.int(30000, 99999),
      url: `https://www.youtube.com/watch?v=${rng.hex(11)}`,
      modified: formatDateTime(at),
      type: { id: 1, name: 'Video' },
    });
  }
  if (rng.chance(0.2)) {
    links.push({
      id: rng.int(30000, 99999),
      url: `https://my.matterport.com/show/?m=${rng.hex(11)}`,
      modified: formatDateTime(at),
      type: { id: 2, name: 'Virtual Tour' },
    });
  }
  return links;
}

function saturdayAfter(today: number, weeks: number, timeZone: string, hour: number, minute: number): number {
  const localToday = localDayStart(today + 12 * HOUR, timeZone);
  const weekday = new Date(localToday).getUTCDay();
  const daysToSaturday = (6 - weekday + 7) % 7 || 7;
  return localTimeToUtc(localToday + (daysToSaturday + 7 * (weeks - 1)) * DAY, hour, minute, timeZone);
}

function salePriceDisplay(rng: Prng, price: number, method: string, state: 'VIC' | 'NSW'): string {
  const lower = roundTo(price * 0.95, 10_000);
  const range = `${money(lower)} - ${money(roundTo(lower * 1.1, 10_000))}`;
  if (method === 'Auction') {
    return rng.weighted([
      [state === 'VIC' ? range : `Guide ${money(roundTo(price, 50_000))}`, 45],
      ['Contact Agent', 20],
      ['Awaiting Price Guide', 15],
      ['Auction', 15],
      ['', 5],
    ]);
  }
  if (method === 'Expressions of Interest') return rng.pick(['Expressions of Interest', '', 'Contact Agent']);
  return rng.weighted([
    [money(roundTo(price, 5_000)), 40],
    [`Offers over ${money(roundTo(price * 0.95, 10_000))}`, 22],
    [range, 20],
    ['Contact Agent', 18],
  ]);
}

function leasePriceDisplay(rng: Prng, rent: number): string {
  return rng.weighted([
    [`${money(rent)} per week`, 62],
    [`${money(rent)} pw`, 24],
    ['Contact Agent', 9],
    [`${money(rent)} per week - Furnished`, 5],
  ]);
}

function photoSet(rng: Prng, ctx: BuildContext, propertyId: number, inserted: number, modified: number, typeKey: TypeKey): SimPhoto[] {
  const { category, ids } = ctx;
  const scenes = photoScenesFor(category, typeKey);
  const count = category === 'land' ? rng.int(5, 8) : category.startsWith('commercial') ? rng.int(5, 12) : rng.int(8, 20);
  const floorplans = category === 'land' ? 0 : category.startsWith('commercial') ? 1 : rng.chance(0.15) ? 2 : 1;
  const unpublished = rng.chance(0.25) ? rng.int(1, 2) : 0;
  const offset = rng.int(0, scenes.photographs.length - 1);
  const photos: SimPhoto[] = [];
  for (let index = 0; index < count; index++) {
    const isFloorplan = index >= count - floorplans;
    const scene = isFloorplan
      ? scenes.floorplans[(offset + index) % scenes.floorplans.length]!
      : scenes.photographs[(offset + index) % scenes.photographs.length]!;
    // Photo times never pass the listing's own modified time: a photo change bumps the listing.
    const uploaded = Math.min(modified, inserted + rng.int(1, 5) * DAY + rng.int(0, 86_399) * 1000);
    const published = isFloorplan || index < count - floorplans - unpublished;
    photos.push({
      id: ids.photo++,
      propertyId,
      inserted: uploaded,
      modified: Math.min(modified, uploaded + (rng.chance(0.2) ? rng.int(1, 20) * DAY : 0)),
      type: isFloorplan ? 'Floorplan' : 'Photograph',
      caption: isFloorplan ? rng.pick(['Floorplan', 'Floor plan', '']) : published ? rng.pick(ROOM_CAPTIONS) : 'Vendor use only',
      published,
      filename: `${rng.hex(32)}.jpg`,
      userFilename: isFloorplan ? `floorplan-${propertyId}.jpg` : `IMG_${rng.int(1000, 9999)}.JPG`,
      image: { pool: isFloorplan ? 'floorplan' : 'photo', scene, revision: 0 },
    });
  }
  return photos;
}

function openHomeSlots(rng: Prng, market: Market, staff: SimUser[]): OpenHomeSlot[] {
  const userId = staff[0]!.id;
  if (market === 'lease') {
    if (!rng.chance(0.7)) return [];
    const slots: OpenHomeSlot[] = [{ weekday: 6, hour: rng.pick([9, 10, 11]), minute: rng.pick([0, 15, 30, 45]), durationMinutes: 15, userId }];
    if (rng.chance(0.5)) slots.push({ weekday: rng.pick([2, 3, 4]), hour: 17, minute: rng.pick([15, 30]), durationMinutes: 15, userId });
    return slots;
  }
  if (!rng.chance(0.65)) return [];
  const slots: OpenHomeSlot[] = [{ weekday: 6, hour: rng.pick([10, 11, 12, 13, 14]), minute: rng.pick([0, 30]), durationMinutes: 30, userId }];
  if (rng.chance(0.3)) slots.push({ weekday: rng.pick([3, 4]), hour: 17, minute: 45, durationMinutes: 15, userId });
  return slots;
}

export function buildListing(rng: Prng, ctx: BuildContext): SimListing {
  const { category, today, users, ids } = ctx;
  const { propertyClass, market } = CATEGORY_SHAPE[category];
  const id = ids.property++;
  const lifeId = market === 'sale' ? ids.saleLife++ : ids.leaseLife++;
  const suburb = pickSuburb(rng, category);
  const timeZone = STATES[suburb.state].timeZone;

  const typeKey: TypeKey =
    propertyClass === 'residential'
      ? rng.weighted(RESIDENTIAL_TYPES)
      : propertyClass === 'land'
        ? 'Land'
        : propertyClass === 'rural'
          ? rng.pick(['Farm', 'Lifestyle'] as const)
          : rng.pick(['Office', 'Retail', 'Industrial'] as const);
  const type = TYPES[typeKey];

  const status = rng.weighted(market === 'lease' ? LEASE_STATUSES : SALE_STATUSES);
  const inserted = today - rng.int(14, 420) * DAY - rng.int(0, 86_399) * 1000;
  const modified = Math.min(today - rng.int(1, 3600) * 1000, inserted + rng.int(0, 60) * DAY + rng.int(0, 86_399) * 1000);
  const everAdvertised = !['prospect', 'appraisal'].includes(status) && status !== 'management';
  const offMarket = everAdvertised && rng.chance(0.06);
  // A lease under management was advertised before its tenancy began: it keeps its web date, so
  // the "leased" showcase (published=true, status management) has records.
  const publishedToWeb = everAdvertised && !offMarket ? inserted + rng.int(1, 6) * DAY : status === 'management' ? inserted + 2 * DAY : null;

  const address = buildAddress(rng, suburb, category, typeKey);
  const staffPool =
    market === 'lease' && propertyClass === 'residential'
      ? staffFor(users, suburb.state, ['propertyManagement'])
      : propertyClass === 'commercial'
        ? staffFor(users, suburb.state, ['commercialSalesAndLeasing'])
        : staffFor(users, suburb.state, ['residentialSales']);
  // The first contact is someone the website may show; a second may be staff hidden from the web.
  const visible = staffPool.filter((user) => user.showOnWeb);
  const primary = rng.pick(visible.length > 0 ? visible : staffPool);
  const others = staffPool.filter((user) => user !== primary);
  const staff = rng.chance(0.35) && others.length > 0 ? [primary, rng.pick(others)] : [primary];
  const propertyManager = market === 'lease' && propertyClass === 'residential' ? staff[0]! : null;

  // Prices
  const factor = TYPE_PRICE_FACTOR[typeKey] ?? 1;
  let bed: number | null = null;
  if (propertyClass === 'residential' || propertyClass === 'rural') {
    bed =
      typeKey === 'House' || propertyClass === 'rural'
        ? rng.int(3, 5)
        : typeKey === 'Townhouse'
          ? rng.int(2, 4)
          : typeKey === 'Villa'
            ? rng.int(2, 3)
            : rng.int(1, 3);
  }
  const bedFactor = bed === null ? 1 : 0.75 + bed * 0.1;
  const salePrice =
    propertyClass === 'land'
      ? roundTo(rng.int(320, 690) * 1000, 5000)
      : propertyClass === 'commercial'
        ? roundTo(rng.int(900, 6500) * 1000, 10_000)
        : propertyClass === 'rural'
          ? roundTo(suburb.medianHouse * (1.2 + rng.next() * 2.5), 10_000)
          : roundTo(suburb.medianHouse * factor * bedFactor * (0.75 + rng.next() * 0.6), 5000);
  const weeklyRent = roundTo(suburb.medianRent * factor * bedFactor * (0.8 + rng.next() * 0.5), 10);

  const method =
    market === 'lease'
      ? null
      : propertyClass === 'commercial'
        ? rng.pick<{ id: number; name: string }>([METHODS_OF_SALE.eoi, METHODS_OF_SALE.privateTreaty, METHODS_OF_SALE.auction])
        : propertyClass === 'land'
          ? METHODS_OF_SALE.privateTreaty
          : rng.weighted<{ id: number; name: string }>([
              [METHODS_OF_SALE.auction, suburb.state === 'VIC' ? 50 : 35],
              [METHODS_OF_SALE.privateTreaty, 42],
              [METHODS_OF_SALE.eoi, 8],
            ]);

  let displayPrice: string;
  let searchPrice: number;
  if (market === 'lease') {
    if (propertyClass === 'commercial') {
      const annual = roundTo(salePrice * (0.05 + rng.next() * 0.02), 1000);
      displayPrice = rng.pick([`${money(annual)} p.a. + GST + outgoings`, `${money(annual)} p.a. net`, 'Contact Agent']);
      searchPrice = annual;
    } else {
      displayPrice = leasePriceDisplay(rng, weeklyRent);
      searchPrice = weeklyRent;
    }
  } else if (propertyClass === 'commercial') {
    displayPrice = rng.pick([`${money(salePrice)} + GST`, 'Expressions of Interest', 'Contact Agent']);
    searchPrice = salePrice;
  } else if (propertyClass === 'land') {
    displayPrice = rng.weighted([
      [money(salePrice), 60],
      [`From ${money(roundTo(salePrice * 0.92, 1000))}`, 25],
      ['Contact Agent', 15],
    ]);
    searchPrice = salePrice;
  } else {
    displayPrice = salePriceDisplay(rng, salePrice, method!.name, suburb.state);
    searchPrice = salePrice;
  }

  const auctionDetails =
    method === METHODS_OF_SALE.auction
      ? {
          dateTime: formatDateTime(
            ['listing', 'conditional', 'withdrawn'].includes(status)
              ? saturdayAfter(today, rng.int(1, 5), timeZone, rng.pick([10, 11, 12, 13, 14]), rng.pick([0, 30]))
              : inserted + rng.int(21, 35) * DAY,
          ),
          venue: rng.pick(['On site', 'On site', 'In rooms']),
          auctioneer: rng.pick(['Gerard Holloway', 'Fiona McAlister', 'Peter Dimitriou']),
        }
      : // Real records carry the object with nulls inside rather than a null.
        { dateTime: null, venue: null, auctioneer: null };

  // Rooms and areas
  const residentialLike = propertyClass === 'residential' || propertyClass === 'rural';
  const bath = bed === null ? null : Math.max(1, Math.min(bed - 1, rng.int(1, 3)));
  const rooms = residentialLike
    ? {
        bed,
        bath,
        garages: typeKey === 'Apartment' ? rng.int(0, 1) : typeKey === 'Unit' ? 0 : rng.int(0, 2),
        carports: typeKey === 'Unit' ? rng.int(0, 1) : rng.chance(0.2) ? 1 : 0,
        openSpaces: propertyClass === 'rural' ? rng.int(2, 6) : rng.chance(0.3) ? rng.int(1, 2) : 0,
        // Some real records leave ensuites blank (null).
        ensuites: id % 10 === 4 ? null : bath !== null && bath > 1 ? 1 : 0,
        toilets: bath === null ? null : bath + (rng.chance(0.4) ? 1 : 0),
        receptionRooms: null,
      }
    : {};
  const landArea =
    propertyClass === 'rural'
      ? { value: rng.int(8, 420), units: 'hectare' }
      : typeKey === 'Apartment' || typeKey === 'Unit' || propertyClass === 'commercial'
        ? { value: null, units: 'sqm' }
        : { value: typeKey === 'Land' ? rng.int(300, 720) : typeKey === 'House' ? rng.int(320, 950) : rng.int(140, 320), units: 'sqm' };
  const floorArea =
    propertyClass === 'land'
      ? null
      : rng.chance(0.2)
        ? { value: null, units: 'sqm' }
        : {
            value: propertyClass === 'commercial' ? rng.int(80, 1800) : typeKey === 'House' || propertyClass === 'rural' ? rng.int(150, 420) : rng.int(55, 190),
            units: 'sqm',
          };

  const headingPlace = rng.pick(LANDMARKS.default!);
  const heading =
    propertyClass === 'land'
      ? rng.pick([`Build Your Dream in ${suburb.name}`, `Titled Land Ready to Build`, `Premium Corner Allotment`])
      : propertyClass === 'commercial'
        ? rng.pick([`Main Road ${type.name} Opportunity`, `Flexible ${type.name} Space in ${suburb.name}`, `Blue-Chip Investment, Secure Tenancy`])
        : propertyClass === 'rural'
          ? rng.pick(['Productive Acreage with Views', 'Lifestyle Property on the Creek', 'Homestead, Sheds and Rolling Paddocks'])
          : `${rng.pick(HEADING_OPENERS)} ${headingPlace}`;

  const featureKey = propertyClass === 'land' ? 'Land' : propertyClass === 'commercial' ? 'Commercial' : propertyClass === 'rural' ? 'Rural' : typeKey;
  const lead =
    propertyClass === 'residential' || propertyClass === 'rural'
      ? `Set ${landArea.value ? `on approximately ${landArea.value}${landArea.units === 'sqm' ? 'sqm' : ` ${landArea.units}s`}` : 'in a boutique block'}, this ${bed}-bedroom ${type.name.toLowerCase()} offers generous proportions &amp; a floorplan designed for easy living.`
      : propertyClass === 'land'
        ? `A ${landArea.value}sqm allotment in the heart of ${suburb.name}&#39;s newest estate.`
        : `An outstanding ${type.name.toLowerCase()} opportunity in a tightly held commercial precinct.`;
  const closing =
    market === 'lease'
      ? 'Please register to inspect; applications via 2Apply.'
      : method === METHODS_OF_SALE.auction
        ? 'Auction on site unless sold prior.'
        : 'Inspection by appointment.';
  const description = describe(rng, featureKey, bed, suburb, lead, closing);

  const legal = legalFields(rng, suburb);
  const tenanted = market === 'sale' && (typeKey === 'Unit' || typeKey === 'Apartment' || propertyClass === 'commercial') && rng.chance(0.45);
  const tenantFirst = rng.pick(FIRST_NAMES);
  const tenantLast = rng.pick(LAST_NAMES);
  const internalRemarks = rng.weighted([
    [null, 35],
    ['Vendor relocating interstate; will consider offers from ' + money(roundTo(salePrice * 0.92, 10_000)) + '. Keys in office safe.', 15],
    ['Alarm code 4471#. Dog in backyard on weekdays.', 10],
    ['Separation sale: all contact through the vendor\u2019s solicitor only.', 8],
    ['Owner prefers no inspections before 10am. Water leak in laundry repaired Jan.', 12],
    ['Buyer from last campaign (J. Tran) keen at ' + money(roundTo(salePrice * 0.9, 10_000)) + '.', 10],
    ['', 10],
  ]);

  const sellingFeeFixed = rng.chance(0.25) ? roundTo(rng.int(12_000, 32_000), 500) : null;
  const saleConfidential =
    market === 'sale'
      ? {
          priceQualifier: null,
          tenureOrTitleType: null,
          tenanted,
          tenancyDetails: tenanted
            ? `Leased at ${money(roundTo(weeklyRent * 0.9, 10))} pw until ${formatDateTime(today + rng.int(60, 300) * DAY).slice(0, 10)}`
            : null,
          tenancyStart: tenanted ? formatDateTime(today - rng.int(100, 300) * DAY) : null,
          tenancyStop: tenanted ? formatDateTime(today + rng.int(60, 300) * DAY) : null,
          tenantName: tenanted ? `${tenantFirst} ${tenantLast}` : null,
          tenantPhone: tenanted ? rng.pick(FICTIONAL_MOBILES) : null,
          tenantEmail: tenanted ? `${tenantFirst}.${tenantLast}@example.net`.toLowerCase() : null,
          rates: {
            water: { value: rng.int(700, 1300), period: 'pa' },
            council: { value: rng.int(1400, 4200), period: 'pa' },
            strata: typeKey === 'Apartment' || typeKey === 'Unit' || typeKey === 'Townhouse' ? { value: rng.int(600, 2400), period: 'pq' } : null,
          },
          mobileMarketingDescription: null,
          internalRemarks,
          priceOnApplication: displayPrice === 'Contact Agent',
          appraisal: formatDateTime(inserted - rng.int(7, 60) * DAY),
          authorityStart: formatDateTime(inserted),
          authorityEnd: formatDateTime(inserted + 120 * DAY),
          listingAuthorityFile: null,
          salePricePercentSplit: null,
          publishedToWeb: publishedToWeb === null ? null : formatDateTime(publishedToWeb),
          sellingFeePercent: sellingFeeFixed ? null : Number((1.5 + rng.next()).toFixed(2)),
          sellingFeeFixed,
          vpa: roundTo(rng.int(3500, 14_500), 50),
          agentPriceOpinion: roundTo(salePrice * (0.95 + rng.next() * 0.1), 10_000),
          agentPriceOpinionUpper: roundTo(salePrice * 1.1, 10_000),
          rateableValue: null,
          landValue: rng.chance(0.5) ? roundTo(salePrice * 0.6, 1000) : null,
          improvementValue: null,
          // Some real records have no method of sale set.
          methodOfSale: method && id % 8 !== 5 ? { ...method } : null,
          auctionSaleType: null,
          authorityType: { ...(method === METHODS_OF_SALE.auction ? AUTHORITY_TYPES[1] : AUTHORITY_TYPES[0]) },
          webId: null,
          sharedOwnership: null,
          soiUrl: suburb.state === 'VIC' && propertyClass === 'residential' ? `https://${(ctx.agency ?? agencyIdentity(0)).domain}/soi/${id}.pdf` : null,
          isOurListing: true,
          internalMarketingLiveDate: null,
          mortgageeSale: false,
          asIsSale: false,
          isUnitTitle: typeKey === 'Unit' || typeKey === 'Apartment',
          contractNumber: null,
          auctionDetails,
          tenderDetails: { dateTime: null },
          setSaleDateDetails: { dateTime: method === METHODS_OF_SALE.eoi ? formatDateTime(saturdayAfter(today, 3, timeZone, 17, 0) - 2 * DAY) : null },
        }
      : {};

  const leaseTenancy =
    market === 'lease' && status === 'management'
      ? {
          id: rng.int(600_000, 699_999),
          inserted: formatDateTime(today - rng.int(40, 300) * DAY),
          modified: formatDateTime(today - rng.int(1, 30) * DAY),
          rent: weeklyRent,
          rentFrequency: { id: 1, name: 'Weekly' },
          archived: false,
          letAgreed: false,
          start: formatDateTime(today - rng.int(40, 300) * DAY),
          end: formatDateTime(today + rng.int(60, 330) * DAY),
          rentPaidUntil: formatDateTime(today + rng.int(-10, 14) * DAY),
          arrearsAmount: rng.chance(0.15) ? rng.int(100, 1800) : 0,
          vacateDate: null,
        }
      : null;
  const leaseConfidential =
    market === 'lease'
      ? {
          branch: branchFor(suburb),
          mobileMarketingDescription: null,
          internalRemarks: rng.pick([
            null,
            'Landlord happy to consider pets on application.',
            'Water usage charged to tenant. Smoke alarms serviced Feb.',
            'Landlord overseas: approvals via email only.',
          ]),
          priceOnApplication: displayPrice === 'Contact Agent',
          authorityStart: formatDateTime(inserted),
          authorityEnd: null,
          bondPrice: propertyClass === 'residential' ? weeklyRent * 4 : null,
          expenditureLimit: 500,
          webId: null,
          rates: { council: { value: rng.int(1400, 4200), period: 'pa' } },
          isNewHome: false,
          soiUrl: null,
          publishedToWeb: publishedToWeb === null ? null : formatDateTime(publishedToWeb),
          furnished: displayPrice.endsWith('Furnished') ? { id: 2, type: 'Furnished' } : { id: 1, type: 'Unfurnished' },
          internalMarketingLiveDate: null,
        }
      : {};

  const commercialFields =
    propertyClass === 'commercial'
      ? {
          carSpaces: rng.int(0, 12),
          mezzanineArea: null,
          warehouseArea: typeKey === 'Industrial' ? { value: rng.int(300, 1500), units: 'sqm' } : null,
          retailArea: typeKey === 'Retail' ? { value: rng.int(60, 400), units: 'sqm' } : null,
          officeArea: typeKey === 'Office' ? { value: rng.int(80, 900), units: 'sqm' } : null,
          otherArea: null,
          commercialListingType: market,
          commercialLeasePrice: market === 'lease' ? searchPrice : null,
          outgoingsPerAnnum: rng.int(8_000, 40_000),
          outgoingsText: null,
          includesOutgoings: false,
          commercialLeasePriceIncludesGst: false,
          ...(market === 'sale' ? { annualReturnPercent: tenanted ? Number((4 + rng.next() * 2.5).toFixed(2)) : null } : {}),
        }
      : {};

  const base: Record<string, unknown> = {
    class: { ...CLASSES[propertyClass] },
    type: { id: type.id, name: type.name, propertyClass: { ...CLASSES[propertyClass] } },
    building: null,
    ...address,
    // Some real records have no agency reference.
    referenceID: id % 9 === 0 ? null : `HY${String(id).slice(-5)}`,
    searchPrice,
    displayPrice,
    heading,
    description,
    brochureDescription: null,
    windowCardDescription: null,
    landArea,
    frontage: propertyClass === 'land' || typeKey === 'House' ? Number((10 + rng.next() * 10).toFixed(2)) : null,
    ...legal,
    corelogicId: rng.chance(0.8) ? rng.int(10_000_000, 99_999_999) : null,
    yearBuilt: propertyClass === 'land' ? null : rng.chance(0.6) ? rng.int(1885, 2022) : null,
    // Drawn for every record (the seed's stream stays as it was), then left out of about a third, as
    // real lists have many records never geocoded (15 of 26 in the shared real sold list).
    geolocation: withoutCoordinates(id, geolocation(rng, suburb)),
    rpdp: null,
    commercialListingType: propertyClass === 'commercial' ? market : null,
    councilTaxBand: null,
    isStrataBuilding: typeKey === 'Apartment',
    isProjectBuilding: false,
    epcRating: null,
    zoning:
      suburb.state === 'VIC'
        ? propertyClass === 'commercial'
          ? 'Commercial 1 Zone (C1Z)'
          : 'General Residential Zone (GRZ1)'
        : propertyClass === 'commercial'
          ? 'E1 Local Centre'
          : 'R2 Low Density Residential',
    account: { id: (ctx.agency ?? agencyIdentity(0)).id, name: (ctx.agency ?? agencyIdentity(0)).name },
    ...rooms,
    ...(floorArea === null ? {} : { floorArea }),
    eTableUrl: null,
    externalLinks: externalLinks(rng, modified),
    energyRating: propertyClass === 'residential' && rng.chance(0.15) ? Number((5 + rng.next() * 3).toFixed(1)) : null,
    isNewHome: propertyClass === 'land' ? false : rng.chance(0.05),
    isHouseLandPackage: propertyClass === 'land' ? rng.chance(0.1) : false,
    ...(market === 'sale' ? { branch: branchFor(suburb) } : {}),
    ...saleConfidential,
    ...leaseConfidential,
    ...commercialFields,
    ...(market === 'lease' && propertyClass === 'residential' ? { currentTenancy: leaseTenancy, available: status === 'listing' } : {}),
  };

  const extendedFields: Record<string, unknown> = {
    accessBy: [{ id: -1, name: 'Everyone' }],
    editableBy: staff.map((user) => ({ id: user.id, name: `${user.fields.firstName} ${user.fields.lastName}` })),
    keys: [
      {
        id: rng.int(40_000, 49_999),
        propertyId: id,
        name: `Key ${rng.int(1, 250)}`,
        isKeyOut: false,
        details: rng.pick(['Front door + garage remote', 'Front door', 'Front door, letterbox, side gate']),
        hexColour: rng.pick(['#d9534f', '#5cb85c', '#f0ad4e']),
        inserted: formatDateTime(inserted),
        modified: formatDateTime(inserted),
        keyOutUser: null,
        keyOutContact: null,
      },
    ],
    highlights: rng
      .sample(FEATURES[featureKey] ?? [], 3)
      .filter((feature) => fitsBedrooms(feature, bed))
      .map((feature) => feature.replace(/&amp;/g, '&').replace(/&#39;/g, "'")),
    portals:
      publishedToWeb === null
        ? []
        : [
            { id: 1, code: 'REA', description: 'realestate.com.au', portal: { id: 1, name: 'realestate.com.au' } },
            { id: 2, code: 'DOMAIN', description: 'Domain', portal: { id: 2, name: 'Domain' } },
          ],
  };

  let saleDetails: Record<string, unknown> | null = null;
  if (market === 'sale' && ['conditional', 'unconditional', 'settled'].includes(status)) {
    const achieved = roundTo(salePrice * (0.95 + rng.next() * 0.15), 1000);
    const conditional = Math.min(today - 2 * DAY, inserted + rng.int(20, 60) * DAY);
    const grossCommission = Math.round(sellingFeeFixed ?? (achieved * Number(saleConfidential.sellingFeePercent ?? 2)) / 100);
    const lister = staff[0]!;
    saleDetails = {
      lifeId,
      isReleasedSale: status === 'settled',
      isAdminComplete: status === 'settled',
      isUnitTitle: typeKey === 'Unit' || typeKey === 'Apartment',
      contractNumber: `C${rng.int(10000, 99999)}`,
      appraisal: saleConfidential.appraisal,
      appraisalPriceLower: roundTo(salePrice * 0.9, 10_000),
      appraisalPriceUpper: roundTo(salePrice * 1.05, 10_000),
      listingAuthority: formatDateTime(inserted),
      publishedToWeb: publishedToWeb === null ? null : formatDateTime(publishedToWeb),
      conditional: formatDateTime(conditional),
      unconditional: status === 'conditional' ? null : formatDateTime(conditional + rng.int(1, 14) * DAY),
      settlement: status === 'conditional' ? null : formatDateTime(conditional + rng.int(30, 90) * DAY),
      releaseDate: null,
      adminCompletionDate: null,
      status,
      portalStatus: publishedToWeb === null ? null : status,
      salePrice: achieved,
      showSalePrice: rng.chance(0.7),
      grossCommissionExcGST: grossCommission,
      grossCommissionLessDeductionsExcGST: grossCommission - 450,
      netIncomeIntoOfficeExcGST: Math.round(grossCommission * 0.55),
      netIncomeLessOfficeDeductionsExcGST: Math.round(grossCommission * 0.5),
      webId: null,
      isNewHome: false,
      inserted: formatDateTime(conditional),
      modified: formatDateTime(conditional),
      contactStaff: staff.map((user) => ({ id: user.id, name: `${user.fields.firstName} ${user.fields.lastName}` })),
      commissionSplits: [
        {
          id: rng.int(200_000, 299_999),
          user: { id: lister.id, name: `${lister.fields.firstName} ${lister.fields.lastName}` },
          type: { id: 1, name: 'Lister' },
          conjunctingAgent: null,
          grossPercent: 45,
          grossAmount: Math.round(grossCommission * 0.45),
          grossAmountLessDeductions: Math.round(grossCommission * 0.45) - 200,
          netPercent: 45,
          netAmount: Math.round(grossCommission * 0.45) - 200,
          details: null,
          branch: null,
          deductions: [],
        },
      ],
      deductions: [{ amount: 450, type: { id: 3, name: 'Conveyancing referral' } }],
      officeReferrals: [],
      officeDeductions: [],
      soldType: { id: method === METHODS_OF_SALE.auction ? 1 : 2, name: method === METHODS_OF_SALE.auction ? 'Auction' : 'Private Sale' },
      sharedOwnership: null,
      isOurListing: true,
      internalMarketingLiveDate: null,
      mortgageeSale: false,
      asIsSale: false,
      sellingFeePercent: saleConfidential.sellingFeePercent,
      sellingFeeFixed: saleConfidential.sellingFeeFixed,
      vpa: saleConfidential.vpa,
      annualReturnPercent: null,
      listingAuthorityFile: null,
      salePricePercentSplit: null,
    };
  }

  const listed = status === 'listing' || status === 'conditional';
  return {
    id,
    propertyClass,
    market,
    lifeId,
    inserted,
    modified,
    status,
    publishedToWeb,
    staffIds: staff.map((user) => user.id),
    propertyManagerId: propertyManager?.id ?? null,
    timeZone,
    fields: base,
    extendedFields,
    saleDetails,
    photos: photoSet(rng, ctx, id, inserted, modified, typeKey),
    openHomeSlots: listed && publishedToWeb !== null && propertyClass !== 'commercial' ? openHomeSlots(rng, market, staff) : [],
  };
}

// ---------------------------------------------------------------------------------------------
// Enquiries already waiting in the holding area (from portals), so the list and its filters have data.

function buildSeedEnquiries(rng: Prng, today: number, listings: SimListing[], users: SimUser[], ids: SeedData['nextIds']): SimEnquiry[] {
  const count = Math.min(12, Math.max(3, Math.floor(listings.length / 4)));
  const advertised = listings.filter((listing) => listing.publishedToWeb !== null);
  const enquiries: SimEnquiry[] = [];
  for (let index = 0; index < count; index++) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const source = rng.pick(HOLDING_AREA_TYPES.slice(1, 4));
    const toUser = index % 5 === 4;
    const listing = toUser || advertised.length === 0 ? null : rng.pick(advertised);
    // Portals name agents they have seen on listings.
    const user = toUser ? rng.pick(users.filter((candidate) => candidate.showOnWeb && candidate.listsProperties)) : null;
    const when = today - rng.int(1, 30) * DAY - rng.int(0, 86_399) * 1000;
    enquiries.push({
      id: ids.enquiry++,
      inserted: when + rng.int(5, 300) * 1000,
      enquiryDate: when,
      subject: listing ? `Enquiry about ${String(listing.fields.displayAddress)}` : 'Appraisal request',
      body: listing
        ? rng.pick([
            'Is the property still available? Could I get the contract of sale?',
            'What are the body corporate fees?',
            'Can I inspect this week after 5pm?',
          ])
        : 'Thinking of selling in spring, could you give us an idea of value?',
      originalId: `${source.apiCode.toLowerCase()}-${rng.hex(12)}`,
      propertyReference: listing ? ((listing.fields.referenceID as string | null) ?? null) : null,
      source: source.apiCode,
      sourceName: source.source,
      saleLifeId: listing?.market === 'sale' ? listing.lifeId : null,
      leaseLifeId: listing?.market === 'lease' ? listing.lifeId : null,
      userId: user?.id ?? null,
      fullName: `${first} ${last}`,
      firstName: first,
      lastName: last,
      email: `${first}.${last}${rng.int(1, 99)}@example.org`.toLowerCase(),
      telephone: null,
      mobile: rng.pick(FICTIONAL_MOBILES),
      categories: listing?.market === 'lease' ? [{ ...ENQUIRY_CATEGORIES[1] }] : [{ ...ENQUIRY_CATEGORIES[0] }],
      metaData: [],
      processed: rng.chance(0.5),
      origin: 'seed',
    });
  }
  return enquiries.sort((a, b) => a.id - b.id);
}

/** Weekly slots → concrete open homes from `from` (inclusive) to `to` (exclusive). */
export function openHomesBetween(listing: SimListing, from: number, to: number): { start: number; end: number; slot: OpenHomeSlot }[] {
  const result: { start: number; end: number; slot: OpenHomeSlot }[] = [];
  for (let day = localDayStart(from, listing.timeZone) - DAY; day < to + DAY; day += DAY) {
    const weekday = new Date(day).getUTCDay();
    for (const slot of listing.openHomeSlots) {
      if (slot.weekday !== weekday) continue;
      const start = localTimeToUtc(day, slot.hour, slot.minute, listing.timeZone);
      if (start >= from && start < to) result.push({ start, end: start + slot.durationMinutes * MINUTE, slot });
    }
  }
  return result;
}
