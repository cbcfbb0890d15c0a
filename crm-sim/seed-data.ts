/**
 * Fixed tables the seed draws from: real suburbs with their postcodes and approximate centres,
 * street names, staff, property types. Contact details are fictional on purpose: phone numbers
 * come from the ranges ACMA reserves for drama (0491 570 xxx, (0x) 5550 xxxx) and e-mail
 * addresses use example.com/.net/.org, so seeded data can never reach a real person.
 */

import type { PortraitId } from './portraits.ts';

export interface SuburbInfo {
  id: number;
  name: string;
  postcode: string;
  state: 'VIC' | 'NSW';
  latitude: number;
  longitude: number;
  /** Median house price in dollars, to keep prices plausible per suburb. */
  medianHouse: number;
  /** Median weekly rent of a house. */
  medianRent: number;
  kind: 'inner' | 'growth' | 'rural';
}

export const STATES = {
  VIC: { id: 7, name: 'Victoria', abbreviation: 'VIC', timeZone: 'Australia/Melbourne' },
  NSW: { id: 2, name: 'New South Wales', abbreviation: 'NSW', timeZone: 'Australia/Sydney' },
} as const;

export const COUNTRY = { id: 1, name: 'Australia', isocode: 'AU', gstRate: 10 } as const;

export const SUBURBS: readonly SuburbInfo[] = [
  { id: 3101, name: 'Kew', postcode: '3101', state: 'VIC', latitude: -37.8064, longitude: 145.0311, medianHouse: 2_600_000, medianRent: 780, kind: 'inner' },
  {
    id: 3122,
    name: 'Hawthorn',
    postcode: '3122',
    state: 'VIC',
    latitude: -37.8226,
    longitude: 145.0354,
    medianHouse: 2_450_000,
    medianRent: 760,
    kind: 'inner',
  },
  {
    id: 3121,
    name: 'Richmond',
    postcode: '3121',
    state: 'VIC',
    latitude: -37.8182,
    longitude: 144.9981,
    medianHouse: 1_550_000,
    medianRent: 690,
    kind: 'inner',
  },
  {
    id: 3065,
    name: 'Fitzroy',
    postcode: '3065',
    state: 'VIC',
    latitude: -37.7984,
    longitude: 144.9784,
    medianHouse: 1_650_000,
    medianRent: 720,
    kind: 'inner',
  },
  {
    id: 3056,
    name: 'Brunswick',
    postcode: '3056',
    state: 'VIC',
    latitude: -37.7667,
    longitude: 144.9601,
    medianHouse: 1_350_000,
    medianRent: 640,
    kind: 'inner',
  },
  {
    id: 3070,
    name: 'Northcote',
    postcode: '3070',
    state: 'VIC',
    latitude: -37.7699,
    longitude: 144.9993,
    medianHouse: 1_500_000,
    medianRent: 660,
    kind: 'inner',
  },
  {
    id: 3182,
    name: 'St Kilda',
    postcode: '3182',
    state: 'VIC',
    latitude: -37.8676,
    longitude: 144.9809,
    medianHouse: 1_750_000,
    medianRent: 650,
    kind: 'inner',
  },
  {
    id: 3141,
    name: 'South Yarra',
    postcode: '3141',
    state: 'VIC',
    latitude: -37.8383,
    longitude: 144.9925,
    medianHouse: 2_300_000,
    medianRent: 740,
    kind: 'inner',
  },
  {
    id: 3124,
    name: 'Camberwell',
    postcode: '3124',
    state: 'VIC',
    latitude: -37.8421,
    longitude: 145.073,
    medianHouse: 2_500_000,
    medianRent: 750,
    kind: 'inner',
  },
  {
    id: 3011,
    name: 'Footscray',
    postcode: '3011',
    state: 'VIC',
    latitude: -37.7997,
    longitude: 144.8998,
    medianHouse: 1_050_000,
    medianRent: 560,
    kind: 'inner',
  },
  {
    id: 3128,
    name: 'Box Hill',
    postcode: '3128',
    state: 'VIC',
    latitude: -37.8189,
    longitude: 145.1218,
    medianHouse: 1_600_000,
    medianRent: 620,
    kind: 'inner',
  },
  {
    id: 3186,
    name: 'Brighton',
    postcode: '3186',
    state: 'VIC',
    latitude: -37.9056,
    longitude: 145.0016,
    medianHouse: 3_100_000,
    medianRent: 950,
    kind: 'inner',
  },
  {
    id: 3016,
    name: 'Williamstown',
    postcode: '3016',
    state: 'VIC',
    latitude: -37.8573,
    longitude: 144.8972,
    medianHouse: 1_450_000,
    medianRent: 640,
    kind: 'inner',
  },
  {
    id: 3146,
    name: 'Glen Iris',
    postcode: '3146',
    state: 'VIC',
    latitude: -37.8578,
    longitude: 145.066,
    medianHouse: 2_250_000,
    medianRent: 720,
    kind: 'inner',
  },
  {
    id: 2021,
    name: 'Paddington',
    postcode: '2021',
    state: 'NSW',
    latitude: -33.8842,
    longitude: 151.2268,
    medianHouse: 3_000_000,
    medianRent: 1_100,
    kind: 'inner',
  },
  {
    id: 2010,
    name: 'Surry Hills',
    postcode: '2010',
    state: 'NSW',
    latitude: -33.8861,
    longitude: 151.2111,
    medianHouse: 2_100_000,
    medianRent: 950,
    kind: 'inner',
  },
  {
    id: 2042,
    name: 'Newtown',
    postcode: '2042',
    state: 'NSW',
    latitude: -33.8968,
    longitude: 151.1793,
    medianHouse: 1_900_000,
    medianRent: 900,
    kind: 'inner',
  },
  { id: 2026, name: 'Bondi', postcode: '2026', state: 'NSW', latitude: -33.891, longitude: 151.262, medianHouse: 3_400_000, medianRent: 1_250, kind: 'inner' },
  { id: 2095, name: 'Manly', postcode: '2095', state: 'NSW', latitude: -33.7969, longitude: 151.285, medianHouse: 4_000_000, medianRent: 1_300, kind: 'inner' },
  {
    id: 2041,
    name: 'Balmain',
    postcode: '2041',
    state: 'NSW',
    latitude: -33.858,
    longitude: 151.179,
    medianHouse: 2_700_000,
    medianRent: 1_050,
    kind: 'inner',
  },
  {
    id: 2067,
    name: 'Chatswood',
    postcode: '2067',
    state: 'NSW',
    latitude: -33.7969,
    longitude: 151.183,
    medianHouse: 2_900_000,
    medianRent: 950,
    kind: 'inner',
  },
  {
    id: 2150,
    name: 'Parramatta',
    postcode: '2150',
    state: 'NSW',
    latitude: -33.815,
    longitude: 151.0011,
    medianHouse: 1_400_000,
    medianRent: 650,
    kind: 'inner',
  },
  {
    id: 2031,
    name: 'Randwick',
    postcode: '2031',
    state: 'NSW',
    latitude: -33.914,
    longitude: 151.242,
    medianHouse: 3_100_000,
    medianRent: 1_050,
    kind: 'inner',
  },
  {
    id: 2204,
    name: 'Marrickville',
    postcode: '2204',
    state: 'NSW',
    latitude: -33.911,
    longitude: 151.155,
    medianHouse: 1_800_000,
    medianRent: 850,
    kind: 'inner',
  },
  { id: 3030, name: 'Werribee', postcode: '3030', state: 'VIC', latitude: -37.9, longitude: 144.66, medianHouse: 620_000, medianRent: 470, kind: 'growth' },
  { id: 3029, name: 'Tarneit', postcode: '3029', state: 'VIC', latitude: -37.833, longitude: 144.694, medianHouse: 640_000, medianRent: 480, kind: 'growth' },
  {
    id: 3978,
    name: 'Clyde North',
    postcode: '3978',
    state: 'VIC',
    latitude: -38.117,
    longitude: 145.333,
    medianHouse: 720_000,
    medianRent: 500,
    kind: 'growth',
  },
  {
    id: 2765,
    name: 'Marsden Park',
    postcode: '2765',
    state: 'NSW',
    latitude: -33.696,
    longitude: 150.838,
    medianHouse: 1_050_000,
    medianRent: 650,
    kind: 'growth',
  },
  {
    id: 2570,
    name: 'Oran Park',
    postcode: '2570',
    state: 'NSW',
    latitude: -34.005,
    longitude: 150.74,
    medianHouse: 1_000_000,
    medianRent: 630,
    kind: 'growth',
  },
  { id: 3437, name: 'Gisborne', postcode: '3437', state: 'VIC', latitude: -37.49, longitude: 144.589, medianHouse: 1_000_000, medianRent: 520, kind: 'rural' },
  { id: 3444, name: 'Kyneton', postcode: '3444', state: 'VIC', latitude: -37.247, longitude: 144.455, medianHouse: 800_000, medianRent: 480, kind: 'rural' },
  { id: 2576, name: 'Bowral', postcode: '2576', state: 'NSW', latitude: -34.478, longitude: 150.418, medianHouse: 1_600_000, medianRent: 650, kind: 'rural' },
  { id: 2850, name: 'Mudgee', postcode: '2850', state: 'NSW', latitude: -32.594, longitude: 149.587, medianHouse: 650_000, medianRent: 470, kind: 'rural' },
];

export const STREETS: readonly string[] = [
  'Cotham Road',
  'High Street',
  'Glenferrie Road',
  'Church Street',
  'Bridge Road',
  'Smith Street',
  'Station Street',
  'Victoria Parade',
  'Albert Street',
  'Wellington Street',
  'Park Road',
  'Grange Road',
  'Barkers Road',
  'Stanhope Grove',
  'Rowland Street',
  'Walpole Street',
  "O'Connell Street",
  'Normanby Road',
  'Elizabeth Street',
  'Oxford Street',
  'King Street',
  'Darling Street',
  'Glebe Point Road',
  'Hall Street',
  'Military Road',
  'Pittwater Road',
  'Ferry Street',
  'Mitchell Avenue',
  'Bay Street',
  'Fitzroy Street',
  'Lygon Street',
  'Rathdowne Street',
  'Mont Albert Road',
  'Burke Road',
  'Toorak Road',
  'Union Road',
  'Marion Street',
  'Ann Street',
  'Hope Street',
  'Percy Street',
];

/**
 * Real streets of each suburb: a listing's street is drawn from its own suburb's, so an Australian
 * reader never meets "Glebe Point Road, Hawthorn" (issue #33). Suburbs missing here fall back to STREETS.
 */
export const STREETS_BY_SUBURB: Readonly<Record<string, readonly string[]>> = {
  Kew: ['Cotham Road', 'High Street', 'Barkers Road', 'Stevenson Street', 'Walpole Street', 'Princess Street', 'Studley Park Road'],
  Hawthorn: ['Glenferrie Road', 'Burwood Road', 'Power Street', 'Auburn Road', 'Riversdale Road', 'Liddiard Street', 'Lisson Grove'],
  Richmond: ['Bridge Road', 'Swan Street', 'Church Street', 'Lennox Street', 'Coppin Street', 'Highett Street', 'Rowena Parade'],
  Fitzroy: ['Brunswick Street', 'Gertrude Street', 'Johnston Street', 'Napier Street', 'King William Street', 'Rose Street', 'Argyle Street'],
  Brunswick: ['Sydney Road', 'Lygon Street', 'Albion Street', 'Victoria Street', 'Union Street', 'Weston Street', 'Barkly Street'],
  Northcote: ['High Street', 'Westgarth Street', 'Separation Street', 'Arthurton Road', 'Clarke Street', 'Bastings Street', 'Mitchell Street'],
  'St Kilda': ['Fitzroy Street', 'Acland Street', 'Grey Street', 'Barkly Street', 'Alma Road', 'Blessington Street', 'Dalgety Street'],
  'South Yarra': ['Toorak Road', 'Chapel Street', 'Domain Road', 'Park Street', 'Millswyn Street', 'Walsh Street', 'Caroline Street'],
  Camberwell: ['Burke Road', 'Riversdale Road', 'Camberwell Road', 'Prospect Hill Road', 'Trafalgar Road', 'Through Road', 'Highfield Road'],
  Footscray: ['Barkly Street', 'Nicholson Street', 'Hopkins Street', 'Buckley Street', 'Droop Street', 'Gordon Street', 'Pickett Street'],
  'Box Hill': ['Whitehorse Road', 'Station Street', 'Thames Street', 'Elgar Road', 'Dorking Road', 'Carrington Road', 'Ellingworth Parade'],
  Brighton: ['Bay Street', 'Church Street', 'New Street', 'Were Street', 'Male Street', 'Black Street', 'Wilson Street'],
  Williamstown: ['Nelson Place', 'Ferguson Street', 'Electra Street', 'Douglas Parade', 'Cecil Street', 'Thompson Street', 'Osborne Street'],
  'Glen Iris': ['High Street', 'Glen Iris Road', 'Malvern Road', 'Summerhill Road', 'Ashburn Grove', 'Florizel Street', 'Sherwood Road'],
  Paddington: ['Oxford Street', 'Glenmore Road', 'Underwood Street', 'Paddington Street', 'Cascade Street', 'Windsor Street', 'Hargrave Street'],
  'Surry Hills': ['Crown Street', 'Bourke Street', 'Riley Street', 'Foveaux Street', 'Cleveland Street', 'Albion Street', 'Devonshire Street'],
  Newtown: ['King Street', 'Enmore Road', 'Wilson Street', 'Australia Street', 'Church Street', 'Brown Street', 'Wells Street'],
  Bondi: ['Campbell Parade', 'Bondi Road', 'Hall Street', 'Curlewis Street', 'Beach Road', "O'Brien Street", 'Blair Street'],
  Manly: ['Pittwater Road', 'Darley Road', 'Sydney Road', 'Raglan Street', 'Bower Street', 'Addison Road', 'Ashburner Street'],
  Balmain: ['Darling Street', 'Mort Street', 'Beattie Street', 'Montague Street', 'Evans Street', 'Ewenton Street', 'Short Street'],
  Chatswood: ['Victoria Avenue', 'Archer Street', 'Help Street', 'Anderson Street', 'Orchard Road', 'Mowbray Road', 'Albert Avenue'],
  Parramatta: ['Church Street', 'George Street', 'Macquarie Street', 'Marsden Street', 'Harris Street', 'Argyle Street', 'Sorrell Street'],
  Randwick: ['Belmore Road', 'Alison Road', 'Avoca Street', 'Clovelly Road', 'Frenchmans Road', 'Carrington Road', 'Dutruc Street'],
  Marrickville: ['Marrickville Road', 'Illawarra Road', 'Victoria Road', 'Addison Road', 'Livingstone Road', 'Sydenham Road', 'Silver Street'],
  Werribee: ['Watton Street', 'Synnot Street', 'Greaves Street', 'Heaths Road', 'Ballan Road', 'Duncans Road'],
  Tarneit: ['Leakes Road', 'Derrimut Road', 'Sayers Road', 'Hogans Road', 'Tarneit Road', 'Davis Road'],
  'Clyde North': ['Thompsons Road', 'Pattersons Road', 'Smiths Lane', 'Grices Road', 'Berwick-Cranbourne Road', 'Hardys Road'],
  'Marsden Park': ['Richmond Road', 'Hollinsworth Road', 'South Street', 'Elara Boulevard', 'Jersey Road', 'Garfield Road East'],
  'Oran Park': ['Oran Park Drive', 'Peter Brock Drive', 'Podium Way', 'South Circuit', 'Dick Johnson Drive', 'Holden Drive'],
  Gisborne: ['Aitken Street', 'Brantome Street', 'Robertson Street', 'Hamilton Street', 'Station Road'],
  Kyneton: ['Mollison Street', 'Piper Street', 'High Street', 'Ebden Street', 'Jennings Street'],
  Bowral: ['Bong Bong Street', 'Bendooley Street', 'Merrigang Street', 'Bowral Street', 'Shepherd Street'],
  Mudgee: ['Church Street', 'Market Street', 'Mortimer Street', 'Perry Street', 'Lewis Street'],
};

/** The roads out of each rural town, for its farms and lifestyle blocks. */
export const RURAL_ROADS_BY_SUBURB: Readonly<Record<string, readonly string[]>> = {
  Gisborne: ['Mount Macedon Road', 'Bacchus Marsh Road', 'Kilmore Road'],
  Kyneton: ['Blackhill Road', 'Burke and Wills Track', 'Kyneton-Metcalfe Road'],
  Bowral: ['Old Hume Highway', 'Range Road', 'Kangaloon Road'],
  Mudgee: ['Ulan Road', 'Henry Lawson Drive', 'Castlereagh Highway'],
};

export const GROWTH_STREETS: readonly string[] = [
  'Banksia Crescent',
  'Wattle Way',
  'Ironbark Drive',
  'Saltbush Circuit',
  'Kookaburra Street',
  'Bottlebrush Boulevard',
  'Grevillea Avenue',
  'Lilly Pilly Lane',
  'Currawong Road',
  'Bluegum Rise',
];

export const RURAL_ROADS: readonly string[] = [
  'Mount Macedon Road',
  'Blackhill Road',
  'Burke and Wills Track',
  'Range Road',
  'Old Hume Highway',
  'Ulan Road',
  'Bowenfels Lane',
  'Redhill Road',
];

/** Property classes as the CRM names them. */
export const CLASSES = {
  residential: { id: 1, name: 'Residential', internalName: 'residential' },
  commercial: { id: 2, name: 'Commercial', internalName: 'commercial' },
  land: { id: 3, name: 'Land', internalName: 'land' },
  rural: { id: 4, name: 'Rural', internalName: 'rural' },
} as const;

export type PropertyClassName = keyof typeof CLASSES;

export const TYPES = {
  House: { id: 1, name: 'House', class: 'residential' },
  Unit: { id: 2, name: 'Unit', class: 'residential' },
  Townhouse: { id: 3, name: 'Townhouse', class: 'residential' },
  Apartment: { id: 4, name: 'Apartment', class: 'residential' },
  Villa: { id: 5, name: 'Villa', class: 'residential' },
  Land: { id: 20, name: 'Land', class: 'land' },
  Office: { id: 31, name: 'Offices', class: 'commercial' },
  Retail: { id: 32, name: 'Retail', class: 'commercial' },
  Industrial: { id: 33, name: 'Industrial/Warehouse', class: 'commercial' },
  Farm: { id: 41, name: 'Farm', class: 'rural' },
  Lifestyle: { id: 42, name: 'Lifestyle', class: 'rural' },
} as const;

export type TypeKey = keyof typeof TYPES;

export const METHODS_OF_SALE = {
  auction: { id: 1, name: 'Auction' },
  privateTreaty: { id: 2, name: 'Private Treaty' },
  eoi: { id: 3, name: 'Expressions of Interest' },
  tender: { id: 4, name: 'Tender' },
} as const;

export const AUTHORITY_TYPES = [
  { id: 1, name: 'Exclusive' },
  { id: 2, name: 'Auction' },
  { id: 3, name: 'Open' },
] as const;

export const ACCOUNT = { id: 5129, name: 'Harbour & Yarra Property' } as const;

/** Who an account is: its CRM id, trading name and web domain (fictional, under example.com). */
export interface AgencyIdentity {
  id: number;
  name: string;
  domain: string;
}

const AGENCY_PLACES = [
  'Bayside',
  'Northcote',
  'Riverbend',
  'Eastwood',
  'Hillcrest',
  'Seaview',
  'Parklands',
  'Ironbark',
  'Greenvale',
  'Kingsford',
  'Wattle',
  'Bluegum',
  'Southbank',
  'Lakeside',
  'Redhill',
  'Oakleigh',
  'Brightwater',
];
const AGENCY_KINDS = ['Realty', 'Property', 'Estate Agents', 'Real Estate', 'Property Group', 'Homes'];

/**
 * The identity of the account at `index` on the key: the first is the original agency; the others
 * get distinct names, domains and ids, deterministically (the same index, the same agency).
 */
export function agencyIdentity(index: number): AgencyIdentity {
  if (index === 0) return { id: ACCOUNT.id, name: ACCOUNT.name, domain: 'harbourandyarra.example.com' };
  const place = AGENCY_PLACES[index % AGENCY_PLACES.length]!;
  const kind = AGENCY_KINDS[Math.floor(index / AGENCY_PLACES.length) % AGENCY_KINDS.length]!;
  // Past places × kinds the round number keeps names distinct.
  const round = Math.floor(index / (AGENCY_PLACES.length * AGENCY_KINDS.length));
  const name = `${place} ${kind}${round > 0 ? ` ${round + 1}` : ''}`;
  return { id: ACCOUNT.id + index * 13, name, domain: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.example.com` };
}

export const BRANCHES = {
  VIC: {
    id: 811,
    name: 'Harbour & Yarra Property Richmond',
    shortName: 'Richmond',
    websiteUrl: 'https://harbourandyarra.example.com/richmond',
    address: { streetNumber: '212', street: 'Swan Street', suburb: 'RICHMOND', postcode: '3121', state: 'VIC' },
  },
  NSW: {
    id: 812,
    name: 'Harbour & Yarra Property Surry Hills',
    shortName: 'Surry Hills',
    websiteUrl: 'https://harbourandyarra.example.com/surry-hills',
    address: { streetNumber: '88', street: 'Crown Street', suburb: 'SURRY HILLS', postcode: '2010', state: 'NSW' },
  },
} as const;

/** Numbers ACMA sets aside for fiction: they never ring a real phone. */
export const FICTIONAL_MOBILES: readonly string[] = [
  '0491 570 006',
  '0491 570 156',
  '0491 570 157',
  '0491 570 158',
  '0491 570 159',
  '0491 570 110',
  '0491 570 313',
  '0491 570 737',
  '0491 571 266',
  '0491 571 491',
  '0491 571 804',
  '0491 572 549',
  '0491 572 665',
  '0491 572 983',
  '0491 573 087',
  '0491 573 770',
  '0491 574 118',
  '0491 574 632',
  '0491 575 254',
  '0491 575 789',
  '0491 576 398',
  '0491 576 801',
  '0491 577 426',
  '0491 577 644',
  '0491 578 148',
  '0491 578 888',
  '0491 579 212',
  '0491 579 760',
  '0491 579 947',
];

export interface StaffSeed {
  firstName: string;
  lastName: string;
  position: string;
  role: 'residentialSales' | 'propertyManagement' | 'commercialSalesAndLeasing';
  state: 'VIC' | 'NSW';
  showOnWeb: boolean;
  adminAccess: boolean;
  /** The drawn portrait (crm-sim/portraits.ts); null: no photo uploaded. */
  portrait: PortraitId | null;
  listsProperties: boolean;
  /**
   * The profile as the agency typed it into the CRM: HTML from its editor (or pasted from Word, with
   * the styles and script that came along), plain text with line breaks, or nothing. `{first}`,
   * `{agency}` and `{domain}` are filled in per agency, so another account's people read as its own.
   */
  profile: string | null;
  /** Their phones: the mobile (FICTIONAL_MOBILES) and an office line, or the mobile alone. */
  phones?: 'mobile-and-office' | 'mobile-only';
  hideMobileFromPortal?: boolean;
  /** The principal and the director: the people an agency puts first on its team page (the demo's TEAM_ORDER). */
  leadsTheTeam?: boolean;
}

/**
 * The original account's staff, ids 450101 on in this order. The first ten are drawn from the
 * seed's one PRNG stream (their last logins and photo names), so listings stay as they were seeded;
 * those after them (LATER_STAFF_FROM) take their draws from a PRNG of their own and list nothing.
 */
export const STAFF: readonly StaffSeed[] = [
  {
    firstName: 'Margaret',
    lastName: 'Kowalski',
    position: 'Principal & Licensed Estate Agent',
    role: 'residentialSales',
    state: 'VIC',
    showOnWeb: true,
    adminAccess: true,
    listsProperties: true,
    portrait: 'silver-bob',
    leadsTheTeam: true,
    profile:
      '<p>{first} founded {agency} in 2004 after fifteen years selling homes across Melbourne&#39;s inner east, and still calls many of the agency&#39;s auctions.</p>' +
      '<p><strong>What you can expect when you sell with {first}:</strong></p>' +
      '<ul><li>A written appraisal with recent comparable sales within 48 hours</li><li>A campaign plan &amp; budget you approve before anything is spent</li><li>A call after every open home and a written report each Monday</li></ul>' +
      '<p>Licensed estate agent and a member of the state&#39;s real estate institute for over 25 years.</p>',
  },
  {
    firstName: 'Sarah',
    lastName: 'Nguyen',
    position: 'Senior Sales Consultant',
    role: 'residentialSales',
    state: 'VIC',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: true,
    portrait: 'long-black',
    profile:
      '{first} has sold more than 400 homes in Kew, Hawthorn and Camberwell since joining {agency} in 2011.\r\n\r\n' +
      'Before real estate {first} taught maths at a secondary school for eight years, and buyers say it shows: every step of a sale is explained plainly, in writing, and calls are returned the same day.\r\n\r\n' +
      'Speaks English and Vietnamese.',
  },
  {
    firstName: 'James',
    lastName: "O'Brien",
    position: 'Sales Associate',
    role: 'residentialSales',
    state: 'VIC',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: true,
    portrait: 'auburn-crop',
    profile: null,
  },
  {
    firstName: 'Tom',
    lastName: 'Caruso',
    position: 'Director of Sales, Surry Hills',
    role: 'residentialSales',
    state: 'NSW',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: true,
    portrait: 'dark-side-part-beard',
    leadsTheTeam: true,
    // Pasted from a word processor: its inline styles, an empty paragraph and a tracking snippet came along.
    profile:
      '<p class="MsoNormal" style="margin:0cm;font-family:Calibri,sans-serif"><span style="font-size:11.0pt">{first} leads the Surry Hills office and its inner-west sales team. Raised in Leichhardt, {first} has sold homes in Newtown, Marrickville and Balmain for more than twenty years.</span></p>' +
      '<p class="MsoNormal" style="margin:0cm"><span style="font-size:11.0pt">&nbsp;</span></p>' +
      '<p class="MsoNormal" style="margin:0cm"><span style="font-size:11.0pt;color:#1F3864">Ask about the Saturday-morning price guide briefings at the office &ndash; no appointment needed.</span></p>' +
      "<script>window.dataLayer=window.dataLayer||[];window.dataLayer.push({event:'agent_profile_view'});</script>",
  },
  {
    firstName: 'Mei Lin',
    lastName: 'Chen',
    position: 'Sales Consultant',
    role: 'residentialSales',
    state: 'NSW',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: true,
    portrait: 'black-bob-fringe',
    profile:
      '{first} works with buyers and sellers of apartments and terraces across Surry Hills, Paddington and Chatswood.\r\n\r\n' +
      '&#x2022; Fluent in Mandarin and Cantonese\r\n&#x2022; Six years as a property valuer before sales\r\n&#x2022; Off-the-plan &amp; new developments',
  },
  {
    firstName: 'Olivia',
    lastName: 'Bennett',
    position: 'Senior Property Manager',
    role: 'propertyManagement',
    state: 'VIC',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: true,
    portrait: 'blonde-wavy',
    profile:
      '<p>I look after a portfolio of 180 rentals across Richmond, Fitzroy and Northcote, most of them for owners who have been with me for years.</p>' +
      '<p>Tenants get an answer to a maintenance request within one business day, and owners a <em>routine inspection report with photos</em> twice a year.<br>' +
      'Thinking of renting out your home? Read <a href="https://{domain}/guides/leasing-your-investment" target="_blank" onclick="track(this)">our guide for first-time landlords</a>.</p>',
  },
  {
    firstName: 'Daniel',
    lastName: 'Fitzgerald',
    position: 'Leasing Consultant',
    role: 'propertyManagement',
    state: 'NSW',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: true,
    portrait: 'curly-glasses',
    profile:
      "{first} helps tenants find their next home across Surry Hills, Paddington and Bondi, and runs most of the office's Saturday inspections.\r\n" +
      'Call to book a private inspection, weekday evenings included.',
  },
  {
    firstName: 'Aisha',
    lastName: 'Rahman',
    position: 'Commercial Sales & Leasing Executive',
    role: 'commercialSalesAndLeasing',
    state: 'VIC',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: true,
    portrait: 'teal-hijab',
    // The CRM's own editor writes divs and bold tags.
    profile:
      '<div><b>Retail, office &amp; industrial</b></div>' +
      '<div>{first} has negotiated more than 300 commercial leases and sales in Richmond, Cremorne and the inner north, for owners from first-time investors to family trusts.</div>' +
      '<div><br></div><div>Before {agency}, {first} spent six years in commercial property valuation.</div>',
  },
  {
    firstName: 'Ben',
    lastName: 'Walsh',
    position: 'Sales Associate',
    role: 'residentialSales',
    state: 'NSW',
    showOnWeb: false,
    adminAccess: false,
    listsProperties: true,
    portrait: 'brown-crop',
    profile: null,
  },
  {
    firstName: 'Rachel',
    lastName: 'Hughes',
    position: 'Office Administrator',
    role: 'residentialSales',
    state: 'VIC',
    showOnWeb: false,
    adminAccess: true,
    listsProperties: false,
    portrait: null,
    profile: null,
  },
  // Joined later: no listings of their own (LATER_STAFF_FROM).
  {
    firstName: 'Samuel',
    lastName: 'Okoro',
    position: 'Auctioneer',
    role: 'residentialSales',
    state: 'VIC',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: false,
    portrait: 'fade-suit',
    phones: 'mobile-only',
    profile:
      '{first} calls more than 250 auctions a year for {agency}, on site and in the rooms, and has been a licensed auctioneer since 2009.\r\n\r\n' +
      'Twice a finalist in the state auctioneering championships. Ask your agent to book {first} for your auction day.',
  },
  {
    firstName: 'Priya',
    lastName: 'Sharma',
    position: 'Property Manager',
    role: 'propertyManagement',
    state: 'NSW',
    showOnWeb: true,
    adminAccess: false,
    listsProperties: false,
    portrait: 'dark-ponytail',
    hideMobileFromPortal: true,
    profile:
      '<p>{first} manages rentals for owners across Parramatta, Marrickville and the inner west, from studio apartments to family homes.</p>' +
      '<ul><li>Rent reviews against the local market every 12 months</li><li>Arrears followed up the first day they occur</li><li>Trusted local trades, quotes before any work over $500</li></ul>',
  },
  {
    firstName: 'Chloe',
    lastName: 'Marsh',
    position: 'Marketing Coordinator',
    role: 'residentialSales',
    state: 'VIC',
    showOnWeb: false,
    adminAccess: false,
    listsProperties: false,
    portrait: 'red-bun',
    profile: null,
  },
];

/** STAFF from this index on joined after the seed's stream was fixed: own draws, no listings. */
export const LATER_STAFF_FROM = 10;

/**
 * People of the simulator's other agencies (SIM_AGENCIES, accounts after the first): each account
 * gets its own draw of these for the places in STAFF, so every agency's team looks like its own.
 */
export const OTHER_AGENCY_PEOPLE: readonly { firstName: string; lastName: string; portrait: PortraitId }[] = [
  { firstName: 'Liam', lastName: 'Murphy', portrait: 'brown-beard' },
  { firstName: 'Ananya', lastName: 'Patel', portrait: 'wavy-black' },
  { firstName: 'Wei', lastName: 'Wang', portrait: 'side-part-glasses' },
  { firstName: 'Helen', lastName: 'Campbell', portrait: 'grey-pixie' },
  { firstName: 'Nikos', lastName: 'Papadopoulos', portrait: 'curly-moustache' },
  { firstName: 'Fatima', lastName: 'Khan', portrait: 'black-hijab' },
  { firstName: 'Connor', lastName: 'Kelly', portrait: 'ginger-stubble' },
  { firstName: 'Linh', lastName: 'Tran', portrait: 'black-bun' },
  { firstName: 'Arjun', lastName: 'Singh', portrait: 'fade-beard' },
  { firstName: 'Zoe', lastName: 'Williams', portrait: 'afro-earrings' },
  { firstName: 'Isla', lastName: 'Robinson', portrait: 'blonde-ponytail' },
  { firstName: 'Siobhan', lastName: 'Ryan', portrait: 'auburn-long' },
  { firstName: 'Lucas', lastName: 'Harris', portrait: 'crop-glasses' },
  { firstName: 'Eleni', lastName: 'Rossi', portrait: 'dark-bob' },
  { firstName: 'Jack', lastName: 'Thompson', portrait: 'blonde-crop' },
  { firstName: 'Graham', lastName: 'Young', portrait: 'grey-receding' },
];

export const FIRST_NAMES: readonly string[] = [
  'Liam',
  'Olivia',
  'Noah',
  'Charlotte',
  'Jack',
  'Amelia',
  'William',
  'Isla',
  'Oliver',
  'Mia',
  'Lucas',
  'Grace',
  'Ethan',
  'Chloe',
  'Harper',
  'Zoe',
  'Arjun',
  'Ananya',
  'Wei',
  'Hannah',
  'Mohammed',
  'Fatima',
  'Luca',
  'Sofia',
  'Nikos',
  'Eleni',
  'Tran',
  'Linh',
  'Connor',
  'Siobhan',
];

export const LAST_NAMES: readonly string[] = [
  'Smith',
  'Jones',
  'Williams',
  'Brown',
  'Wilson',
  'Taylor',
  'Nguyen',
  'Johnson',
  'Martin',
  'White',
  'Anderson',
  'Thompson',
  'Patel',
  'Singh',
  'Wang',
  'Li',
  'Kelly',
  'Ryan',
  'Papadopoulos',
  'Rossi',
  'Murphy',
  'Walker',
  'Harris',
  'Lee',
  'Clarke',
  'Tran',
  'Khan',
  'Campbell',
  'Robinson',
  'Young',
];

export const HOLDING_AREA_TYPES = [
  { id: 1, source: 'Office Website', apiCode: 'OFFICEWEBSITE' },
  { id: 2, source: 'realestate.com.au', apiCode: 'REA' },
  { id: 3, source: 'Domain', apiCode: 'DOMAIN' },
  { id: 4, source: 'Franchise Website', apiCode: 'FRANCHISEWEBSITE' },
  { id: 5, source: 'Homely', apiCode: 'HOMELY' },
  { id: 6, source: 'Other', apiCode: 'OTHER' },
] as const;

export const ENQUIRY_SOURCES = [
  { id: 101, name: 'realestate.com.au' },
  { id: 102, name: 'Domain' },
  { id: 103, name: 'Office Website' },
  { id: 104, name: 'Signboard' },
  { id: 105, name: 'Walk-in' },
  { id: 106, name: 'Referral' },
  { id: 107, name: 'Social Media' },
  { id: 108, name: 'Newspaper' },
] as const;

export const ENQUIRY_CATEGORIES = [
  { id: 51, name: 'Buyer' },
  { id: 52, name: 'Tenant' },
  { id: 53, name: 'Investor' },
  { id: 54, name: 'Appraisal request' },
] as const;
