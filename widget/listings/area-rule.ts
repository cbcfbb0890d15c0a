/**
 * The drawn-area rule of the listing filters (contract/drawn-area.ts): how `area` is checked and
 * spelled, given to query.ts as this module runs. Apart from query.ts so that a list without a
 * drawn area (the home page's, a server-rendered one) does not download it: it comes with the
 * filter bar's code (filter-bar.ts imports it; the map carries its own), and a list given an area
 * without a bar fetches it before it asks the relay (listings.ts).
 */
import { canonicalArea } from '../../contract/drawn-area.ts';
import { useAreaRule } from './query.ts';

useAreaRule(canonicalArea);
