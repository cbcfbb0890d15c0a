import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { CITIES, COASTLINES, HIGHWAYS, TOWNS, type LatLng } from './map-geography.ts';
import { SUBURBS } from './seed-data.ts';

/*
 * Draws one demo map tile (Web Mercator, the z/x/y of every slippy map) as a PNG with sharp: sea,
 * the land inside map-geography.ts's coast, highways between the listings' cities, then (zoomed
 * in) a made-up grid of main roads, side streets and parks on the land, and the names of the
 * cities, towns and suburbs with a halo. Everything is laid out on the world's pixels at that zoom,
 * so shapes and names run on from one tile into the next; the same tile is the same bytes. Plain and
 * made up, but it reads as a map at every zoom. The SVG is drawn in the 256-unit tile's terms and
 * rendered at 256 or 512 pixels (`scale`).
 *
 * Three layers, as real providers offer them (CARTO's `light_all`, `light_nolabels` and
 * `light_only_labels`): `all`, the ground with its names; `base`, the ground without names; and
 * `labels`, the names alone (their dots and halos) on a transparent tile, which a map draws above
 * its markers so a pin never hides a suburb's name. `base` under `labels` is `all`.
 */

/** Bump when the drawing changes, so a tile cache revalidating by ETag gets the new tiles. */
export const TILE_DRAWING_VERSION = 2;

/** What a tile holds: the ground and its names, the ground alone, or the names alone (transparent). */
export type TileDrawingLayer = 'all' | 'base' | 'labels';
export const TILE_DRAWING_LAYERS: readonly TileDrawingLayer[] = ['all', 'base', 'labels'];

const TILE = 256;
/** Shapes are clipped a little beyond the tile, so their cut edges and strokes fall outside it. */
const MARGIN = 8;
const COLOURS = {
  water: '#aad3df',
  coast: '#8fbccd',
  land: '#f2efe9',
  park: '#d7e8c6',
  street: '#ffffff',
  roadCasing: '#e4ddd0',
  road: '#fdfcf8',
  highwayCasing: '#d9a35f',
  highway: '#f8d292',
  cityText: '#222222',
  placeText: '#4a4540',
  halo: '#ffffff',
} as const;
/** DejaVu ships with the fontconfig sharp's librsvg uses here; the others are for machines without it. */
const FONT = 'DejaVu Sans, Liberation Sans, Arial, sans-serif';

type Point = [x: number, y: number];

interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Where a place is in the world's pixels at zoom `z` (256 × 2^z across, Web Mercator). */
function worldPixel([latitude, longitude]: LatLng, z: number): Point {
  const size = TILE * 2 ** z;
  const sin = Math.sin((Math.max(-85.0511, Math.min(85.0511, latitude)) * Math.PI) / 180);
  return [((longitude + 180) / 360) * size, (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * size];
}

/** A number in [0, 1) for a block of the world, the same on every tile that shows it. */
function blockNoise(z: number, column: number, row: number): number {
  return createHash('sha1').update(`${z}:${column}:${row}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** Sutherland–Hodgman: the part of a ring inside the square [low, high]² (cut edges run along its sides). */
function clipRing(ring: Point[], low: number, high: number): Point[] {
  const edges: Array<[inside: (p: Point) => boolean, cross: (a: Point, b: Point) => Point]> = [
    [(p) => p[0] >= low, (a, b) => [low, a[1] + ((b[1] - a[1]) * (low - a[0])) / (b[0] - a[0])]],
    [(p) => p[0] <= high, (a, b) => [high, a[1] + ((b[1] - a[1]) * (high - a[0])) / (b[0] - a[0])]],
    [(p) => p[1] >= low, (a, b) => [a[0] + ((b[0] - a[0]) * (low - a[1])) / (b[1] - a[1]), low]],
    [(p) => p[1] <= high, (a, b) => [a[0] + ((b[0] - a[0]) * (high - a[1])) / (b[1] - a[1]), high]],
  ];
  let points = ring;
  for (const [inside, cross] of edges) {
    if (points.length === 0) break;
    const kept: Point[] = [];
    for (let index = 0; index < points.length; index++) {
      const current = points[index]!;
      const previous = points[(index + points.length - 1) % points.length]!;
      if (inside(current)) {
        if (!inside(previous)) kept.push(cross(previous, current));
        kept.push(current);
      } else if (inside(previous)) {
        kept.push(cross(previous, current));
      }
    }
    points = kept;
  }
  return points;
}

/** Liang–Barsky: the part of a segment inside the square [low, high]², or null. */
function clipSegment(a: Point, b: Point, low: number, high: number): [Point, Point] | null {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  let enter = 0;
  let leave = 1;
  for (const [p, q] of [
    [-dx, a[0] - low],
    [dx, high - a[0]],
    [-dy, a[1] - low],
    [dy, high - a[1]],
  ] as const) {
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const t = q / p;
    if (p < 0) enter = Math.max(enter, t);
    else leave = Math.min(leave, t);
    if (enter > leave) return null;
  }
  return [
    [a[0] + enter * dx, a[1] + enter * dy],
    [a[0] + leave * dx, a[1] + leave * dy],
  ];
}

/** Short, stable numbers for the SVG (two decimals of a 256-unit tile is far below a pixel). */
function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function area(points: Point[]): number {
  let sum = 0;
  for (let index = 0; index < points.length; index++) {
    const [x1, y1] = points[index]!;
    const [x2, y2] = points[(index + 1) % points.length]!;
    sum += x1 * y2 - x2 * y1;
  }
  return Math.abs(sum) / 2;
}

/** The land on a tile: none, all of it, or the outline's path (tile units). */
function landOf(z: number, originX: number, originY: number): 'none' | 'all' | string {
  const rings: Point[][] = [];
  for (const coast of COASTLINES) {
    const ring = clipRing(
      coast.map((place) => {
        const [x, y] = worldPixel(place, z);
        return [x - originX, y - originY];
      }),
      -MARGIN,
      TILE + MARGIN,
    );
    if (ring.length >= 3 && area(ring) > 0.01) rings.push(ring);
  }
  if (rings.length === 0) return 'none';
  const whole = (TILE + 2 * MARGIN) ** 2;
  if (rings.length === 1 && area(rings[0]!) > whole - 0.01) return 'all';
  return rings.map((ring) => `M${ring.map(([x, y]) => `${n(x)} ${n(y)}`).join('L')}Z`).join('');
}

/** The highways' path on a tile (tile units), '' where none crosses it. */
function highwaysOf(z: number, originX: number, originY: number): string {
  let path = '';
  for (const highway of HIGHWAYS) {
    const points = highway.map((place): Point => {
      const [x, y] = worldPixel(place, z);
      return [x - originX, y - originY];
    });
    let end: Point | null = null;
    for (let index = 1; index < points.length; index++) {
      const part = clipSegment(points[index - 1]!, points[index]!, -MARGIN, TILE + MARGIN);
      if (!part) {
        end = null;
        continue;
      }
      if (!end || end[0] !== part[0][0] || end[1] !== part[0][1]) path += `M${n(part[0][0])} ${n(part[0][1])}`;
      path += `L${n(part[1][0])} ${n(part[1][1])}`;
      end = part[1];
    }
  }
  return path;
}

interface Label {
  text: string;
  /** The anchor in the world's pixels at the label's zoom: a city's dot, a suburb's centre. */
  x: number;
  y: number;
  /** Where the name's baseline is, in the same pixels. */
  baseline: number;
  size: number;
  bold: boolean;
  dot: boolean;
  box: Bounds;
}

/** Rough width of a name in DejaVu Sans (it is wide), enough to keep names from overlapping. */
function textWidth(text: string, size: number, bold: boolean): number {
  return text.length * size * (bold ? 0.7 : 0.62);
}

function label(text: string, [x, y]: Point, size: number, bold: boolean, dot: boolean): Label {
  const half = textWidth(text, size, bold) / 2 + 2;
  // A dotted place is named above its dot, a city high enough to clear the map's cluster bubble
  // (32 px across) over its listings; a suburb's name sits on its centre.
  const baseline = dot ? y - (bold ? 20 : 5) : y + size * 0.35;
  return {
    text,
    x,
    y,
    baseline,
    size,
    bold,
    dot,
    box: { left: x - half, right: x + half, top: baseline - size - 2, bottom: dot ? y + 4 : baseline + size * 0.3 + 2 },
  };
}

const labelsByZoom = new Map<number, Label[]>();

/**
 * The names drawn at a zoom, in the world's pixels: the cities to zoom 10, the highways' towns from
 * zoom 6 to 10, the seed's country towns from zoom 8, every suburb from zoom 11; the first placed wins where two would overlap (the same
 * choice on every tile).
 */
function labelsAt(z: number): Label[] {
  const known = labelsByZoom.get(z);
  if (known) return known;
  const candidates: Label[] = [];
  if (z >= 3 && z <= 10) for (const city of CITIES) candidates.push(label(city.name, worldPixel(city.at, z), z <= 5 ? 12 : 14, true, true));
  if (z >= 6 && z <= 10) for (const town of TOWNS) candidates.push(label(town.name, worldPixel(town.at, z), 11, false, true));
  for (const suburb of SUBURBS) {
    const at = worldPixel([suburb.latitude, suburb.longitude], z);
    if (z >= 11) candidates.push(label(suburb.name, at, z >= 13 ? 13 : 12, false, false));
    else if (z >= 8 && suburb.kind === 'rural') candidates.push(label(suburb.name, at, 11, false, true));
  }
  const placed: Label[] = [];
  for (const candidate of candidates) {
    const { box } = candidate;
    if (placed.every(({ box: other }) => box.right < other.left || box.left > other.right || box.bottom < other.top || box.top > other.bottom))
      placed.push(candidate);
  }
  labelsByZoom.set(z, placed);
  return placed;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function highwayWidth(z: number): number {
  return z <= 5 ? 1.2 : z === 6 ? 1.6 : z === 7 ? 2.2 : z <= 10 ? 3 : z <= 12 ? 4 : 6;
}

/** Global pixel spacing of the drawn streets: main roads, and (zoomed in) the side streets between them. */
const MAIN_ROAD_EVERY = 256;
const STREET_EVERY = 64;

/** The made-up town: parks, side streets (from zoom 13) and main roads (from zoom 8) on the world's pixels. */
function townOf(z: number, originX: number, originY: number): string[] {
  const shapes: string[] = [];
  const streets = z >= 13;
  const block = streets ? STREET_EVERY : MAIN_ROAD_EVERY;
  // Parks: a few blocks in ten, whole blocks inside the roads.
  for (let column = Math.floor(originX / block); column * block < originX + TILE; column++) {
    for (let row = Math.floor(originY / block); row * block < originY + TILE; row++) {
      if (z >= 10 && blockNoise(z >= 13 ? 13 : z, column, row) < 0.1) {
        shapes.push(
          `<rect x="${column * block - originX + 4}" y="${row * block - originY + 4}" width="${block - 8}" height="${block - 8}" rx="3" fill="${COLOURS.park}"/>`,
        );
      }
    }
  }
  const lines = (every: number, width: number, colour: string) => {
    for (let at = Math.ceil(originX / every) * every; at <= originX + TILE; at += every)
      shapes.push(`<path d="M${at - originX} 0V${TILE}" stroke="${colour}" stroke-width="${width}"/>`);
    for (let at = Math.ceil(originY / every) * every; at <= originY + TILE; at += every)
      shapes.push(`<path d="M0 ${at - originY}H${TILE}" stroke="${colour}" stroke-width="${width}"/>`);
  };
  if (streets) lines(STREET_EVERY, 3, COLOURS.street);
  if (z >= 8) {
    lines(MAIN_ROAD_EVERY, z >= 13 ? 8 : 4, COLOURS.roadCasing);
    lines(MAIN_ROAD_EVERY, z >= 13 ? 6 : 2.5, COLOURS.road);
  }
  return shapes;
}

/** The tile's SVG, in the 256-unit tile's terms, at `scale` × 256 pixels: the ground, its names, or both (`layer`). */
export function tileSvg(z: number, x: number, y: number, scale: 1 | 2, layer: TileDrawingLayer = 'all'): string {
  const originX = x * TILE;
  const originY = y * TILE;
  const parts: string[] = [];
  if (layer !== 'labels') parts.push(...groundOf(z, originX, originY));
  if (layer !== 'base') parts.push(...namesOf(z, originX, originY));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${TILE * scale}" height="${TILE * scale}" viewBox="0 0 ${TILE} ${TILE}">
${parts.join('\n')}
</svg>`;
}

/** The ground of a tile: sea, land, the town's grid and parks, the highways. */
function groundOf(z: number, originX: number, originY: number): string[] {
  const parts: string[] = [];
  const land = landOf(z, originX, originY);
  parts.push(`<rect width="${TILE}" height="${TILE}" fill="${land === 'all' ? COLOURS.land : COLOURS.water}"/>`);
  if (land !== 'all' && land !== 'none') {
    parts.push(`<path d="${land}" fill="${COLOURS.land}" fill-rule="evenodd" stroke="${COLOURS.coast}" stroke-width="0.8" stroke-linejoin="round"/>`);
  }
  if (land !== 'none') {
    const town = townOf(z, originX, originY);
    if (town.length > 0) {
      // The grid and parks stop at the coast.
      if (land === 'all') parts.push(...town);
      else parts.push(`<clipPath id="land"><path d="${land}" fill-rule="evenodd"/></clipPath>`, `<g clip-path="url(#land)">`, ...town, `</g>`);
    }
  }
  if (z >= 5) {
    const highways = highwaysOf(z, originX, originY);
    const width = highwayWidth(z);
    if (highways) {
      parts.push(
        `<g fill="none" stroke-linecap="round" stroke-linejoin="round">`,
        `<path d="${highways}" stroke="${COLOURS.highwayCasing}" stroke-width="${n(width + (z >= 8 ? 1.5 : 0.8))}"/>`,
        `<path d="${highways}" stroke="${COLOURS.highway}" stroke-width="${n(width)}"/>`,
        `</g>`,
      );
    }
  }
  return parts;
}

/** The names on a tile (with a city's or town's dot), each with a white halo: they read over land, sea and markers alike. */
function namesOf(z: number, originX: number, originY: number): string[] {
  const parts: string[] = [];
  for (const name of labelsAt(z)) {
    const { box } = name;
    if (box.right < originX || box.left > originX + TILE || box.bottom < originY || box.top > originY + TILE) continue;
    const cx = name.x - originX;
    const cy = name.y - originY;
    if (name.dot)
      parts.push(`<circle cx="${n(cx)}" cy="${n(cy)}" r="${name.bold ? 3 : 2.5}" fill="${COLOURS.cityText}" stroke="${COLOURS.halo}" stroke-width="1"/>`);
    parts.push(
      `<text x="${n(cx)}" y="${n(name.baseline - originY)}" font-family="${FONT}" font-size="${name.size}"${name.bold ? ' font-weight="bold"' : ''} text-anchor="middle" fill="${name.bold ? COLOURS.cityText : COLOURS.placeText}" stroke="${COLOURS.halo}" stroke-width="3" stroke-linejoin="round" paint-order="stroke">${escapeXml(name.text)}</text>`,
    );
  }
  return parts;
}

/**
 * The tile as a PNG: the same bytes for the same tile and scale. Palette PNGs are under half the
 * size; choosing the palette is most of the time (rendering the SVG is some 6 ms at 512 px), so it
 * is done with a lower effort and no dithering (the colours are flat): a 512 px tile in some 25 ms
 * rather than 55.
 */
export function drawTile(z: number, x: number, y: number, scale: 1 | 2, layer: TileDrawingLayer = 'all'): Promise<Buffer> {
  return sharp(Buffer.from(tileSvg(z, x, y, scale, layer)))
    .png({ palette: true, effort: 3, dither: 0, compressionLevel: 6 })
    .toBuffer();
}
