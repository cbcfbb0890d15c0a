import { leadTarget, type ParsedEnquiry } from './schema.ts';
import type { LeadDestination } from './sink.ts';

/**
 * A listing as an enquiry needs it: where the lead sink delivers an enquiry about it (made by the
 * source's adapter; null when the listing names nowhere to deliver to, and such an enquiry dies).
 */
export interface ListingTarget {
  destination: LeadDestination | null;
}

/** An agent as a contact-me enquiry needs it: where the lead sink delivers it. */
export interface AgentTarget {
  destination: LeadDestination;
}

/**
 * Resolves the public ids a page sends (`listingId` from GET /api/v1/listings, `agentId` from
 * GET /api/v1/agents) to where the lead sink delivers an enquiry about them. Answers `undefined`
 * for an id that does not exist (the request gets a 400), and throws when it cannot tell right now
 * (the enquiry is then accepted and resolved again before delivery, so a CRM outage never loses a
 * lead).
 *
 * The listings module's cache is the intended implementation; `crmEnquiryTargets`
 * (server/crm/enquiry-targets.ts) is a stand-alone one that asks the CRM and caches the answers.
 */
export interface EnquiryTargets {
  listing(listingId: number): Promise<ListingTarget | undefined>;
  agent(agentId: number): Promise<AgentTarget | undefined>;
  /**
   * One open home of a listing, while it is on the listing's list (a cancelled one is not):
   * undefined when it is not, or the listing is unknown. Throws when it cannot tell right now; a
   * look-up without it cannot tell (open-home registrations are then refused for now, 503).
   */
  openHome?(listingId: number, openHomeId: number): Promise<OpenHomeTimes | undefined>;
}

/** An open home's start and end (ISO 8601), as the listing shows them. */
export interface OpenHomeTimes {
  start: string;
  end: string;
}

/**
 * Where a lead goes, looked up by its listingId or agentId (leadTarget: one of them, or neither for
 * a lead to the office, which needs no look-up and is not asked here). Undefined for an id the
 * look-up does not know; null for a listing it knows with nowhere to deliver to; throws when the
 * look-up cannot tell right now.
 */
export async function findTarget(targets: EnquiryTargets, lead: ParsedEnquiry): Promise<LeadDestination | null | undefined> {
  const { listingId, agentId } = leadTarget(lead);
  if (agentId !== undefined) return (await targets.agent(agentId))?.destination;
  if (listingId !== undefined) return (await targets.listing(listingId))?.destination;
  throw new Error('a lead to the office has no listing or agent to look up');
}

/** Fixed targets: for tests and benchmarks that need no CRM look-ups. `openHomes` by listing id, then open home id. */
export function staticEnquiryTargets(
  listings: Record<number, ListingTarget>,
  agents: Record<number, AgentTarget>,
  openHomes: Record<number, Record<number, OpenHomeTimes>> = {},
): EnquiryTargets {
  return {
    listing: async (id) => listings[id],
    agent: async (id) => agents[id],
    openHome: async (listingId, openHomeId) => openHomes[listingId]?.[openHomeId],
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
    openHome: async (listingId, openHomeId) => {
      try {
        if (!primary.openHome) throw new Error('no open-home look-up');
        return await primary.openHome(listingId, openHomeId);
      } catch (error) {
        if (!fallback.openHome) throw error;
        return fallback.openHome(listingId, openHomeId);
      }
    },
  };
}
