/**
 * SVG drawings the photo pipeline turns into JPEGs: street facades, rooms, gardens, land, offices,
 * paddocks, floorplans and staff portraits. Each scene name maps to one drawing with its own
 * palette, so every pooled image is distinct. Text is avoided except on floorplans (room labels are
 * optional decoration: a machine without fonts still renders the plan). Portraits are drawn in
 * portraits.ts.
 */

import { PORTRAITS, PORTRAIT_SIZE, portraitSvg, type PortraitId } from './portraits.ts';

export const PHOTO_SIZE = { width: 1280, height: 853 } as const;
export const FLOORPLAN_SIZE = { width: 1200, height: 900 } as const;
export const AGENT_SIZE = PORTRAIT_SIZE;

interface Palette {
  sky: [string, string];
  wall: string;
  trim: string;
  roof: string;
  ground: string;
  accent: string;
  floor: string;
}

const PALETTES: Palette[] = [
  { sky: ['#6fa8dc', '#d9ecfa'], wall: '#e8dcc8', trim: '#ffffff', roof: '#5b5b63', ground: '#5f9140', accent: '#b5562f', floor: '#b98b5a' },
  { sky: ['#88b7e0', '#f3e6cf'], wall: '#f4f1ea', trim: '#2f3b45', roof: '#7a3b2e', ground: '#6d9a4c', accent: '#3c6e91', floor: '#d2b48c' },
  { sky: ['#4f86c6', '#cfe3f3'], wall: '#c9b79c', trim: '#f7f3e9', roof: '#3b3f44', ground: '#4f7d33', accent: '#8a9a5b', floor: '#8d6e4f' },
  { sky: ['#a3c4e4', '#fde9d9'], wall: '#dfe6e9', trim: '#1f2d3a', roof: '#9a9ea3', ground: '#78a152', accent: '#d99a4e', floor: '#e3cfb0' },
];

const svg = (width: number, height: number, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;

const skyGradient = (p: Palette) =>
  `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${p.sky[0]}"/><stop offset="1" stop-color="${p.sky[1]}"/></linearGradient>` +
  `<linearGradient id="shade" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#000" stop-opacity="0.18"/><stop offset="0.5" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.12"/></linearGradient></defs>`;

function tree(x: number, y: number, scale: number, colour: string): string {
  return (
    `<rect x="${x - 8 * scale}" y="${y - 10 * scale}" width="${16 * scale}" height="${90 * scale}" fill="#6b4a2f"/>` +
    `<circle cx="${x}" cy="${y - 60 * scale}" r="${70 * scale}" fill="${colour}"/>` +
    `<circle cx="${x - 50 * scale}" cy="${y - 20 * scale}" r="${50 * scale}" fill="${colour}" opacity="0.9"/>` +
    `<circle cx="${x + 55 * scale}" cy="${y - 25 * scale}" r="${48 * scale}" fill="${colour}" opacity="0.85"/>`
  );
}

function windowPane(x: number, y: number, w: number, h: number, trim: string): string {
  return (
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${trim}"/>` +
    `<rect x="${x + 8}" y="${y + 8}" width="${w - 16}" height="${h - 16}" fill="#9fb8c8"/>` +
    `<rect x="${x + w / 2 - 3}" y="${y + 8}" width="6" height="${h - 16}" fill="${trim}"/>` +
    `<path d="M${x + 8} ${y + 8} L${x + w / 2 - 3} ${y + 8} L${x + 8} ${y + h / 2}Z" fill="#fff" opacity="0.35"/>`
  );
}

function facade(p: Palette, variant: number): string {
  const { width: W, height: H } = PHOTO_SIZE;
  const houseX = 250 + variant * 40;
  const roofPeak = variant % 2 === 0 ? 190 : 250;
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
      `<rect y="600" width="${W}" height="${H - 600}" fill="${p.ground}"/>` +
      `<rect y="640" width="${W}" height="40" fill="#c8c2b8"/>` +
      tree(130, 560, 1.3, '#3f6f2a') +
      tree(1130, 540, 1.1, '#4d7f34') +
      `<rect x="${houseX}" y="330" width="780" height="290" fill="${p.wall}"/>` +
      `<polygon points="${houseX - 40},340 ${houseX + 390},${roofPeak} ${houseX + 820},340" fill="${p.roof}"/>` +
      windowPane(houseX + 70, 400, 170, 150, p.trim) +
      windowPane(houseX + 540, 400, 170, 150, p.trim) +
      `<rect x="${houseX + 330}" y="420" width="120" height="200" fill="${p.accent}"/>` +
      `<circle cx="${houseX + 430}" cy="525" r="7" fill="#e5c07b"/>` +
      `<rect x="${houseX + 300}" y="610" width="180" height="30" fill="#a39e94"/>` +
      `<rect x="0" y="585" width="${W}" height="18" fill="${p.trim}" opacity="0.85"/>` +
      Array.from({ length: 32 }, (_, i) => `<rect x="${i * 40 + 8}" y="560" width="14" height="45" fill="${p.trim}" opacity="0.9"/>`).join('') +
      `<rect width="${W}" height="${H}" fill="url(#shade)"/>`,
  );
}

function apartmentBlock(p: Palette, variant: number): string {
  const { width: W, height: H } = PHOTO_SIZE;
  const floors = 7 + variant;
  const rows = Array.from({ length: floors }, (_, row) => {
    const y = 120 + row * 62;
    return (
      Array.from({ length: 6 }, (_, col) => windowPane(380 + col * 88, y, 70, 48, p.trim)).join('') +
      `<rect x="370" y="${y + 50}" width="540" height="8" fill="${p.trim}" opacity="0.9"/>`
    );
  }).join('');
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
      `<rect x="60" y="380" width="260" height="420" fill="#b9b3a8"/><rect x="960" y="300" width="280" height="500" fill="#a9a59d"/>` +
      `<rect x="360" y="100" width="560" height="${floors * 62 + 40}" fill="${p.wall}"/>` +
      rows +
      `<rect y="780" width="${W}" height="${H - 780}" fill="#8f8a83"/>` +
      tree(200, 790, 0.8, '#3f6f2a') +
      tree(1080, 800, 0.9, '#4d7f34') +
      `<rect width="${W}" height="${H}" fill="url(#shade)"/>`,
  );
}

function room(p: Palette, kind: 'living' | 'kitchen' | 'bedroom' | 'bathroom' | 'office'): string {
  const { width: W, height: H } = PHOTO_SIZE;
  const floorColour = kind === 'bathroom' ? '#d8d8d2' : p.floor;
  const boards = Array.from(
    { length: 14 },
    (_, i) => `<line x1="${i * 100 - 200}" y1="853" x2="${i * 60 + 250}" y2="560" stroke="#000" stroke-opacity="0.12" stroke-width="3"/>`,
  ).join('');
  const windowView =
    `<rect x="760" y="150" width="400" height="330" fill="${p.trim}"/>` +
    `<rect x="775" y="165" width="370" height="300" fill="${p.sky[0]}"/>` +
    `<rect x="775" y="380" width="370" height="85" fill="${p.ground}"/>` +
    `<rect x="955" y="165" width="10" height="300" fill="${p.trim}"/>`;
  let furniture = '';
  if (kind === 'living') {
    furniture =
      `<rect x="120" y="470" width="520" height="160" rx="24" fill="${p.accent}"/>` +
      `<rect x="150" y="420" width="460" height="90" rx="20" fill="${p.accent}" opacity="0.85"/>` +
      `<ellipse cx="420" cy="740" rx="330" ry="60" fill="#f2efe8" opacity="0.8"/>` +
      `<rect x="330" y="640" width="200" height="60" fill="#6b4a2f"/>` +
      `<rect x="690" y="300" width="10" height="330" fill="#333"/><circle cx="695" cy="290" r="40" fill="#f3e3b5"/>`;
  } else if (kind === 'kitchen') {
    furniture =
      `<rect x="60" y="200" width="640" height="170" fill="${p.trim}"/>` +
      `<rect x="60" y="420" width="640" height="220" fill="${p.trim}"/><rect x="60" y="410" width="640" height="18" fill="#e9e6df"/>` +
      `<rect x="250" y="560" width="780" height="200" fill="${p.accent}"/><rect x="230" y="545" width="820" height="22" fill="#efece6"/>` +
      Array.from(
        { length: 3 },
        (_, i) =>
          `<line x1="${420 + i * 160}" y1="0" x2="${420 + i * 160}" y2="300" stroke="#222" stroke-width="3"/><circle cx="${420 + i * 160}" cy="315" r="24" fill="#f5d98b"/>`,
      ).join('');
  } else if (kind === 'bedroom') {
    furniture =
      `<rect x="220" y="330" width="540" height="140" rx="12" fill="${p.accent}"/>` +
      `<rect x="180" y="460" width="620" height="200" rx="10" fill="#f5f3ee"/>` +
      `<rect x="180" y="560" width="620" height="110" fill="${p.accent}" opacity="0.55"/>` +
      `<rect x="250" y="420" width="160" height="60" rx="20" fill="#fff"/><rect x="570" y="420" width="160" height="60" rx="20" fill="#fff"/>` +
      `<rect x="60" y="500" width="100" height="120" fill="#6b4a2f"/><rect x="820" y="500" width="100" height="120" fill="#6b4a2f"/>`;
  } else if (kind === 'bathroom') {
    furniture =
      Array.from({ length: 8 }, (_, row) =>
        Array.from(
          { length: 8 },
          (_, col) => `<rect x="${col * 95}" y="${row * 70}" width="93" height="68" fill="#ffffff" opacity="${0.5 + ((row + col) % 2) * 0.2}"/>`,
        ).join(''),
      ).join('') +
      `<rect x="120" y="120" width="360" height="260" fill="#cfdce3" stroke="${p.trim}" stroke-width="10"/>` +
      `<rect x="90" y="430" width="420" height="90" fill="#f8f8f6"/><rect x="90" y="520" width="420" height="140" fill="${p.accent}"/>` +
      `<rect x="560" y="540" width="560" height="170" rx="80" fill="#fbfbfa"/>`;
  } else {
    furniture =
      Array.from(
        { length: 3 },
        (_, i) =>
          `<rect x="${100 + i * 300}" y="520" width="240" height="18" fill="#e9e6df"/><rect x="${120 + i * 300}" y="538" width="12" height="140" fill="#555"/><rect x="${308 + i * 300}" y="538" width="12" height="140" fill="#555"/><rect x="${160 + i * 300}" y="450" width="110" height="70" fill="#2b2f33"/>`,
      ).join('') + `<rect x="60" y="120" width="620" height="260" fill="${p.trim}" opacity="0.8"/>`;
  }
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="${p.wall}"/>` +
      `<polygon points="0,853 0,600 1280,560 1280,853" fill="${floorColour}"/>` +
      (kind === 'bathroom' ? '' : boards) +
      (kind === 'bathroom' ? '' : windowView) +
      furniture +
      `<rect width="${W}" height="${H}" fill="url(#shade)"/>`,
  );
}

function garden(p: Palette, pool: boolean): string {
  const { width: W, height: H } = PHOTO_SIZE;
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
      Array.from({ length: 26 }, (_, i) => `<rect x="${i * 50}" y="300" width="46" height="260" fill="#8a6a4a" opacity="${0.85 + (i % 3) * 0.05}"/>`).join('') +
      `<rect y="540" width="${W}" height="${H - 540}" fill="${p.ground}"/>` +
      (pool
        ? `<rect x="330" y="600" width="620" height="200" rx="8" fill="#e9e6df"/><rect x="350" y="615" width="580" height="170" fill="#3fa7c9"/><path d="M360 650 Q 500 630 640 655 T 920 650" stroke="#bfe9f5" stroke-width="6" fill="none"/>`
        : `<rect x="120" y="600" width="520" height="180" fill="${p.floor}"/>` +
          Array.from({ length: 10 }, (_, i) => `<line x1="120" y1="${610 + i * 18}" x2="640" y2="${610 + i * 18}" stroke="#000" stroke-opacity="0.15"/>`).join(
            '',
          )) +
      tree(1080, 560, 1.2, '#3d6b27') +
      tree(120, 520, 0.9, '#507f36') +
      `<rect width="${W}" height="${H}" fill="url(#shade)"/>`,
  );
}

function streetscape(p: Palette): string {
  const { width: W, height: H } = PHOTO_SIZE;
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
      Array.from(
        { length: 6 },
        (_, i) =>
          `<rect x="${i * 220 + 10}" y="${330 + (i % 2) * 30}" width="200" height="230" fill="${i % 2 ? p.wall : '#d6c7b2'}"/><polygon points="${i * 220},${340 + (i % 2) * 30} ${i * 220 + 110},${250 + (i % 2) * 30} ${i * 220 + 220},${340 + (i % 2) * 30}" fill="${p.roof}"/>`,
      ).join('') +
      `<rect y="560" width="${W}" height="60" fill="#c8c2b8"/><rect y="620" width="${W}" height="${H - 620}" fill="#55585c"/>` +
      Array.from({ length: 8 }, (_, i) => `<rect x="${i * 170 + 40}" y="730" width="90" height="12" fill="#f2f2f2"/>`).join('') +
      tree(300, 600, 1, '#3f6f2a') +
      tree(900, 600, 1.1, '#4d7f34'),
  );
}

function land(p: Palette, variant: number): string {
  const { width: W, height: H } = PHOTO_SIZE;
  const pegs = Array.from(
    { length: 4 },
    (_, i) =>
      `<rect x="${300 + i * 220}" y="${600 + (i % 2) * 40}" width="8" height="50" fill="#f5f5f5"/><rect x="${300 + i * 220}" y="${600 + (i % 2) * 40}" width="8" height="14" fill="#e0452b"/>`,
  ).join('');
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
      `<path d="M0 430 Q 320 ${360 + variant * 20} 640 420 T 1280 400 L1280 853 L0 853Z" fill="#8fa86a"/>` +
      `<path d="M0 520 Q 400 480 800 530 T 1280 500 L1280 853 L0 853Z" fill="${variant === 1 ? '#b79c6a' : p.ground}"/>` +
      pegs +
      `<rect x="980" y="470" width="200" height="110" fill="#ffffff"/><rect x="990" y="480" width="180" height="90" fill="${p.accent}"/><rect x="1070" y="580" width="10" height="80" fill="#555"/>` +
      (variant === 2
        ? Array.from(
            { length: 5 },
            (_, i) =>
              `<rect x="${80 + i * 250}" y="380" width="120" height="60" fill="${p.wall}"/><polygon points="${70 + i * 250},385 ${140 + i * 250},350 ${210 + i * 250},385" fill="${p.roof}"/>`,
          ).join('')
        : ''),
  );
}

function shopfront(p: Palette, warehouse: boolean): string {
  const { width: W, height: H } = PHOTO_SIZE;
  if (warehouse) {
    return svg(
      W,
      H,
      skyGradient(p) +
        `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
        `<rect x="120" y="260" width="1040" height="440" fill="#b8bcc0"/>` +
        Array.from({ length: 26 }, (_, i) => `<line x1="${130 + i * 40}" y1="260" x2="${130 + i * 40}" y2="700" stroke="#8f9397" stroke-width="4"/>`).join('') +
        `<rect x="300" y="450" width="260" height="250" fill="#6b7075"/><rect x="720" y="450" width="260" height="250" fill="#6b7075"/>` +
        `<rect y="700" width="${W}" height="${H - 700}" fill="#7d7a75"/>`,
    );
  }
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
      `<rect x="80" y="140" width="1120" height="560" fill="${p.wall}"/>` +
      `<rect x="80" y="360" width="1120" height="60" fill="${p.accent}"/>` +
      Array.from({ length: 4 }, (_, i) => windowPane(140 + i * 270, 180, 200, 150, p.trim)).join('') +
      `<rect x="140" y="450" width="470" height="250" fill="#a9c4d4"/><rect x="680" y="450" width="460" height="250" fill="#a9c4d4"/>` +
      `<rect y="700" width="${W}" height="${H - 700}" fill="#bdb6aa"/>`,
  );
}

function paddock(p: Palette, variant: number): string {
  const { width: W, height: H } = PHOTO_SIZE;
  return svg(
    W,
    H,
    skyGradient(p) +
      `<rect width="${W}" height="${H}" fill="url(#sky)"/>` +
      `<path d="M0 380 Q 260 ${250 + variant * 30} 560 340 T 1280 300 L1280 853 L0 853Z" fill="#6d8a9c" opacity="0.7"/>` +
      `<path d="M0 470 Q 380 400 760 470 T 1280 450 L1280 853 L0 853Z" fill="${variant === 1 ? '#c2a968' : '#7fa34f'}"/>` +
      `<path d="M0 620 Q 500 560 1280 640 L1280 853 L0 853Z" fill="${p.ground}"/>` +
      Array.from({ length: 16 }, (_, i) => `<rect x="${i * 85}" y="${640 - i * 2}" width="6" height="60" fill="#6b4a2f"/>`).join('') +
      `<line x1="0" y1="655" x2="1280" y2="625" stroke="#555" stroke-width="3"/>` +
      (variant === 2
        ? `<rect x="820" y="380" width="260" height="140" fill="#9aa0a6"/><path d="M810 385 Q 950 320 1090 385Z" fill="#7b8187"/>`
        : tree(980, 470, 1.3, '#3d6b27')) +
      `<ellipse cx="420" cy="720" rx="120" ry="26" fill="#4f86a8"/>`,
  );
}

function floorplan(variant: number): string {
  const { width: W, height: H } = FLOORPLAN_SIZE;
  const layouts: { x: number; y: number; w: number; h: number; label: string }[][] = [
    [
      { x: 100, y: 100, w: 420, h: 300, label: 'LIVING' },
      { x: 520, y: 100, w: 300, h: 300, label: 'KITCHEN' },
      { x: 820, y: 100, w: 280, h: 300, label: 'DINING' },
      { x: 100, y: 400, w: 320, h: 400, label: 'BED 1' },
      { x: 420, y: 400, w: 200, h: 200, label: 'BATH' },
      { x: 420, y: 600, w: 200, h: 200, label: 'LDRY' },
      { x: 620, y: 400, w: 240, h: 400, label: 'BED 2' },
      { x: 860, y: 400, w: 240, h: 400, label: 'BED 3' },
    ],
    [
      { x: 150, y: 120, w: 900, h: 280, label: 'LIVING / DINING' },
      { x: 150, y: 400, w: 300, h: 380, label: 'KITCHEN' },
      { x: 450, y: 400, w: 300, h: 380, label: 'BED 1' },
      { x: 750, y: 400, w: 300, h: 190, label: 'ENS' },
      { x: 750, y: 590, w: 300, h: 190, label: 'BED 2' },
    ],
    [
      { x: 100, y: 100, w: 500, h: 350, label: 'OFFICE' },
      { x: 600, y: 100, w: 500, h: 350, label: 'MEETING' },
      { x: 100, y: 450, w: 700, h: 350, label: 'OPEN PLAN' },
      { x: 800, y: 450, w: 300, h: 175, label: 'WC' },
      { x: 800, y: 625, w: 300, h: 175, label: 'KITCHENETTE' },
    ],
  ];
  const rooms = layouts[variant % layouts.length]!;
  return svg(
    W,
    H,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>` +
      rooms
        .map(
          (r) =>
            `<rect x="${r.x}" y="${r.y}" width="${r.w}" height="${r.h}" fill="#f7f7f5" stroke="#1d1d1d" stroke-width="8"/>` +
            `<text x="${r.x + r.w / 2}" y="${r.y + r.h / 2}" font-family="DejaVu Sans, Arial, sans-serif" font-size="28" text-anchor="middle" fill="#333">${r.label}</text>` +
            `<path d="M${r.x + 30} ${r.y + r.h} A 50 50 0 0 1 ${r.x + 80} ${r.y + r.h - 50}" stroke="#777" stroke-width="3" fill="none"/>`,
        )
        .join('') +
      `<path d="M1120 820 l0 -60 l-15 25 M1120 760 l15 25" stroke="#1d1d1d" stroke-width="4" fill="none"/>`,
  );
}

type SceneFactory = () => string;

const scenes = new Map<string, SceneFactory>();
const palette = (index: number) => PALETTES[index % PALETTES.length]!;

for (let v = 0; v < 4; v++) scenes.set(`facade-${v}`, () => facade(palette(v), v));
for (let v = 0; v < 2; v++) scenes.set(`apartment-${v}`, () => apartmentBlock(palette(v + 1), v));
for (const kind of ['living', 'kitchen', 'bedroom', 'bathroom'] as const) {
  for (let v = 0; v < 2; v++) scenes.set(`${kind}-${v}`, () => room(palette(v * 2 + kind.length), kind));
}
scenes.set('garden-0', () => garden(palette(0), false));
scenes.set('garden-1', () => garden(palette(3), true));
scenes.set('street-0', () => streetscape(palette(1)));
for (let v = 0; v < 3; v++) scenes.set(`land-${v}`, () => land(palette(v), v));
scenes.set('office-0', () => room(palette(2), 'office'));
scenes.set('office-1', () => room(palette(3), 'office'));
scenes.set('shopfront-0', () => shopfront(palette(1), false));
scenes.set('warehouse-0', () => shopfront(palette(0), true));
for (let v = 0; v < 3; v++) scenes.set(`paddock-${v}`, () => paddock(palette(v + 1), v));
for (let v = 0; v < 3; v++) scenes.set(`floorplan-${v}`, () => floorplan(v));
for (const id of Object.keys(PORTRAITS) as PortraitId[]) scenes.set(`agent-${id}`, () => portraitSvg(id));

export function sceneSvg(name: string): string {
  const factory = scenes.get(name);
  if (!factory) throw new Error(`unknown scene ${name}`);
  return factory();
}
