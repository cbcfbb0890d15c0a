import type { ListingStatus, ListingType } from '../../contract/relay-api.ts';
import type { Config } from '../config.ts';
import type { PropertyClass } from '../crm/client.ts';

/** One CRM list the sync reads, and what its records are on the public side. */
export interface ListSpec {
  /** Also the `source` column of cached listings: removals are decided per list. */
  source: string;
  propertyClass: PropertyClass;
  type: ListingType;
  status: ListingStatus;
  /** Path below the API base. */
  path: string;
  /** Filters beyond paging and modifiedSince, computed at run time (date windows). */
  query(now: number): Record<string, string | number | boolean>;
}

const DAY_MS = 86_400_000;
const crmDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * The lists to sync for these settings: the `/available` sale and lease lists of each class
 * (current listings, filters pre-applied by the CRM), and for residential, when SOLD_DAYS > 0, the
 * sales and leases of the last SOLD_DAYS days for a "sold" showcase.
 */
export function listSpecs(config: Pick<Config, 'LISTING_CLASSES' | 'SOLD_DAYS'>): ListSpec[] {
  const specs: ListSpec[] = [];
  const none = () => ({});
  for (const propertyClass of config.LISTING_CLASSES) {
    specs.push({
      source: `${propertyClass}/sale/available`,
      propertyClass,
      type: 'sale',
      status: 'available',
      path: `/properties/${propertyClass}/sale/available`,
      query: none,
    });
    // Land and rural listings are sold, not leased: the CRM has no lease list for them.
    if (propertyClass === 'residential' || propertyClass === 'commercial') {
      specs.push({
        source: `${propertyClass}/lease/available`,
        propertyClass,
        type: 'lease',
        status: 'available',
        path: `/properties/${propertyClass}/lease/available`,
        query: none,
      });
    }
  }
  if (config.SOLD_DAYS > 0 && config.LISTING_CLASSES.includes('residential')) {
    specs.push({
      source: 'residential/sale/sold',
      propertyClass: 'residential',
      type: 'sale',
      status: 'sold',
      path: '/properties/residential/sale/sold',
      // Sold = contracts gone unconditional (exchanged) in the window; conditional ones are still "under offer".
      query: (now) => ({ unconditionalSince: crmDay(now - config.SOLD_DAYS * DAY_MS), published: true }),
    });
    specs.push({
      source: 'residential/lease/leased',
      propertyClass: 'residential',
      type: 'lease',
      status: 'leased',
      path: '/properties/residential/lease',
      query: (now) => ({ leasedOnly: true, leasedSince: crmDay(now - config.SOLD_DAYS * DAY_MS), published: true }),
    });
  }
  return specs;
}
