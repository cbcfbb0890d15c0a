import type { ParsedEnquiry } from '../enquiries/schema.ts';
import type { AddEnquiry } from './schemas.ts';

type MetaData = NonNullable<AddEnquiry['metaData']>;

/**
 * Where a lead came from, as metaData entries beside it in the CRM: `page` (the page it was sent
 * from, origin and path) and each campaign parameter the visit began with under its own name
 * (`utm_source`, …), the names marketing people search for. None when the lead has neither.
 */
export function leadOriginMetaData(enquiry: Pick<ParsedEnquiry, 'page' | 'campaign'>): MetaData {
  const entries: MetaData = [];
  if (enquiry.page !== undefined) entries.push({ key: 'page', value: enquiry.page });
  for (const [key, value] of Object.entries(enquiry.campaign ?? {})) if (value !== undefined) entries.push({ key, value });
  return entries;
}
