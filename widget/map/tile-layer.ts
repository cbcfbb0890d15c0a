import { tile as tiler } from 'd3-tile';
import type { MapBounds } from '../../contract/relay-api.ts';
import { tileInMapArea } from '../../contract/map-area.ts';
import { TILE_SIZE, tileAddress, type Size, type View } from './projection.ts';

/** A tile's URL from its address. */
export type TileUrl = (tile: { x: number; y: number; z: number }) => string;

/**
 * Whether the relay serves this tile (contract/map-area.ts, the relay's own rule less its extra ring
 * of tiles), so the map never asks for one it would refuse.
 */
export function servedTile(tile: { x: number; y: number; z: number }, bounds: MapBounds | null): boolean {
  return tileInMapArea(tile, bounds);
}

/** One tile image; `x` is its column as d3-tile numbers it (not wrapped: a view may show the world twice). */
interface Tile {
  image: HTMLImageElement;
  x: number;
  y: number;
  z: number;
  state: 'loading' | 'loaded' | 'failed';
}

/**
 * The map's ground: the tiles covering the view (d3-tile finds them), as `<img>`s in one layer of
 * the shadow root, kept by address so a pan moves the images it has and loads only new edges.
 * Positioned through the CSSOM (`style.transform`), which a strict CSP allows, unlike a style
 * attribute. A tile that fails to load is hidden, never shown as a broken image.
 *
 * After a zoom the previous zoom's loaded tiles stay, scaled, under the new ones (earlier in the
 * layer) until every new tile over them has loaded or failed, as Leaflet and MapLibre keep them:
 * the ground never blinks to the bare background between two zooms.
 *
 * A map with a labels-only layer (the relay's MAP_LABEL_TILE_URL) has a second TileLayer above
 * its markers, drawn with the same view, so the names move in step with the ground.
 */
export class TileLayer {
  readonly #layer: HTMLElement;
  readonly #tiles = new Map<string, Tile>();
  readonly #tiler = tiler().tileSize(TILE_SIZE).clampX(false);
  /** The zoom of the tiles the view asks for now (the others are only kept until those load). */
  #zoom = -1;

  readonly #imageClass: string;

  /** `imageClass`: the images' class (`tile`; a labels layer's `label-tile`, so the ground's stay apart in selectors). */
  constructor(layer: HTMLElement, imageClass = 'tile') {
    this.#layer = layer;
    this.#imageClass = imageClass;
  }

  /** Shows the tiles for the view that the relay serves (none without a source). */
  draw(urlOf: TileUrl | null, view: View, size: Size, maxZoom: number, bounds: MapBounds | null): void {
    if (!urlOf || size.width <= 0 || size.height <= 0) {
      this.clear();
      return;
    }
    // Never past the relay's deepest zoom: the last tiles are drawn larger instead.
    this.#tiler.size([size.width, size.height]).zoomDelta(Math.min(0, maxZoom - Math.round(Math.log2(view.k / TILE_SIZE))));
    const wanted = this.#tiler({ k: view.k, x: view.x, y: view.y } as never) as unknown as Array<[number, number, number]>;
    this.#zoom = wanted[0]?.[2] ?? this.#zoom;
    const current = new Set<string>();
    for (const [x, y, z] of wanted) {
      const address = tileAddress(x, y, z);
      if (!servedTile(address, bounds)) continue;
      const key = `${z}/${x}/${y}`;
      current.add(key);
      const kept = this.#tiles.get(key);
      if (!kept) this.#add(key, { x, y, z }, urlOf(address));
      // Kept from a zoom away and back: on top of the others again.
      else if (kept.image.classList.contains('retained')) {
        kept.image.classList.remove('retained');
        this.#layer.append(kept.image);
      }
    }
    for (const [key, tile] of this.#tiles) {
      if (current.has(key)) continue;
      if (tile.z === this.#zoom || tile.state !== 'loaded') this.#remove(key);
      else if (!tile.image.classList.contains('retained')) {
        tile.image.classList.add('retained');
        this.#layer.prepend(tile.image);
      }
    }
    this.#pruneRetained(view, size);
    for (const tile of this.#tiles.values()) place(tile, view);
  }

  clear(): void {
    for (const tile of this.#tiles.values()) tile.image.remove();
    this.#tiles.clear();
  }

  #add(key: string, at: { x: number; y: number; z: number }, url: string): void {
    const image = document.createElement('img');
    image.alt = '';
    image.draggable = false;
    image.decoding = 'async';
    image.className = this.#imageClass;
    const tile: Tile = { image, ...at, state: 'loading' };
    const settle = (state: Tile['state']) => {
      tile.state = state;
      // A tile of the view is in (or will never be): the older ones it covered can go.
      if (this.#tiles.get(key) === tile && tile.z === this.#zoom) this.#pruneRetained();
    };
    image.addEventListener('load', () => settle('loaded'));
    image.addEventListener('error', () => {
      image.classList.add('failed');
      settle('failed');
    });
    image.src = url;
    this.#tiles.set(key, tile);
    this.#layer.append(image);
  }

  #remove(key: string): void {
    this.#tiles.get(key)?.image.remove();
    this.#tiles.delete(key);
  }

  /**
   * Drops the other zooms' tiles that no longer hide a hole: those every new tile over them has
   * settled for (loaded or failed), and, given the view, those out of it.
   */
  #pruneRetained(view?: View, size?: Size): void {
    const waiting = [...this.#tiles.values()].filter((tile) => tile.z === this.#zoom && tile.state === 'loading');
    for (const [key, tile] of this.#tiles) {
      if (tile.z === this.#zoom) continue;
      const covers = waiting.some((other) => overlaps(tile, other));
      if (!covers || (view && size && !onScreen(tile, view, size))) this.#remove(key);
    }
  }
}

/** A tile's box on screen: the world's left edge is at view.x - view.k / 2 (d3-tile's terms). */
function screenBox(tile: Tile, view: View): { left: number; top: number; size: number } {
  const size = view.k / 2 ** tile.z;
  return { left: view.x - view.k / 2 + tile.x * size, top: view.y - view.k / 2 + tile.y * size, size };
}

function place(tile: Tile, view: View): void {
  const { left, top, size } = screenBox(tile, view);
  // A tile one pixel larger than its step hides the hairline seams of fractional zooms.
  tile.image.style.width = tile.image.style.height = `${size + 0.5}px`;
  tile.image.style.transform = `translate(${left}px, ${top}px)`;
}

function onScreen(tile: Tile, view: View, size: Size): boolean {
  const box = screenBox(tile, view);
  return box.left < size.width && box.top < size.height && box.left + box.size > 0 && box.top + box.size > 0;
}

/** Whether two tiles (of any zooms) share some ground. */
function overlaps(a: Tile, b: Tile): boolean {
  const spanA = 2 ** -a.z;
  const spanB = 2 ** -b.z;
  return a.x * spanA < (b.x + 1) * spanB && b.x * spanB < (a.x + 1) * spanA && a.y * spanA < (b.y + 1) * spanB && b.y * spanB < (a.y + 1) * spanA;
}
