/**
 * The most homes one `POST /api/v1/enquiries/batch` takes (contract EnquiryBatchRequest). A
 * shortlist has no maximum of its own: the widget sends a longer one in several batches.
 */
export const ENQUIRY_BATCH_MAX_HOMES = 50;
