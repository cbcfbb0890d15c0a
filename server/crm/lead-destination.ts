import type { ListingType } from '../../contract/relay-api.ts';
import type { LeadDestination } from '../enquiries/sink.ts';

/*
 * Where an enquiry goes in this CRM, as the relay carries it: an opaque token (sink.ts's
 * LeadDestination) made here, stored as text by the listing cache (listings.lead_destination,
 * agents.lead_destination) and the outbox (enquiry_outbox.destination), and read back here only,
 * by the lead sink. The token is the JSON of a CrmDestination: the form outbox rows have had since
 * migration 070, so enquiries queued before the listing cache carried tokens read as tokens too.
 * Migration 100 (server/store/migrations.ts, and pg-migrations.ts 030 for copied rows) writes the
 * same JSON from the cache's former life id columns: change the form here, convert stored tokens there.
 */

/**
 * A listing's sale or lease life (property mode), or a user (contact-me mode), and the listing's
 * reference and address as published (what a lead's subject names; absent from tokens made
 * before it was kept, which the next sync of the listing rewrites).
 */
export interface CrmDestination {
  saleLifeId?: number | null;
  leaseLifeId?: number | null;
  propertyReference?: string | null;
  address?: string | null;
  userId?: number | null;
}

export function encodeDestination(destination: CrmDestination): LeadDestination {
  return JSON.stringify(destination) as LeadDestination;
}

/** Reads a token; anything unreadable (which only this module writes) reads as going nowhere yet. */
export function decodeDestination(token: LeadDestination | null | undefined): CrmDestination {
  if (!token) return {};
  try {
    const parsed: unknown = JSON.parse(token);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const record = parsed as Record<string, unknown>;
    const id = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : null);
    return {
      saleLifeId: id(record.saleLifeId),
      leaseLifeId: id(record.leaseLifeId),
      propertyReference: typeof record.propertyReference === 'string' ? record.propertyReference : null,
      userId: id(record.userId),
      ...(typeof record.address === 'string' && record.address.trim() ? { address: record.address } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * An enquiry about a listing goes to its life of `type` only (a sale enquiry must not land on the
 * property's lease, or on a previous sale); null when the record names no such life. `address` is
 * the listing's address as published (public-fields.ts publishedAddress: a withheld street is not
 * in it), for the lead's subject.
 */
export function listingDestination(
  type: ListingType,
  record: { saleLifeId?: number | null; leaseLifeId?: number | null; referenceID?: string | null },
  address?: string | null,
): LeadDestination | null {
  const reference = record.referenceID?.trim() ? record.referenceID.trim() : null;
  const place = address?.trim() ? { address: address.trim() } : {};
  if (type === 'sale') return record.saleLifeId == null ? null : encodeDestination({ saleLifeId: record.saleLifeId, propertyReference: reference, ...place });
  return record.leaseLifeId == null ? null : encodeDestination({ leaseLifeId: record.leaseLifeId, propertyReference: reference, ...place });
}

/** A contact-me enquiry goes to the CRM user (the public agent id is the user id). */
export function userDestination(userId: number): LeadDestination {
  return encodeDestination({ userId });
}
