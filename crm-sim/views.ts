import type { SimEnquiry, SimListing, SimPhoto, SimUser } from './model.ts';
import { renderImage, thumbnailSizes } from './photos.ts';
import { formatDateTime } from './time.ts';

/** What a view needs of the simulator's state (a narrow type, so views and state.ts import no cycle). */
export interface UserLookup {
  user(id: number): SimUser | undefined;
  /** A user the account's records name: a current one, or one who has left (records keep naming them). */
  staffMember(id: number): SimUser | undefined;
}

/** Records → the API's JSON shapes. URLs are absolute, built on the origin the request came in on. */

export function userPhotoUrls(user: SimUser, origin: string) {
  if (!user.photo) return null;
  const base = `${origin}/files/users/${user.id}`;
  return { original: `${base}/${user.photo.filename}`, thumb_360: `${base}/thumb_360/${user.photo.filename}` };
}

/** The full User shape, confidential fields included (username, permissions, lastLogin...). */
export function renderUser(user: SimUser, origin: string): Record<string, unknown> {
  const { id, firstName, lastName, username, email, adminAccess, position, role, ...rest } = user.fields;
  return { id, firstName, lastName, username, email, adminAccess, position, role, photo: userPhotoUrls(user, origin), ...rest };
}

/** The short Access shape used inside other records. */
export function renderAccess(user: SimUser, origin: string) {
  return { id: user.id, name: `${user.fields.firstName} ${user.fields.lastName}`, photo: userPhotoUrls(user, origin) };
}

export type ListingView = 'list' | 'single' | 'sold';

export function renderListing(listing: SimListing, state: UserLookup, origin: string, view: ListingView): Record<string, unknown> {
  const staff = listing.staffIds.map((id) => state.staffMember(id)).filter((user): user is SimUser => user !== undefined);
  // The reference gives land and commercial records contactStaff as bare ids; homes get full users.
  const contactStaff =
    listing.propertyClass === 'land' || listing.propertyClass === 'commercial'
      ? staff.map((user) => ({ id: user.id }))
      : staff.map((user) => renderUser(user, origin));
  const published = listing.publishedToWeb === null ? null : formatDateTime(listing.publishedToWeb);
  // Real answers leave publishedToWeb null on current listings the agency shows on its website (and
  // set it on sold ones): only the list's published filter says what is on the web.
  const current = listing.status === 'listing' || listing.status === 'conditional';
  const manager = listing.propertyManagerId === null ? undefined : state.staffMember(listing.propertyManagerId);
  const record: Record<string, unknown> = {
    id: listing.id,
    ...listing.fields,
    inserted: formatDateTime(listing.inserted),
    modified: formatDateTime(listing.modified),
    saleLifeId: listing.market === 'sale' ? listing.lifeId : null,
    leaseLifeId: listing.market === 'lease' ? listing.lifeId : null,
    status: listing.status,
    // Real records sometimes lack a portal status even when published.
    portalStatus: published === null || listing.id % 6 === 0 ? null : listing.status,
    publishedToWeb: current ? null : published,
    contactStaff,
  };
  if (manager) record.propertyManager = renderUser(manager, origin);
  if (listing.market === 'lease' && listing.propertyClass === 'residential') record.available = listing.status === 'listing';
  if (view === 'single') {
    Object.assign(record, listing.extendedFields);
    if (listing.market === 'sale') record.saleHistory = listing.saleDetails ? [listing.saleDetails] : [];
    else record.leaseHistory = [];
  }
  if (view === 'sold') record.saleDetails = listing.saleDetails;
  return record;
}

export function photoUrls(photo: SimPhoto, origin: string) {
  const base = `${origin}/files/photos/${photo.propertyId}`;
  return {
    url: `${base}/${photo.filename}`,
    thumbnails: Object.fromEntries(thumbnailSizes(photo.image.pool).map((size) => [size, `${base}/${size}/${photo.filename}`])),
  };
}

/** Needs the rendered file for filesize, width and height, so it may render the picture first. */
export async function renderPhoto(photo: SimPhoto, origin: string): Promise<Record<string, unknown>> {
  const rendered = await renderImage(photo.image);
  const { url, thumbnails } = photoUrls(photo, origin);
  return {
    id: photo.id,
    inserted: formatDateTime(photo.inserted),
    modified: formatDateTime(photo.modified),
    filesize: rendered.original.data.length,
    width: rendered.original.width,
    height: rendered.original.height,
    caption: photo.caption,
    type: photo.type,
    url,
    filename: photo.filename,
    userFilename: photo.userFilename,
    thumbnails,
    published: photo.published,
  };
}

export function renderEnquiry(enquiry: SimEnquiry, state: UserLookup, origin: string): Record<string, unknown> {
  // A user who has left is still named on the enquiries they had (staffMember: current or departed).
  const user = enquiry.userId === null ? undefined : state.staffMember(enquiry.userId);
  const phones = [
    ...(enquiry.mobile ? [{ number: enquiry.mobile, typeCode: 'M', type: 'Mobile', comment: null }] : []),
    ...(enquiry.telephone ? [{ number: enquiry.telephone, typeCode: 'H', type: 'Home', comment: null }] : []),
  ];
  const personName = enquiry.fullName ?? ([enquiry.firstName, enquiry.lastName].filter(Boolean).join(' ') || null);
  return {
    id: enquiry.id,
    subject: enquiry.subject,
    originalId: enquiry.originalId,
    inserted: formatDateTime(enquiry.inserted),
    source: enquiry.source,
    sourceName: enquiry.sourceName,
    saleLifeId: enquiry.saleLifeId,
    leaseLifeId: enquiry.leaseLifeId,
    processed: enquiry.processed,
    enquiryDate: formatDateTime(enquiry.enquiryDate),
    body: enquiry.body,
    contactId: null,
    personEmails: enquiry.email ? [enquiry.email] : [],
    personName,
    unsubscribe: { email: false },
    personPhoneNumbers: phones,
    categories: enquiry.categories,
    user: user ? renderAccess(user, origin) : null,
  };
}
