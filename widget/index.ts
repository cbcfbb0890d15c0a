/**
 * The widget bundle's entry: registers every `estate-*` element. Agency sites load it with one
 * `<script type="module" src="https://relay.example/widget.js"></script>`.
 */
import './enquiry/enquiry.ts';
import './listings/listings.ts';
import './listing/listing.ts';
