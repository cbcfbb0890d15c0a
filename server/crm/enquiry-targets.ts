import type { AgentTarget, EnquiryTargets, ListingTarget, OpenHomeTimes } from '../enquiries/targets.ts';
import { listingDestination, userDestination } from './lead-destination.ts';
import { listingId, publishedAddress } from './public-fields.ts';
import type { Logger } from '../runtime/log.ts';
import { allPages, type CrmClient, type PropertyClass, type SaleOrLease } from './client.ts';
import type { Clock } from '../runtime/clock.ts';

export interface CrmEnquiryTargetsOptions {
  log: Logger;
  /** How long a loaded list is trusted. Default 10 minutes. */
  ttlMs?: number;
  /** An id not in the lists triggers a reload at most this often. Default 60 s. */
  missReloadMs?: number;
  /** Listing lists to load. Default: residential sale and lease, current listings. */
  lists?: Array<{ class: PropertyClass; saleOrLease: SaleOrLease }>;
  now?: Clock;
}

interface Snapshot<T, K = number> {
  byId: Map<K, T>;
  loadedAt: number;
}

/**
 * Listing and agent lookups answered from whole lists fetched from the CRM and cached, so that an
 * enquiry costs no CRM request at acceptance (a random listingId costs at most one reload a
 * minute, whoever sends it).
 */
export function crmEnquiryTargets(crm: CrmClient, options: CrmEnquiryTargetsOptions): EnquiryTargets {
  const ttlMs = options.ttlMs ?? 10 * 60_000;
  const missReloadMs = options.missReloadMs ?? 60_000;
  const now = options.now ?? Date.now;
  const lists = options.lists ?? [
    { class: 'residential', saleOrLease: 'sale' },
    { class: 'residential', saleOrLease: 'lease' },
  ];
  const log = options.log.child({ component: 'enquiry-targets' });

  const cached = <T, K = number>(name: string, load: () => Promise<Map<K, T>>) => {
    let snapshot: Snapshot<T, K> | undefined;
    let loading: Promise<Snapshot<T, K>> | undefined;
    const reload = () =>
      (loading ??= load()
        .then((byId) => {
          snapshot = { byId, loadedAt: now() };
          log.debug({ list: name, count: byId.size }, 'enquiry targets loaded');
          return snapshot;
        })
        .finally(() => {
          loading = undefined;
        }));
    return async (id: K): Promise<T | undefined> => {
      let current = snapshot && now() - snapshot.loadedAt < ttlMs ? snapshot : await reloadOrStale();
      const hit = current.byId.get(id);
      if (hit !== undefined || now() - current.loadedAt < missReloadMs) return hit;
      current = await reload();
      return current.byId.get(id);
    };
    async function reloadOrStale(): Promise<Snapshot<T, K>> {
      try {
        return await reload();
      } catch (error) {
        // A stale list beats no answer: ids rarely disappear, and delivery checks again.
        if (snapshot) return snapshot;
        throw error;
      }
    }
  };

  const listing = cached<ListingTarget>('listings', async () => {
    const byId = new Map<number, ListingTarget>();
    const byProperty = new Map<number, ListingTarget>();
    for (const list of lists) {
      for await (const page of allPages((paging) => crm.listProperties({ ...list, available: true, published: true, ...paging }), 100)) {
        for (const property of page.items) {
          // Only the life of this list: an enquiry about the sale must not land on the lease.
          const destination = listingDestination(list.saleOrLease, property, publishedAddress(property));
          if (destination === null) continue;
          const target = { destination };
          byId.set(listingId(list.saleOrLease, property), target);
          // Pages made before listings had ids of their own name the property: its first list (sale) wins.
          if (!byProperty.has(property.id)) byProperty.set(property.id, target);
        }
      }
    }
    for (const [propertyId, target] of byProperty) if (!byId.has(propertyId)) byId.set(propertyId, target);
    return byId;
  });

  const agent = cached<AgentTarget>('agents', async () => {
    const byId = new Map<number, AgentTarget>();
    for await (const page of allPages((paging) => crm.listUsers(paging), 100)) {
      // Only staff shown on the website can be enquired about from it.
      for (const user of page.items) if (user.showOnWeb === true) byId.set(user.id, { destination: userDestination(user.id) });
    }
    return byId;
  });

  // Open homes from a day ago on (one that ended is refused by the caller); keyed "listing:openHome".
  const openHomes = cached<OpenHomeTimes, string>('open homes', async () => {
    const byKey = new Map<string, OpenHomeTimes>();
    const since = new Date(now() - 24 * 60 * 60_000);
    for await (const page of allPages((paging) => crm.listOpenHomes({ startingAfter: since, ...paging }), 100)) {
      for (const openHome of page.items) {
        const property = openHome.property;
        const start = Date.parse(openHome.start ?? '');
        const end = Date.parse(openHome.end ?? '');
        if (typeof property?.id !== 'number' || Number.isNaN(start) || Number.isNaN(end)) continue;
        // One life of the property: its lease for a rental inspection, as the listing source reads it.
        const type = openHome.isRental === true || (property.saleLifeId == null && property.leaseLifeId != null) ? 'lease' : 'sale';
        const times = { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
        byKey.set(`${listingId(type, { ...property, id: property.id })}:${openHome.id}`, times);
        byKey.set(`${property.id}:${openHome.id}`, times);
      }
    }
    return byKey;
  });

  return { listing, agent, openHome: (listingId, openHomeId) => openHomes(`${listingId}:${openHomeId}`) };
}
