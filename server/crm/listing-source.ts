import { z } from 'zod';
import type { Config } from '../runtime/config.ts';
import {
  ExpiredCursorError,
  type ChangeFeed,
  type ListedRecord,
  type ListingSource,
  type MappedAgent,
  type OpenHome,
  type PushedListing,
  type PushedRecord,
  type SourceList,
  type SourcePage,
} from '../listings/source.ts';
import type { ListingStatus, ListingType } from '../../contract/relay-api.ts';
import { allPages, isCrmError, type CrmClient, type CrmList } from './client.ts';
import { EVENT_STREAM_RETENTION_MS, parseCrmWebhook, readEventStream, verifyCrmWebhook, WEBHOOK_SIGNATURE_HEADER, type PushedProperty } from './events.ts';
import { listSpecs, type ListSpec } from './lists.ts';
import { agentFromCrm, listingFromCrm, listingId } from './public-fields.ts';
import { crmPhotoSchema, crmPropertySchema, type CrmPhoto } from './schemas.ts';

/** Records per CRM page (`pagesize`): 100, the most the CRM gives. */
export const CRM_PAGE_SIZE = 100;

/**
 * A list item as the sync reads it: the shared property schema, except that `photos` stays
 * undefined when the CRM left it out (then the photos are asked for separately), instead of
 * reading as an empty list (which would delete every mirrored photo).
 */
const listItemSchema = crmPropertySchema.extend({ photos: z.array(crmPhotoSchema).nullish() });
type ListItem = z.infer<typeof listItemSchema>;

/** `GET /account`: the token's account; its id is the `accountid` its webhooks carry. */
const accountSchema = z.looseObject({ id: z.number().int() });

/** The lists these settings sync and the CRM's page size: what the budget planner counts requests with. */
export function crmListShape(config: Pick<Config, 'listings'>): { lists: ListSpec[]; pageSize: number } {
  return { lists: listSpecs(config), pageSize: CRM_PAGE_SIZE };
}

export interface CrmListingSourceOptions {
  client: CrmClient;
  config: Pick<Config, 'listings' | 'crm'>;
  /** Records per CRM page. Default CRM_PAGE_SIZE. */
  pageSize?: number;
}

/** The CRM's signed webhooks (signed with the API key, so one endpoint verifies every agency's): how they are checked and read. */
export function crmWebhookFeed(
  config: Pick<Config, 'crm'>,
): Pick<ChangeFeed, 'canVerify' | 'keySetting' | 'signatureHeader' | 'signatureForm' | 'verify' | 'parse'> {
  return {
    canVerify: Boolean(config.crm.apiKey),
    keySetting: 'CRM_API_KEY',
    signatureHeader: WEBHOOK_SIGNATURE_HEADER,
    signatureForm: 't=<ms>,sha512=<hex>',
    verify: (header, rawBody, nowMs, toleranceMs) => verifyCrmWebhook(config.crm.apiKey ?? '', header, rawBody, nowMs, toleranceMs),
    parse: parseCrmWebhook,
  };
}

/**
 * The listing source for this CRM: its `/properties/{class}/{sale|lease}/...` lists (published=true,
 * paged by `pagesize`, sorted by insertion), photos, `/account/users`, `/openHomes`, the signed
 * webhook and `/eventStream`. A listing is one sale or lease life of a CRM property: its public id
 * is twice the life id, plus one for a lease (public-fields.ts listingId).
 */
export function crmListingSource(options: CrmListingSourceOptions): ListingSource {
  const { client } = options;
  const specs = listSpecs(options.config);
  const pageSize = options.pageSize ?? CRM_PAGE_SIZE;
  const specOf = (list: SourceList): ListSpec => {
    const spec = specs.find((candidate) => candidate.source === list.source);
    if (!spec) throw new Error(`No CRM list is synced as "${list.source}".`);
    return spec;
  };

  const fetchPhotos = async (propertyId: number, signal: AbortSignal): Promise<CrmPhoto[]> => {
    const photos: CrmPhoto[] = [];
    for await (const list of allPages((paging) => client.listPhotos(propertyId, paging, { signal }), pageSize)) photos.push(...list.items);
    return photos;
  };
  /** The record as the cache stores it; photos read separately when the record left them out. */
  const load = async (item: ListItem, list: SourceList, signal: AbortSignal) => {
    const photos: CrmPhoto[] = item.photos ?? (await fetchPhotos(item.id, signal));
    return listingFromCrm({ ...item, photos }, { source: list.source, type: list.type, status: list.status });
  };

  async function* pages<T, U>(
    read: (paging: { page: number; pageSize: number }) => Promise<CrmList<T>>,
    map: (item: T) => U | undefined,
    size = pageSize,
  ): AsyncGenerator<SourcePage<U>> {
    for await (const list of allPages(read, size)) {
      const items: U[] = [];
      for (const item of list.items) {
        const mapped = map(item);
        if (mapped !== undefined) items.push(mapped);
      }
      yield { items, total: list.totalItems, totalPages: list.totalPages };
    }
  }

  const changes: ChangeFeed = {
    ...crmWebhookFeed(options.config),
    retentionMs: EVENT_STREAM_RETENTION_MS,
    async read(from, readOptions) {
      if ('cursor' in from) {
        try {
          return await readEventStream(client, { cursor: from.cursor }, readOptions);
        } catch (error) {
          // A cursor the CRM no longer knows (expired after 30 days).
          if (isCrmError(error) && (error.status === 400 || error.status === 404 || error.status === 410)) throw new ExpiredCursorError(error.message);
          throw error;
        }
      }
      return readEventStream(client, { eventsSince: from.since }, readOptions);
    },
  };

  return {
    lists: specs,
    pageSize,
    readList(list, { changedSince, signal, pageSize: size }) {
      const spec = specOf(list);
      const toRecord = (item: ListItem): ListedRecord => ({
        // One listing per sale or lease life: a property for sale and for lease, or sold twice, is several.
        id: listingId(spec.type, item),
        modified: item.modified ?? null,
        load: (loadSignal) => load(item, spec, loadSignal),
      });
      return pages(
        ({ page, pageSize: perPage }) =>
          client.requestList(listItemSchema, {
            path: spec.path,
            query: { ...spec.query, modifiedSince: changedSince, page, pagesize: perPage, sort: 'inserted', sortOrder: 'asc' },
            signal,
          }),
        toRecord,
        size,
      );
    },
    async currentListing(list, propertyId, signal) {
      const spec = specOf(list);
      try {
        const record = await client.request({ path: `/properties/${spec.propertyClass}/${spec.type}/${propertyId}`, schema: listItemSchema, signal });
        const modified = record.modified ? Date.parse(record.modified) : Number.NaN;
        return { id: listingId(spec.type, record), changedSince: (since) => Number.isNaN(modified) || modified >= since.getTime() };
      } catch (error) {
        if (isCrmError(error) && error.code === 'not_found') return 'gone';
        throw error;
      }
    },
    staff: (signal) =>
      pages(
        (paging) => client.listUsers(paging, { signal }),
        (user): MappedAgent => agentFromCrm(user),
      ),
    openHomes: ({ from, to }, signal) =>
      pages(
        (paging) => client.listOpenHomes({ startingAfter: from, startingBefore: to, ...paging }, { signal }),
        (openHome): OpenHome | undefined => {
          const start = isoOrNull(openHome.start);
          const end = isoOrNull(openHome.end);
          const property = openHome.property;
          if (!start || !end || typeof property?.id !== 'number') return undefined;
          // An open home belongs to one life of the property: its lease when it is a rental inspection.
          const type = openHome.isRental === true || (property.saleLifeId == null && property.leaseLifeId != null) ? 'lease' : 'sale';
          return { id: openHome.id, listingId: listingId(type, { ...property, id: property.id }), start, end };
        },
      ),
    pushedListing(pushed: PushedRecord): PushedListing | undefined {
      // Checked against the schema when the webhook was received (events.ts) and stored as checked.
      const record = pushed as unknown as PushedProperty;
      // A record is one life: its sale or its lease (the other life id is null).
      const type: ListingType | undefined = record.saleLifeId != null ? 'sale' : record.leaseLifeId != null ? 'lease' : undefined;
      if (!type) return undefined;
      return {
        id: listingId(type, record),
        type,
        group: (record.class?.internalName ?? '').toLowerCase() || undefined,
        status: statusListOf(type, record.status),
        load: (list, signal) => load(record, specOf(list), signal),
      };
    },
    credentialsId: client.credentialsId,
    async accountId(signal) {
      const account = await client.request({ path: '/account', schema: accountSchema, signal });
      return String(account.id);
    },
    requestsSpent: () => client.budget().used,
    describeError(error) {
      if (!isCrmError(error)) return undefined;
      // The message names the setting to check already (a second "(check …)" printed the hint twice).
      return `${error.code}${error.status ? ` ${error.status}` : ''}: ${error.message}`;
    },
    changes,
  };
}

/** Which status list a record belongs in now, from its CRM status; undefined: in none (withdrawn, or sold without a showcase). */
function statusListOf(type: ListingType, crmStatus: string | null | undefined): ListingStatus | undefined {
  const status = (crmStatus ?? '').toLowerCase();
  if (type === 'sale') {
    if (['listing', 'conditional', 'available', 'underoffer'].includes(status)) return 'available';
    if (['unconditional', 'settled', 'sold'].includes(status)) return 'sold';
    return undefined;
  }
  if (['listing', 'available'].includes(status)) return 'available';
  if (['management', 'leased'].includes(status)) return 'leased';
  return undefined;
}

function isoOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}
