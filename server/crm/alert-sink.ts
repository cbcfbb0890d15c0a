import { compactPhone } from '../../contract/phone.ts';
import type { SavedSearchFilters } from '../../contract/saved-search.ts';
import type { Logger } from '../runtime/log.ts';
import type { AlertSink, Follower, SavedSearchLead } from '../saved-searches/sink.ts';
import { isCrmError, toCrmDateTime, type CallOptions, type CrmClient, type PropertyClass } from './client.ts';
import {
  crmCategorySchema,
  crmContactSchema,
  crmContactSearchResultSchema,
  crmRequirementSchema,
  crmSuccessSchema,
  type AddContact,
  type AddRequirement,
} from './contact-schemas.ts';
import { crmDeliveryFailure, spamSignalMetaData, splitName } from './lead-sink.ts';
import { requirementEquals, toRequirement, type RequirementWords } from './requirement.ts';
import { crmEnquirySchema } from './schemas.ts';
import { CrmVocabulary } from './vocabulary.ts';

export interface CrmAlertSinkOptions {
  /** The agency's contact categories for web-alert followers (SAVED_SEARCH_CATEGORY_IDS); none: step 3 is skipped. */
  categoryIds: readonly number[];
  /** Leave a holding-area enquiry so an agent sees the new buyer today (SAVED_SEARCH_HOLDING_ENQUIRY). */
  holdingEnquiry: boolean;
  /** The holding-area source ('OFFICEWEBSITE'; ENQUIRY_SOURCE). */
  source: string;
  /** The classes the relay syncs (LISTING_CLASSES). */
  classes: readonly PropertyClass[];
  log: Logger;
  /** Tests pass one to count or shorten its reads. */
  vocabulary?: CrmVocabulary;
}

/** Pages of GET /enquiries read when looking for one note (100 each). */
const NOTE_SEARCH_MAX_PAGES = 20;

/**
 * The CRM as the relay's alert sink: a follower is a contact (found by e-mail, else created with
 * e-mail consent recorded), a saved search is a requirement on that contact, the agency's alert
 * lists are contact categories, and the note for an agent is a holding-area enquiry.
 */
export function crmAlertSink(crm: CrmClient, options: CrmAlertSinkOptions): AlertSink {
  const vocabulary = options.vocabulary ?? new CrmVocabulary({ crm, classes: options.classes, log: options.log });
  const onlyClass = options.classes.length === 1 ? options.classes[0] : undefined;

  async function requirementFor(search: SavedSearchFilters, callOptions?: CallOptions): Promise<AddRequirement> {
    const words: Omit<RequirementWords, 'onlyClass'> =
      search.suburb === undefined && search.suburbs === undefined && search.propertyType === undefined && !onlyClass
        ? { classIds: new Map() }
        : await vocabulary.lookup(search, callOptions);
    if (search.propertyType !== undefined && !words.type) {
      options.log.warn(
        { propertyType: search.propertyType },
        "a saved search's property type is named by none of the CRM's listings: its requirement holds the class only",
      );
    }
    return toRequirement(search, { ...words, onlyClass });
  }

  return {
    async findPerson(email, callOptions) {
      const list = await crm.requestList(crmContactSearchResultSchema, {
        path: '/search/contacts/email',
        query: { term: email.trim(), pagesize: 10 },
        signal: callOptions?.signal,
      });
      // Exact match only (the CRM's search is exact, but a case or a second address must not pick another person); the oldest first.
      const wanted = email.trim().toLowerCase();
      const found = list.items.filter((item) => item.emails.some((candidate) => candidate.trim().toLowerCase() === wanted)).sort((a, b) => a.id - b.id);
      return found[0]?.id;
    },

    async addPerson(follower, callOptions) {
      const body: AddContact = {
        ...splitName(follower.fullName),
        emails: [follower.email.trim()],
        ...(follower.mobile === undefined
          ? {}
          : { phoneNumbers: [{ number: compactPhone(follower.mobile), typeCode: 'M' as const, type: 'Mobile' as const }] }),
        // The consent the form asked for: e-mail about homes matching the search.
        unsubscribe: { email: false, sms: false, letters: false },
      };
      const created = await crm.request({ method: 'POST', path: '/contacts', body, schema: crmContactSchema, signal: callOptions?.signal });
      return created.id;
    },

    async findSearches(personId, search, callOptions) {
      const wanted = await requirementFor(search, callOptions);
      const matches: number[] = [];
      try {
        for (let page = 1; page <= 10; page++) {
          const list = await crm.requestList(crmRequirementSchema, {
            path: `/contacts/${personId}/requirements`,
            query: { page, pagesize: 100, sort: 'inserted', sortOrder: 'asc' },
            signal: callOptions?.signal,
          });
          for (const held of list.items) if (requirementEquals(held, wanted)) matches.push(held.id);
          if (page >= list.totalPages || list.items.length + list.invalidItems === 0) break;
        }
      } catch (error) {
        if (isCrmError(error) && error.code === 'not_found') return undefined;
        throw error;
      }
      return matches;
    },

    async addSearch(personId, search, callOptions) {
      const body = await requirementFor(search, callOptions);
      const created = await crm.request({
        method: 'POST',
        path: `/contacts/${personId}/requirements`,
        body,
        schema: crmRequirementSchema,
        signal: callOptions?.signal,
      });
      return created.id;
    },

    hasAlertLists: options.categoryIds.length > 0,

    async addToAlertLists(personId, callOptions) {
      if (options.categoryIds.length === 0) return;
      // PUT replaces the contact's categories: keep those the agency gave them, add ours.
      const held = await crm.requestList(crmCategorySchema, {
        path: `/contacts/${personId}/categories`,
        query: { pagesize: 100 },
        signal: callOptions?.signal,
      });
      const ids = new Set(held.items.map((category) => category.id));
      if (options.categoryIds.every((id) => ids.has(id))) return;
      for (const id of options.categoryIds) ids.add(id);
      await crm.request({
        method: 'PUT',
        path: `/contacts/${personId}/categories`,
        body: { items: [...ids].map((id) => ({ id })) },
        schema: crmSuccessSchema,
        // The same set sent twice is the same set: safe to send again after a lost answer.
        idempotent: true,
        signal: callOptions?.signal,
      });
    },

    leavesNote: options.holdingEnquiry,

    async leaveNote(lead, callOptions) {
      const body = noteOf(lead, options.source);
      const created = await crm.request({ method: 'POST', path: '/enquiries', body, schema: crmEnquirySchema, signal: callOptions?.signal });
      return created.id;
    },

    async findNote(lead, callOptions) {
      const since = new Date(lead.acceptedAt - 60 * 60_000);
      for (let page = 1; page <= NOTE_SEARCH_MAX_PAGES; page++) {
        const list = await crm.listEnquiries(
          { enquiryDateSince: since, source: options.source, sort: 'enquiryDate', sortOrder: 'asc', page, pageSize: 100 },
          callOptions,
        );
        const match = list.items.find((item) => item.originalId === lead.originalId);
        if (match) return match.id;
        if (page >= list.totalPages || list.items.length + list.invalidItems === 0) return undefined;
      }
      throw new Error(`more than ${NOTE_SEARCH_MAX_PAGES * 100} holding-area enquiries to search since acceptance`);
    },

    failure: crmDeliveryFailure,
    personGone: (error) => isCrmError(error) && error.code === 'not_found' && /^\/contacts\/\d+/.test(error.path ?? ''),
  };
}

/** The CRM's longest enquiry subject. */
const SUBJECT_MAX = 255;

/**
 * The holding-area enquiry for a new subscriber: who, what they follow, and their consent, never
 * more. The subject reads at a glance in the holding-area list ("New alert subscriber: Mary Jane
 * Citizen, homes for sale in Kew, Hawthorn, 3+ bed"); the body says what to do with it.
 */
function noteOf(lead: SavedSearchLead, source: string) {
  const name = splitName(lead.follower.fullName);
  const what = describeSearch(lead.search);
  const subject = `New alert subscriber: ${lead.follower.fullName}, ${what}`;
  const contact = [lead.follower.email, ...(lead.follower.mobile === undefined ? [] : [compactPhone(lead.follower.mobile)])].join(', ');
  return {
    enquiryDate: toCrmDateTime(new Date(lead.acceptedAt)),
    source,
    subject: subject.length <= SUBJECT_MAX ? subject : `${subject.slice(0, SUBJECT_MAX - 1)}…`,
    body:
      `${lead.follower.fullName} (${contact}) subscribed on the website to e-mail alerts for ${what}, and agreed to be contacted about matching homes. ` +
      'Their contact record holds the search as a requirement: new listings that match it list them among the matching contacts.',
    originalId: lead.originalId,
    fullName: lead.follower.fullName,
    firstName: name.firstName,
    ...(name.lastName === undefined ? {} : { lastName: name.lastName }),
    email: lead.follower.email,
    ...(lead.follower.mobile === undefined ? {} : { mobile: compactPhone(lead.follower.mobile) }),
    metaData: [{ key: 'consent', value: 'given' }, { key: 'channel', value: 'estate-embed saved search' }, ...spamSignalMetaData(lead.spamSignal)],
  };
}

/** "homes for sale in Kew or Hawthorn, House, 3+ bed, up to $1,500,000": the search in an agent's words. */
export function describeSearch(search: SavedSearchFilters): string {
  const kind = search.type === 'lease' ? 'homes for lease' : search.type === 'sale' ? 'homes for sale' : 'homes for sale or lease';
  const suburbs = search.suburbs ?? (search.suburb ? [search.suburb] : []);
  // "in Kew, Hawthorn or Richmond": any of them, as the requirement matches.
  const place = suburbs.length > 1 ? ` in ${suburbs.slice(0, -1).join(', ')} or ${suburbs.at(-1)}` : suburbs.length === 1 ? ` in ${suburbs[0]}` : '';
  const parts: string[] = [`${kind}${place}`];
  if (search.propertyType) parts.push(search.propertyType);
  if (search.minBeds !== undefined) parts.push(`${search.minBeds}+ bed`);
  if (search.minBaths !== undefined) parts.push(`${search.minBaths}+ bath`);
  if (search.minCars !== undefined) parts.push(`${search.minCars}+ car`);
  const money = (value: number) => `$${value.toLocaleString('en-AU')}`;
  if (search.minPrice !== undefined && search.maxPrice !== undefined) parts.push(`${money(search.minPrice)} to ${money(search.maxPrice)}`);
  else if (search.minPrice !== undefined) parts.push(`from ${money(search.minPrice)}`);
  else if (search.maxPrice !== undefined) parts.push(`up to ${money(search.maxPrice)}`);
  return parts.join(', ');
}

export type { Follower };
