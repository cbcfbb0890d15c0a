/**
 * Registers `<estate-map>`: its own chunk (with d3's gestures and tiles), fetched only by pages
 * that show a map, or by a listing detail once its location scrolls into view.
 * `import 'estate-embed/widget/map'` from a bundler.
 */
import { EstateMap } from './map.ts';

export * from './map.ts';

if (!customElements.get('estate-map')) customElements.define('estate-map', EstateMap);
