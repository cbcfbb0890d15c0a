import type { Address, Area, AuctionDetails, ExternalLink, ListingBadge, ListingStatus, ListingType } from '../../contract/relay-api.ts';
import type { ListingFacts, ListingPlace, MappedAgent, MappedListing, PublicListingFields } from '../listings/source.ts';
import { priceRange } from '../listings/price-range.ts';
import type { SourcePhoto } from '../photos/mirror.ts';
import { listingDestination, userDestination } from './lead-destination.ts';
import { plainText } from './plain-text.ts';
import { profileText } from './profile-text.ts';
import type { CrmPhoto, CrmProperty, CrmUser } from './schemas.ts';

/*
 * The allow-list. Everything the relay publishes about a listing or an agent is built here, one
 * named field at a time, from the CRM record. Nothing is spread or copied wholesale, so a field
 * the CRM adds tomorrow (or a confidential one it sends today: internal remarks, tenant details,
 * fees, vendor and commission data, price opinions, staff logins) can never reach a website.
 * `searchPrice` is read into the internal facts for filtering and sorting only, and only as the
 * range a visitor may know it to be in (see price-range.ts): its band when the price is withheld.
 */

export interface ListPlacement {
  /** The CRM list the record came from, e.g. 'residential/sale/available'. */
  source: string;
  type: ListingType;
  status: ListingStatus;
}

/** CRM statuses of a current sale listing that has accepted an offer. */
const UNDER_OFFER_STATUSES = new Set(['conditional', 'underoffer', 'under offer', 'undercontract']);

/**
 * The public id of a listing: one per sale or lease life of a property, so a property listed for
 * sale and for lease at once, or sold twice within the showcase window, is two listings. Twice the
 * life id, plus one for a lease: distinct across both kinds of life, stable while the life lasts
 * (from available to sold or leased), and a number as before. A record without its life id (never
 * seen in real lists) falls back to its property id.
 */
export function listingId(type: ListingType, property: Pick<CrmProperty, 'id' | 'saleLifeId' | 'leaseLifeId'>): number {
  const lifeId = type === 'sale' ? property.saleLifeId : property.leaseLifeId;
  return (typeof lifeId === 'number' ? lifeId : property.id) * 2 + (type === 'lease' ? 1 : 0);
}

/**
 * The address as the public listing shows it: the CRM's displayAddress when the whole address may
 * be shown, else composed to what addressVisibility allows (a withheld street shows the suburb).
 * Also what a lead's subject names (lead-destination.ts).
 */
export function publishedAddress(property: CrmProperty): string {
  const suburbName = titleCase(property.address?.suburb?.name ?? null);
  const state = property.address?.suburb?.state?.abbreviation ?? property.address?.state?.abbreviation ?? null;
  const fullAddressShown = (property.addressVisibility ?? 'fullAddress') === 'fullAddress';
  // displayAddress is trusted only when the whole address may be shown: whether the CRM already
  // trimmed it to addressVisibility is not promised, so a partial address is composed here.
  return (fullAddressShown ? nonEmpty(property.displayAddress) : null) ?? composeAddress(property, fullAddressShown, suburbName, state);
}

export function listingFromCrm(property: CrmProperty, placement: ListPlacement): MappedListing {
  const id = listingId(placement.type, property);
  const suburbName = titleCase(property.address?.suburb?.name ?? null);
  const state = property.address?.suburb?.state?.abbreviation ?? property.address?.state?.abbreviation ?? null;
  const postcode = property.address?.suburb?.postcode ?? null;
  const fullAddressShown = (property.addressVisibility ?? 'fullAddress') === 'fullAddress';
  const address: Address = {
    display: publishedAddress(property),
    suburb: suburbName,
    postcode,
    state,
  };
  const cars = sumOrNull(property.garages, property.carports, property.openSpaces) ?? property.carSpaces ?? null;
  const landArea = area(property.landArea);
  const methodOfSale = nonEmpty(property.methodOfSale?.name) ?? nonEmpty(property.methodOfsale?.name);
  const auction = auctionDetails(property.auctionDetails);
  const latitude = property.geolocation?.latitude;
  const longitude = property.geolocation?.longitude;
  const highlights = (property as Record<string, unknown>).highlights;

  const fields: PublicListingFields = {
    id,
    type: placement.type,
    status: placement.status,
    badge: badge(placement, property.status),
    heading: nonEmpty(property.heading),
    address,
    displayPrice: nonEmpty(property.displayPrice),
    propertyType: nonEmpty(property.type?.name),
    bed: count(property.bed),
    bath: count(property.bath),
    cars,
    landArea,
    floorArea: area(property.floorArea),
    methodOfSale,
    auctionDateTime: auction?.dateTime ?? null,
    modified: isoOrNull(property.modified) ?? new Date(0).toISOString(),
    description: plainText(property.description),
    links: links(property),
    auction,
    features: stringList(highlights),
    ensuites: count(property.ensuites),
    toilets: count(property.toilets),
    // A hidden street address must not be given away by a map pin.
    geolocation: fullAddressShown && typeof latitude === 'number' && typeof longitude === 'number' ? { latitude, longitude } : null,
    inserted: isoOrNull(property.inserted),
  };

  const price = priceRange(property.searchPrice, property.displayPrice, placement.type, property.priceOnApplication);
  const facts: ListingFacts = {
    id,
    propertyId: property.id,
    source: placement.source,
    type: placement.type,
    status: placement.status,
    leadDestination: listingDestination(placement.type, property, address.display),
    reference: nonEmpty(property.referenceID),
    crmModified: property.modified ?? null,
    insertedAt: epochOrNull(property.inserted),
    modifiedAt: epochOrNull(property.modified),
    suburb: suburbName,
    propertyType: fields.propertyType,
    priceLowCents: price?.lowCents ?? null,
    priceHighCents: price?.highCents ?? null,
    bed: fields.bed,
    bath: fields.bath,
    cars,
    landAreaSqm: landArea ? squareMetres(landArea) : null,
  };

  const photos = publishedPhotos(property.photos);

  // A record carrying only `{ id }` (commercial and land lists) cannot say whether to show the person.
  const staff = property.contactStaff.map((user) => ({ id: user.id, agent: isFullUserRecord(user) ? agentFromCrm(user) : null }));
  // For the map: the street and the CRM's coordinates only when the whole address may be shown, so
  // a withheld street is never sent to a geocoder nor given away by a pin (server/places/).
  // The unit ("3/") is left out: geocoders find the building by number and street.
  const street = nonEmpty(property.address?.street);
  const place: ListingPlace = {
    street: fullAddressShown && street ? [nonEmpty(property.address?.streetNumber), street].filter(Boolean).join(' ') : null,
    suburb: suburbName,
    state,
    postcode,
    country: nonEmpty(property.address?.country?.isocode)?.toUpperCase() ?? null,
    coordinates: fields.geolocation && validCoordinates(fields.geolocation) ? { lat: fields.geolocation.latitude, lng: fields.geolocation.longitude } : null,
  };
  return { facts, fields, photos, staff, hasHighlights: Array.isArray(highlights), place };
}

/** Coordinates a map can use: on the globe and not the CRM's 0,0 for "unknown". */
function validCoordinates(point: { latitude: number; longitude: number }): boolean {
  const { latitude, longitude } = point;
  return (
    Number.isFinite(latitude) && Number.isFinite(longitude) && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180 && !(latitude === 0 && longitude === 0)
  );
}

/** Published photos and floorplans, in the CRM's order (a list item's `photos` or GET /properties/{id}/photos). */
export function publishedPhotos(photos: readonly CrmPhoto[]): SourcePhoto[] {
  const result: SourcePhoto[] = [];
  for (const photo of photos) {
    // Unpublished photos (vendor use, drafts) never leave the CRM through us.
    if (photo.published !== true || !photo.url) continue;
    result.push({
      photoId: photo.id,
      kind: /floor/i.test(photo.type ?? '') ? 'floorplan' : 'photograph',
      position: result.length,
      caption: nonEmpty(photo.caption),
      url: photo.url,
      modified: photo.modified ?? null,
    });
  }
  return result;
}

/** A staff member, public part only. Callers publish only those with showOnWeb true. */
export function agentFromCrm(user: CrmUser): MappedAgent {
  const name = [user.firstName, user.lastName]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(' ');
  const photoUrl = nonEmpty(user.photo?.original) ?? nonEmpty(user.photo?.thumb_360);
  const numbers = user.phoneNumbers.filter((phone) => nonEmpty(phone.number));
  const isMobile = (phone: (typeof numbers)[number]) => phone.typeCode === 'M' || /mobile/i.test(phone.type ?? '');
  // `role` is confidential (it is not even declared in the schema): only whether one is set is read.
  const role = (user as Record<string, unknown>).role;
  return {
    id: user.id,
    showOnWeb: user.showOnWeb === true,
    publicRole: typeof role === 'string' && role.trim() !== '',
    leadDestination: userDestination(user.id),
    fields: {
      id: user.id,
      name: name || 'Our team',
      position: nonEmpty(user.position),
      officePhone: nonEmpty(numbers.find((phone) => !isMobile(phone))?.number),
      // hideMobileFromPortal is the agent's own wish: honoured whatever the agency's setting.
      mobile: user.hideMobileFromPortal ? null : nonEmpty(numbers.find(isMobile)?.number),
      email: user.email && /^[^\s@]+@[^\s@]+$/.test(user.email) ? user.email : null,
      profile: profileText(user.profile),
    },
    // Portraits have no change marker of their own: a new URL is a new portrait.
    photo: photoUrl ? { photoId: 0, kind: 'portrait', position: 0, caption: name || null, url: photoUrl, modified: null } : null,
  };
}

/** A record carrying only `{ id }` (commercial and land lists) cannot say whether to show the person. */
export function isFullUserRecord(user: CrmUser): boolean {
  return user.showOnWeb !== undefined && user.showOnWeb !== null;
}

function badge(placement: ListPlacement, crmStatus: string | null | undefined): ListingBadge {
  if (placement.status === 'sold') return 'sold';
  if (placement.status === 'leased') return 'leased';
  if (placement.type === 'sale' && UNDER_OFFER_STATUSES.has((crmStatus ?? '').toLowerCase())) return 'under-offer';
  return null;
}

function composeAddress(property: CrmProperty, fullAddressShown: boolean, suburb: string | null, state: string | null): string {
  const place = [suburb, state].filter(Boolean).join(' ');
  const street = nonEmpty(property.address?.street);
  // Only the values known to allow a street show one; any other (new) value shows the suburb alone.
  const streetShown = fullAddressShown || property.addressVisibility === 'streetAndSuburb';
  if (!street || !streetShown) return place;
  const unit = nonEmpty(property.address?.unitNumber);
  const number = nonEmpty(property.address?.streetNumber);
  const numbered = fullAddressShown ? [unit && number ? `${unit}/${number}` : (number ?? unit), street].filter(Boolean).join(' ') : street;
  return [numbered, place].filter(Boolean).join(', ');
}

function links(property: CrmProperty): ExternalLink[] {
  const result: ExternalLink[] = [];
  for (const link of property.externalLinks) {
    const url = httpUrl(link.url);
    if (url) result.push({ url, kind: nonEmpty(link.type?.name) ?? 'Link' });
  }
  // Victoria requires the Statement of Information to be available to buyers: it is public.
  const statement = httpUrl(property.soiUrl);
  if (statement) result.push({ url: statement, kind: 'Statement of Information' });
  return result;
}

function auctionDetails(details: CrmProperty['auctionDetails']): AuctionDetails | null {
  const dateTime = isoOrNull(details?.dateTime);
  if (!dateTime) return null;
  return { dateTime, venue: nonEmpty(details?.venue), auctioneer: nonEmpty(details?.auctioneer) };
}

function area(value: CrmProperty['landArea']): Area | null {
  if (!value || typeof value.value !== 'number' || !Number.isFinite(value.value) || value.value <= 0) return null;
  return { value: value.value, units: nonEmpty(value.units) ?? 'sqm' };
}

const SQUARE_METRES_PER_UNIT: Record<string, number> = {
  sqm: 1,
  m2: 1,
  squaremeter: 1,
  squaremetre: 1,
  squaremeters: 1,
  squaremetres: 1,
  hectare: 10_000,
  hectares: 10_000,
  ha: 10_000,
  acre: 4_046.856,
  acres: 4_046.856,
  sqft: 0.092_903,
  squarefeet: 0.092_903,
  squarefoot: 0.092_903,
};

/** Land area in square metres, for sorting across units; null when the unit is unknown. */
export function squareMetres(value: Area): number | null {
  const factor = SQUARE_METRES_PER_UNIT[value.units.toLowerCase().replace(/[\s_.-]/g, '')];
  return factor === undefined ? null : value.value * factor;
}

/** Only web links: a `javascript:` or `data:` URL in a CRM field must not become a link on a site. */
function httpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

function stringList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => (typeof item === 'string' ? plainText(item) : null)).filter((item): item is string => item !== null);
}

function nonEmpty(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** "KEW" → "Kew", "ST KILDA" → "St Kilda"; mixed case is left as the agency wrote it. */
function titleCase(value: string | null): string | null {
  const text = nonEmpty(value);
  if (!text || text !== text.toUpperCase()) return text;
  return text.toLowerCase().replace(/(^|[\s'-])(\p{L})/gu, (_match, lead: string, letter: string) => lead + letter.toUpperCase());
}

function count(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

function sumOrNull(...values: Array<number | null | undefined>): number | null {
  const known = values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  return known.length === 0 ? null : known.reduce((sum, value) => sum + value, 0);
}

function epochOrNull(value: string | null | undefined): number | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : time;
}

function isoOrNull(value: string | null | undefined): string | null {
  const time = epochOrNull(value);
  return time === null ? null : new Date(time).toISOString();
}
