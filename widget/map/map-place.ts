import { fromScreen, viewAt, wrapLongitude, zoomOf, type Size, type View } from './projection.ts';

/**
 * Where the map looks: its centre and zoom, the map's part of the page URL (`view=lat,lng,zoom`,
 * under the element's query prefix). The centre rather than the box, so a page opened at another
 * size (a phone, a resized window) shows the same place at the same zoom.
 */
export interface MapPlace {
  lat: number;
  lng: number;
  zoom: number;
}

/** Five decimals are about a metre: finer than a pixel at the deepest zoom. */
export function formatPlace(place: MapPlace): string {
  return `${place.lat.toFixed(5)},${place.lng.toFixed(5)},${place.zoom.toFixed(2)}`;
}

/** A place from the URL, or null when it is missing or not three numbers in range. */
export function parsePlace(text: string | null): MapPlace | null {
  const parts = text?.split(',').map((part) => (part.trim() === '' ? NaN : Number(part)));
  if (!parts || parts.length !== 3 || !parts.every(Number.isFinite)) return null;
  const [lat, lng, zoom] = parts as [number, number, number];
  if (Math.abs(lat) > 85 || Math.abs(lng) > 180 || zoom < 0 || zoom > 22) return null;
  return { lat, lng, zoom };
}

/** The place a view shows in a box of `size`, rounded as the URL keeps it. */
export function placeOf(view: View, size: Size): MapPlace {
  const [lng, lat] = fromScreen(view, size.width / 2, size.height / 2);
  return parsePlace(formatPlace({ lat, lng: wrapLongitude(lng), zoom: zoomOf(view.k) }))!;
}

/** The view of a place in a box of `size`. */
export function viewOfPlace(place: MapPlace, size: Size): View {
  return viewAt(place.lng, place.lat, place.zoom, size);
}
