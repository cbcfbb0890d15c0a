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

/**
 * The map's ground: the tiles covering the view (d3-tile finds them), as `<img>`s in one layer of
 * the shadow root, kept by address so a pan moves the images it has and loads only new edges.
 * Positioned through the CSSOM (`style.transform`), which a strict CSP allows, unlike a style
 * attribute. A tile that fails to load is hidden, never shown as a broken image.
 */
export class TileLayer {
  readonly #layer: HTMLElement;
  readonly #images = new Map<string, HTMLImageElement>();
  readonly #tiler = tiler().tileSize(TILE_SIZE).clampX(false);

  constructor(layer: HTMLElement) {
    this.#layer = layer;
  }

  /** Shows the tiles for the view that the relay serves (none without a source). */
  draw(urlOf: TileUrl | null, view: View, size: Size, maxZoom: number, bounds: MapBounds | null): void {
    if (!urlOf || size.width <= 0 || size.height <= 0) {
      this.clear();
      return;
    }
    // Never past the relay's deepest zoom: the last tiles are drawn larger instead.
    this.#tiler.size([size.width, size.height]).zoomDelta(Math.min(0, maxZoom - Math.round(Math.log2(view.k / TILE_SIZE))));
    const tiles = this.#tiler({ k: view.k, x: view.x, y: view.y } as never) as unknown as Array<[number, number, number]> & {
      translate: [number, number];
      scale: number;
    };
    const [tx, ty] = tiles.translate;
    const scale = tiles.scale;
    const wanted = new Set<string>();
    for (const [x, y, z] of tiles) {
      const address = tileAddress(x, y, z);
      if (!servedTile(address, bounds)) continue;
      const key = `${z}/${x}/${y}`;
      wanted.add(key);
      let image = this.#images.get(key);
      if (!image) {
        image = document.createElement('img');
        image.alt = '';
        image.draggable = false;
        image.decoding = 'async';
        image.className = 'tile';
        image.addEventListener('error', () => image!.classList.add('failed'));
        image.src = urlOf(address);
        this.#images.set(key, image);
        this.#layer.append(image);
      }
      // A tile one pixel larger than its step hides the hairline seams of fractional zooms.
      image.style.width = image.style.height = `${scale + 0.5}px`;
      image.style.transform = `translate(${(x + tx) * scale}px, ${(y + ty) * scale}px)`;
    }
    for (const [key, image] of this.#images) {
      if (!wanted.has(key)) {
        image.remove();
        this.#images.delete(key);
      }
    }
  }

  clear(): void {
    for (const image of this.#images.values()) image.remove();
    this.#images.clear();
  }
}
