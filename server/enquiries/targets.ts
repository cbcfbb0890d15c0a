import { allPages, type CrmClient, type PropertyClass, type SaleOrLease } from '../crm/client.ts';
import { listingId } from '../listings/public-fields.ts';
import type { Logger } from '../log.ts';
import type { ResolvedTarget } from './outbox.ts';
import type { ParsedEnquiry } from './schema.ts';

/** A listing as an enquiry needs it: the life to attach the enquiry to, and the agency's reference. */
export interface ListingTarget {
  saleLifeId: number | null;
  leaseLifeId: number | null;
  reference: string | null;
}

/** An agent as a contact-me enquiry needs it: the CRM user the enquiry is attached to. */
export interface AgentTarget {
  userId: number;
}

/**
 * Resolves the public ids a page sends (`listingId` from GET /api/v1/listings, `agentId` from
 * GET /api/v1/agents) to CRM ids. Answers `undefined` for an id that does not exist (the request
 * gets a 400), and throws when it cannot tell right now (the enquiry is then accepted and resolved
 * again before delivery, so a CRM outage never loses a lead).
 *
 * The listings module's cache is the intended implementation; `crmEnquiryTargets` below is a
 * stand-alone one that asks the CRM and caches the answers.
 */
export interface EnquiryTargets {
  listing(listingId: number): Promise<ListingTarget | undefined>;
  agent(agentId: number): Promise<AgentTarget | undefined>;
}

export interface CrmEnquiryTargetsOptions {
  log: Logger;
  /** How long a loaded list is trusted. Default 10 minutes. */
  ttlMs?: number;
  /** An id not in the lists triggers a reload at most this often. Default 60 s. */
  missReloadMs?: number;
  /** Listing lists to load. Default: residential sale and lease, current listings. */
  lists?: Array<{ class: PropertyClass; saleOrLease: SaleOrLease }>;
  now?: () => number;
}

interface Snapshot<T> {
  byId: Map<number, T>;
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

  const cached = <T>(name: string, load: () => Promise<Map<number, T>>) => {
    let snapshot: Snapshot<T> | undefined;
    let loading: Promise<Snapshot<T>> | undefined;
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
    return async (id: number): Promise<T | undefined> => {
      let current = snapshot && now() - snapshot.loadedAt < ttlMs ? snapshot : await reloadOrStale();
      const hit = current.byId.get(id);
      if (hit !== undefined || now() - current.loadedAt < missReloadMs) return hit;
      current = await reload();
      return current.byId.get(id);
    };
    async function reloadOrStale(): Promise<Snapshot<T>> {
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
          const saleLifeId = list.saleOrLease === 'sale' ? (property.saleLifeId ?? null) : null;
          const leaseLifeId = list.saleOrLease === 'lease' ? (property.leaseLifeId ?? null) : null;
          if (saleLifeId === null && leaseLifeId === null) continue;
          const target = { saleLifeId, leaseLifeId, reference: property.referenceID ?? null };
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
      for (const user of page.items) if (user.showOnWeb === true) byId.set(user.id, { userId: user.id });
    }
    return byId;
  });

  return { listing, agent };
}

/**
 * The CRM life (property mode) or user (contact-me mode) an enquiry goes to, looked up by its
 * listingId or agentId (the schema guarantees exactly one). Undefined for an id the look-up does
 * not know; throws when the look-up cannot tell right now.
 */
export async function findTarget(
  targets: EnquiryTargets,
  enquiry: Pick<ParsedEnquiry, 'listingId' | 'agentId'>,
): Promise<ResolvedTarget | undefined> {
  if (enquiry.agentId !== undefined) {
    const agent = await targets.agent(enquiry.agentId);
    return agent && { userId: agent.userId };
  }
  const listing = await targets.listing(enquiry.listingId!);
  return listing && { saleLifeId: listing.saleLifeId, leaseLifeId: listing.leaseLifeId, propertyReference: listing.reference };
}

/** Fixed targets: for tests and benchmarks that need no CRM look-ups. */
export function staticEnquiryTargets(listings: Record<number, ListingTarget>, agents: Record<number, AgentTarget>): EnquiryTargets {
  return {
    listing: async (id) => listings[id],
    agent: async (id) => agents[id],
  };
}

/**
 * Asks `primary` first and `fallback` only when `primary` cannot tell (throws): the delivery
 * worker's look-up, so that an enquiry accepted while the listing cache was still cold is delivered
 * as soon as the CRM answers, not when the first full sync ends. An `undefined` from `primary`
 * (a definite "no such id") is final.
 */
export function withFallback(primary: EnquiryTargets, fallback: EnquiryTargets): EnquiryTargets {
  return {
    listing: async (id) => {
      try {
        return await primary.listing(id);
      } catch {
        return fallback.listing(id);
      }
    },
    agent: async (id) => {
      try {
        return await primary.agent(id);
      } catch {
        return fallback.agent(id);
      }
    },
  };
}
