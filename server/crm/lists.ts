import type { Config } from '../runtime/config.ts';
import type { SourceList } from '../listings/source.ts';
import type { PropertyClass } from './client.ts';

/** One CRM list the sync reads, and what its records are on the public side. Its group is its property class. */
export interface ListSpec extends SourceList {
  group: PropertyClass;
  propertyClass: PropertyClass;
  /** Path below the API base. */
  path: string;
  /** Filters beyond paging and modifiedSince. */
  query: Record<string, string | number | boolean>;
}

const DAY_MS = 86_400_000;

/**
 * The lists to sync for these settings, each asked for `published=true`: the `/available` sale
 * and lease lists of each class (current listings, filters pre-applied by the CRM), and for
 * residential, when SOLD_DAYS > 0, the sales and leases of the last SOLD_DAYS days for a "sold"
 * showcase.
 */
export function listSpecs(config: Pick<Config, 'listings'>): ListSpec[] {
  const specs: ListSpec[] = [];
  // What belongs on the website is what the CRM's own filter says (spec, Properties): never an
  // interpretation of a record's publishedToWeb, which real answers leave null on listings shown on the web.
  const published = { published: true };
  for (const propertyClass of config.listings.classes) {
    const types: ListSpec['type'][] = ['sale'];
    // Land and rural listings are sold, not leased: the CRM has no lease list for them.
    if (propertyClass === 'residential' || propertyClass === 'commercial') types.push('lease');
    for (const type of types) {
      specs.push({
        source: `${propertyClass}/${type}/available`,
        group: propertyClass,
        propertyClass,
        type,
        status: 'available',
        path: `/properties/${propertyClass}/${type}/available`,
        query: published,
      });
    }
  }
  if (config.listings.soldDays > 0 && config.listings.classes.includes('residential')) {
    specs.push({
      source: 'residential/sale/sold',
      group: 'residential',
      propertyClass: 'residential',
      type: 'sale',
      status: 'sold',
      // The CRM's default: unconditional and settled sales (conditional ones are still "under offer").
      path: '/properties/residential/sale/sold',
      query: published,
      // A sale's record stops changing soon after settlement, so `modified` dates the sale closely enough.
      windowStart: (now) => now - config.listings.soldDays * DAY_MS,
    });
    specs.push({
      source: 'residential/lease/leased',
      group: 'residential',
      propertyClass: 'residential',
      type: 'lease',
      status: 'leased',
      // Leased = under management (a tenancy began), and once advertised on the web.
      path: '/properties/residential/lease',
      query: { ...published, status: 'management' },
      windowStart: (now) => now - config.listings.soldDays * DAY_MS,
    });
  }
  return specs;
}
