import type { PluralForms } from '../shared/format.ts';
import mapLoaders from '../i18n/sections/map.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/**
 * Every word `<estate-map>` shows or announces. Hosts override any of them with the `strings`
 * property or a JSON `strings` attribute; `{name}` placeholders are filled in, plural forms go
 * through Intl.PluralRules for the element's locale.
 */
export interface MapStrings {
  /** The map's accessible name. */
  mapLabel: string;
  /** What a keyboard or screen-reader user can do on the map (its description). */
  instructions: string;
  zoomIn: string;
  zoomOut: string;
  /** A cluster's name: "12 homes, zoom in". */
  clusterLabel: PluralForms;
  /** After a move: what the map shows now. */
  inView: PluralForms;
  noneInView: string;
  loading: string;
  /** While a freshly started relay loads the listings for the first time. */
  filling: string;
  error: string;
  retry: string;
  searchArea: string;
  /** The switch that makes the list beside the map show what is in view, as the map moves. */
  follow: string;
  /** Announced when the view's area becomes the filter. */
  areaApplied: string;
  clearArea: string;
  areaCleared: string;
  showList: string;
  hideList: string;
  getAlerts: string;
  listHeading: PluralForms;
  /** Under the list when more homes are in view than it shows. */
  listMore: string;
  /** Homes the filters select that have no position. */
  unplaced: PluralForms;
  fullscreen: string;
  exitFullscreen: string;
  /** In full screen beside a list with a filter bar: leaves full screen for that bar. */
  filters: string;
  /** The phone's map/list switch: its group's name and its two buttons. */
  phoneSwitch: string;
  phoneMap: string;
  phoneList: string;
  closeCard: string;
  /** The map card's steps to the pin beside its own, west to east (a swipe does the same). */
  previousCard: string;
  nextCard: string;
  /** Shown when the agency left the price empty, and on a pin whose price text has no amount and is too long for it. */
  priceFallback: string;
  /** A pin's short price: "{amount}m" ($2.15m), "{amount}k" ($650k), "{price} pw" (a weekly rent), "{price}+" (a range, by its lower end, or "offers over"). */
  pinMillions: string;
  pinThousands: string;
  pinPerWeek: string;
  pinFrom: string;
  /** A map card's heart: "Keep {address}" (the shortlist). */
  keep: string;
  bedrooms: PluralForms;
  bathrooms: PluralForms;
  carSpaces: PluralForms;
  viewListing: string;
  /** The cooperative-gesture hints, shown a moment when the page scrolls over the map. */
  hintWheel: string;
  hintWheelMac: string;
  hintTouch: string;
  /** Without map tiles. */
  noTiles: string;
  /** The listing detail's small map. */
  locationLabel: string;
  approximateLocation: string;
  /** Draw an area (widget/map/draw-area.ts). */
  drawArea: string;
  removeArea: string;
  finishArea: string;
  cancelDrawing: string;
  drawingRole: string;
  drawingLabel: string;
  drawingInstructions: string;
  drawingStarted: string;
  /** `{count}`: corners so far, fewer than 3. */
  cornerAdded: string;
  cornerAddedReady: string;
  cornerRemoved: string;
  onFirstCorner: string;
  areaTooSmall: string;
  drawingCancelled: string;
  /** Announced before the count of properties inside a drawn area. */
  areaDrawn: string;
  areaRemoved: string;
}

export const defaultMapStrings: MapStrings = {
  mapLabel: 'Map of properties',
  instructions: 'Arrow keys move the map, plus and minus zoom. Tab moves through the properties on the map, top to bottom.',
  zoomIn: 'Zoom in',
  zoomOut: 'Zoom out',
  clusterLabel: { one: '{count} property, zoom in', other: '{count} properties, zoom in' },
  inView: { one: '{count} property on the map', other: '{count} properties on the map' },
  noneInView: 'No properties on this part of the map. Zoom out or move the map.',
  loading: 'Loading the map…',
  filling: 'The listings are on their way: the agency’s properties are being loaded.',
  error: 'We could not load the properties on the map.',
  retry: 'Try again',
  searchArea: 'Search this area',
  follow: 'Search as I move the map',
  areaApplied: 'Showing properties in this area.',
  clearArea: 'Clear area',
  areaCleared: 'Showing properties everywhere.',
  showList: 'List the properties on the map',
  hideList: 'Hide the list',
  getAlerts: 'Get alerts for this search',
  listHeading: { one: '{count} property on the map', other: '{count} properties on the map' },
  listMore: 'Showing {shown} of {count}. Zoom in to see the rest.',
  unplaced: { one: '{count} more property has no position and is not on the map.', other: '{count} more properties have no position and are not on the map.' },
  fullscreen: 'Full screen map',
  exitFullscreen: 'Close full screen map',
  filters: 'Filters',
  phoneSwitch: 'Show the properties as',
  phoneMap: 'Map',
  phoneList: 'List',
  closeCard: 'Close',
  previousCard: 'Previous property on the map',
  nextCard: 'Next property on the map',
  priceFallback: 'Contact agent',
  pinMillions: '{amount}m',
  pinThousands: '{amount}k',
  pinPerWeek: '{price} pw',
  pinFrom: '{price}+',
  keep: 'Keep {address}',
  bedrooms: { one: '{count} bedroom', other: '{count} bedrooms' },
  bathrooms: { one: '{count} bathroom', other: '{count} bathrooms' },
  carSpaces: { one: '{count} car space', other: '{count} car spaces' },
  viewListing: 'View property',
  hintWheel: 'Use Ctrl + scroll to zoom the map',
  hintWheelMac: 'Use ⌘ + scroll to zoom the map',
  hintTouch: 'Use two fingers to move the map',
  noTiles: 'Map without background',
  locationLabel: 'Map of the property’s location',
  approximateLocation: 'Approximate location, {place}',
  drawArea: 'Draw an area',
  removeArea: 'Remove area',
  finishArea: 'Finish',
  cancelDrawing: 'Cancel',
  drawingRole: 'drawing area',
  drawingLabel: 'Draw an area on the map',
  drawingInstructions:
    'Drag on the map to draw around the streets you want. With the keyboard: arrow keys move the cross-hair (with Shift, further), Enter or Space adds a corner, Enter on the first corner or Finish closes the area, Backspace removes the last corner, Escape cancels.',
  drawingStarted: 'Drawing an area. Drag around the streets you want, or move the cross-hair with the arrow keys and add corners with Enter.',
  cornerAdded: 'Corner {count} added. An area needs at least 3.',
  cornerAddedReady: 'Corner {count} added. Go back to the first corner and press Enter, or press Finish, to close the area.',
  cornerRemoved: 'Last corner removed, {count} left.',
  onFirstCorner: 'On the first corner: Enter closes the area.',
  areaTooSmall: 'An area needs at least 3 corners, not all on one line.',
  drawingCancelled: 'Drawing cancelled.',
  areaDrawn: 'Area drawn.',
  areaRemoved: 'Area removed.',
};

registerBuiltInTranslation<{ map: MapStrings }>(
  { $code: 'en-AU', map: defaultMapStrings },
  {
    $code: 'en-GB',
    map: {
      carSpaces: { one: '{count} parking space', other: '{count} parking spaces' },
    },
  },
);

registerSectionLoaders('map', mapLoaders);
