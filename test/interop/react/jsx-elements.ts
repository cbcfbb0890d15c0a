// What a React + TypeScript project adds so the estate-* tags type-check in JSX (React's JSX
// namespace knows nothing of custom elements). Copied into the README.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
// A host project imports these from 'estate-embed/widget'; this test imports the sources, which
// the package's declarations are emitted from.
import type { EstateEnquiry, EnquiryErrorDetail, EnquirySuccessDetail } from '../../../widget/enquiry/enquiry.ts';
import type { EstateListing, ListingLoadedDetail } from '../../../widget/listing/listing.ts';
import type { EstateListings, ListingsLoadedDetail, ListingSelectDetail } from '../../../widget/listings/listings.ts';

type Base<E extends HTMLElement> = DetailedHTMLProps<HTMLAttributes<E>, E>;
/** Properties React sets on the element (React 19 sets a prop as a property when the element has it). */
type Props<E, K extends keyof E> = Partial<Pick<E, K>>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'estate-listings': Base<EstateListings> &
        Props<EstateListings, 'relay' | 'type' | 'status' | 'pageSize' | 'listings' | 'detailHref' | 'filters' | 'layout'> & {
          'onestate-listings-loaded'?: (event: CustomEvent<ListingsLoadedDetail>) => void;
          'onestate-listing-select'?: (event: CustomEvent<ListingSelectDetail>) => void;
        };
      'estate-listing': Base<EstateListing> &
        Props<EstateListing, 'relay' | 'listingId' | 'listing' | 'noEnquiry' | 'noJsonLd'> & {
          'onestate-listing-loaded'?: (event: CustomEvent<ListingLoadedDetail>) => void;
        };
      'estate-enquiry': Base<EstateEnquiry> &
        Props<EstateEnquiry, 'relay' | 'listingId' | 'agentId' | 'subject' | 'consentText'> & {
          'onestate-enquiry-success'?: (event: CustomEvent<EnquirySuccessDetail>) => void;
          'onestate-enquiry-error'?: (event: CustomEvent<EnquiryErrorDetail>) => void;
        };
    }
  }
}
