import type { ListingSummary } from '../../contract/relay-api.ts';
import type { DataLayerEntry, ListingFacts } from './analytics.ts';

/** A price text that is one dollar amount, perhaps per week: the only kind analytics is given as a number. */
const ONE_AMOUNT = /^\$\s?([\d,]+)(\.\d\d)?(\s*(per week|pw))?$/i;

/** A listing's analytics facts (analytics.ts): its id and what its page shows anyway. */
export function listingFacts(listing: ListingSummary, currency: string): ListingFacts {
  const amount = ONE_AMOUNT.exec(listing.displayPrice?.trim() ?? '');
  // Absent rather than null: JSON, a tag manager and a reader treat both as "not known".
  return {
    listingId: listing.id,
    listingType: listing.type,
    status: listing.status,
    title: listing.address?.display || listing.heading || undefined,
    propertyType: listing.propertyType ?? undefined,
    suburb: listing.address?.suburb ?? undefined,
    price: amount ? Number(amount[1]!.replace(/,/g, '') + (amount[2] ?? '')) : undefined,
    currency,
  };
}

/**
 * GA4's `view_item` for a listing, after the `ecommerce: null` Google asks for, so items of an
 * earlier push are not merged into it. Value and price only when the price is shown as one amount.
 */
export function viewItem(facts: ListingFacts): DataLayerEntry[] {
  return [
    { ecommerce: null },
    {
      event: 'view_item',
      ecommerce: {
        currency: facts.currency,
        value: facts.price,
        items: [
          {
            item_id: String(facts.listingId),
            item_name: facts.title,
            item_category: facts.listingType,
            item_category2: facts.propertyType,
            item_category3: facts.suburb,
            price: facts.price,
          },
        ],
      },
    },
  ];
}
