import { compactPhone } from '../../contract/phone.ts';
import type { SavedSearchFilters } from '../../contract/saved-search.ts';
import type { Logger } from '../runtime/log.ts';
import { describeSearch } from '../saved-searches/describe.ts';
import type { AlertSink, ConsentRecord, Follower, SavedSearchLead } from '../saved-searches/sink.ts';
import { isCrmError, toCrmDateTime, type CallOptions, type CrmClient, type PropertyClass } from './client.ts';
import {
  crmCategorySchema,
  crmContactNoteSchema,
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

  async function requirementFor(search: SavedSearchFilters, callOptions?: CallOptions, active = true): Promise<AddRequirement> {
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
    return { ...toRequirement(search, { ...words, onlyClass }), active };
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
      if (!found[0]) return undefined;
      // The search's answer carries no unsubscribe flags: the contact's own record does.
      const contact = await crm.request({ path: `/contacts/${found[0].id}`, schema: crmContactSchema, signal: callOptions?.signal });
      return { id: contact.id, emailUnsubscribed: contact.unsubscribe?.email === true };
    },

    async addPerson(follower, consent, callOptions) {
      const body: AddContact = {
        ...splitName(follower.fullName),
        emails: [follower.email.trim()],
        ...(follower.mobile === undefined
          ? {}
          : { phoneNumbers: [{ number: compactPhone(follower.mobile), typeCode: 'M' as const, type: 'Mobile' as const }] }),
        // Proven consent (its owner confirmed) to e-mail about homes matching the search, and to
        // nothing more (SMS and letters left to the CRM's default); else unsubscribed from
        // electronic messages until an agent confirms with the person.
        unsubscribe: consent.subscribed ? { email: false } : { email: true, sms: true },
      };
      const created = await crm.request({
        method: 'POST',
        path: '/contacts',
        body,
        schema: crmContactSchema,
        signal: callOptions?.signal,
        beforeSend: callOptions?.beforeSend,
      });
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

    async addSearch(personId, search, state, callOptions) {
      // The vocabulary's reads are not the write: the mark waits for the POST itself.
      const body = await requirementFor(search, { signal: callOptions?.signal }, state.active);
      const created = await crm.request({
        method: 'POST',
        path: `/contacts/${personId}/requirements`,
        body,
        schema: crmRequirementSchema,
        signal: callOptions?.signal,
        beforeSend: callOptions?.beforeSend,
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

    async recordConsent(personId, record, callOptions) {
      const created = await crm.request({
        method: 'POST',
        path: `/contacts/${personId}/notes`,
        body: { body: consentNoteOf(record), readOnly: true },
        schema: crmContactNoteSchema,
        signal: callOptions?.signal,
        beforeSend: callOptions?.beforeSend,
      });
      return created.id;
    },

    async findConsent(personId, originalId, callOptions) {
      const marker = consentMarker(originalId);
      for (let page = 1; page <= 10; page++) {
        const list = await crm.requestList(crmContactNoteSchema, {
          path: `/contacts/${personId}/notes`,
          query: { page, pagesize: 100 },
          signal: callOptions?.signal,
        });
        const match = list.items.find((note) => note.body?.includes(marker));
        if (match) return match.id;
        if (page >= list.totalPages || list.items.length + list.invalidItems === 0) return undefined;
      }
      throw new Error('more than 1,000 notes on the contact to search for the consent record');
    },

    leavesNote: options.holdingEnquiry,

    async leaveNote(lead, callOptions) {
      const body = noteOf(lead, options.source);
      const created = await crm.request({
        method: 'POST',
        path: '/enquiries',
        body,
        schema: crmEnquirySchema,
        signal: callOptions?.signal,
        beforeSend: callOptions?.beforeSend,
      });
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
  const contact = [lead.follower.email, ...(lead.follower.mobile === undefined ? [] : [compactPhone(lead.follower.mobile)])].join(', ');
  const byAgent = lead.confirmation === 'agent';
  const subject = byAgent
    ? `${lead.unsubscribed ? 'Alerts asked for by an unsubscribed contact' : 'Confirm alert subscriber'}: ${lead.follower.fullName}, ${what}`
    : `New alert subscriber: ${lead.follower.fullName}, ${what}`;
  const body = !byAgent
    ? `${lead.follower.fullName} (${contact}) subscribed on the website to e-mail alerts for ${what}, and confirmed it by the link e-mailed to them. ` +
      'Their contact record holds the search as a requirement and the consent record as a note: new listings that match it list them among the matching contacts.'
    : lead.unsubscribed
      ? `Someone asked on the website for e-mail alerts for ${what} for ${lead.follower.fullName} (${contact}), a contact who had unsubscribed from e-mail. ` +
        'Nothing was changed: the relay never subscribes anyone again. If the person wants alerts, confirm it with them before subscribing them and adding the requirement.'
      : `Someone asked on the website for e-mail alerts for ${what} for ${lead.follower.fullName} (${contact}). ` +
        'Confirm with the person that they asked (anyone can type an address into a form) before subscribing them to e-mail: their contact record holds the search as an inactive requirement; make it active once they confirm.';
  return {
    enquiryDate: toCrmDateTime(new Date(lead.acceptedAt)),
    source,
    subject: subject.length <= SUBJECT_MAX ? subject : `${subject.slice(0, SUBJECT_MAX - 1)}…`,
    body,
    originalId: lead.originalId,
    fullName: lead.follower.fullName,
    firstName: name.firstName,
    ...(name.lastName === undefined ? {} : { lastName: name.lastName }),
    email: lead.follower.email,
    ...(lead.follower.mobile === undefined ? {} : { mobile: compactPhone(lead.follower.mobile) }),
    metaData: [
      { key: 'consent', value: byAgent ? 'to be confirmed by an agent' : 'confirmed by e-mail' },
      { key: 'channel', value: 'estate-embed saved search' },
      ...spamSignalMetaData(lead.spamSignal),
    ],
  };
}

/** The mark a consent record carries, by which the relay finds its own after an unknown outcome. */
const consentMarker = (originalId: string) => `(estate-embed ref ${originalId})`;

/**
 * The consent record as a contact note an agent reads: what was agreed to, when, where, and how it
 * was confirmed (UTC times, as the CRM's own).
 */
function consentNoteOf(record: ConsentRecord): string {
  const time = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return [
    `Consent to e-mail alerts for ${describeSearch(record.search)} ${consentMarker(record.originalId)}.`,
    `Asked ${time(record.askedAt)} on the website${record.page ? ` (${record.page})` : ''}${record.words ? `, agreeing to: "${record.words}"` : ''}.`,
    `Confirmed ${time(record.confirmedAt)} by following the link e-mailed to ${record.email}.`,
  ].join(' ');
}

export type { Follower };
