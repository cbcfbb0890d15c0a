import { useEffect, useState } from 'react';
import type { ListingSummary, Page } from '../../../contract/relay-api.ts';
import type { ListingsLoadedDetail } from '../../../widget/listings/listings.ts';
import './jsx-elements.ts';

/**
 * A React 19 page using the elements the three ways a React developer does. React 19 sets a prop
 * as a property when the element has one of that name (`type`, `listingId`, `listings`,
 * `noEnquiry`), else as an attribute (`page-size`, kebab-case), and listens for the custom event
 * named after `on` (`onestate-listings-loaded`). The relay is found from the widget's script tag (no `relay` attribute).
 */
export function App({ relayUrl }: { relayUrl: string }) {
  const [loaded, setLoaded] = useState<ListingsLoadedDetail | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [detailAddress, setDetailAddress] = useState<string | null>(null);
  const [sentId, setSentId] = useState<string | null>(null);
  const [hostListings, setHostListings] = useState<ListingSummary[] | null>(null);

  useEffect(() => {
    // Listings the host fetched itself, handed to the element as a property (no request of its own).
    fetch(`${relayUrl}api/v1/listings?type=lease&pageSize=2`)
      .then((response) => response.json() as Promise<Page<ListingSummary>>)
      .then((page) => setHostListings(page.items));
  }, [relayUrl]);

  return (
    <main>
      <section id="by-attributes">
        <h1>For sale</h1>
        <estate-listings
          page-size="3"
          type="sale"
          className="host-styled"
          onestate-listings-loaded={(event) => setLoaded(event.detail)}
          onestate-listing-select={(event) => {
            // Cancelable: the host shows the detail itself instead of the element's in-place view.
            event.preventDefault();
            setDetailAddress(null);
            setSelected(event.detail.id);
          }}
        />
        <output data-testid="loaded">{loaded ? `${loaded.items.length} of ${loaded.total}` : 'loading'}</output>
      </section>

      {selected !== null && (
        <section id="detail">
          <estate-listing
            key={selected}
            listingId={selected}
            noEnquiry
            onestate-listing-loaded={(event) => setDetailAddress(event.detail.listing.address.display)}
          />
          <output data-testid="detail-loaded">{detailAddress ?? 'loading'}</output>
          <estate-enquiry listingId={selected} onestate-enquiry-success={(event) => setSentId(event.detail.originalId)} />
          <output data-testid="sent">{sentId ?? 'not sent'}</output>
        </section>
      )}

      <section id="by-property">
        <h2>Picked for you</h2>
        {hostListings && <estate-listings listings={hostListings} />}
      </section>
    </main>
  );
}
