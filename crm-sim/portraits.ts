/**
 * Staff portraits for the simulated file host: flat illustrated head-and-shoulders drawings (SVG,
 * turned into JPEGs by photos.ts), one per look. A look is a combination of skin, hair, face and
 * clothes picked by hand so the team pages show varied people (ages, skin tones, hair, dress,
 * backgrounds); no look is drawn from, or meant to resemble, a real person.
 */

export const PORTRAIT_SIZE = { width: 600, height: 800 } as const;

type HairStyle =
  'crop' | 'side-part' | 'fade' | 'receding' | 'curly-short' | 'long' | 'wavy' | 'bob' | 'fringe-bob' | 'pixie' | 'bun' | 'ponytail' | 'afro' | 'hijab';
type Outfit = 'suit-tie' | 'blazer-shirt' | 'blazer-blouse' | 'blouse' | 'knit' | 'shirt';
type Backdrop = 'studio' | 'office' | 'leaves' | 'brick';

export interface PortraitLook {
  skin: string;
  hair: { style: HairStyle; colour: string };
  /** Eye colour (iris). */
  eyes: string;
  beard?: 'stubble' | 'short' | 'moustache';
  /** Glasses, by the colour of their frame. */
  glasses?: string;
  earrings?: boolean;
  /** Smile lines and a softer jaw for an older face. */
  mature?: boolean;
  outfit: { kind: Outfit; colour: string; inner: string; accent?: string };
  backdrop: { kind: Backdrop; colours: [string, string] };
}

/** Every look the seed may give a staff member, by id (the photo's scene is `agent-<id>`). */
export const PORTRAITS = {
  'silver-bob': {
    skin: '#f2cdb0',
    hair: { style: 'bob', colour: '#c9c6c2' },
    eyes: '#5a7a96',
    glasses: '#6a4a3a',
    earrings: true,
    mature: true,
    outfit: { kind: 'blazer-blouse', colour: '#22344f', inner: '#f3efe8' },
    backdrop: { kind: 'office', colours: ['#cfd8df', '#eef2f4'] },
  },
  'long-black': {
    skin: '#eac6a2',
    hair: { style: 'long', colour: '#17120f' },
    eyes: '#3b2717',
    earrings: true,
    outfit: { kind: 'blazer-blouse', colour: '#3a3d44', inner: '#ffffff' },
    backdrop: { kind: 'studio', colours: ['#c9d3dc', '#f4f6f8'] },
  },
  'auburn-crop': {
    skin: '#f5d3bb',
    hair: { style: 'crop', colour: '#9a4a24' },
    eyes: '#4f7a5a',
    beard: 'stubble',
    outfit: { kind: 'blazer-shirt', colour: '#5b6470', inner: '#cfe0f1' },
    backdrop: { kind: 'leaves', colours: ['#9fbf8f', '#e4eddc'] },
  },
  'dark-side-part-beard': {
    skin: '#d9a77c',
    hair: { style: 'side-part', colour: '#2b1d14' },
    eyes: '#3a2414',
    beard: 'short',
    outfit: { kind: 'suit-tie', colour: '#1d2c44', inner: '#ffffff', accent: '#7a2336' },
    backdrop: { kind: 'office', colours: ['#d8d2c8', '#f3efe8'] },
  },
  'black-bob-fringe': {
    skin: '#f0d0b0',
    hair: { style: 'fringe-bob', colour: '#1a1512' },
    eyes: '#2e1e12',
    glasses: '#2a2622',
    outfit: { kind: 'knit', colour: '#2f6f73', inner: '#2f6f73' },
    backdrop: { kind: 'studio', colours: ['#e5d5c3', '#f8f2ea'] },
  },
  'blonde-wavy': {
    skin: '#f6d6c0',
    hair: { style: 'wavy', colour: '#d8b36a' },
    eyes: '#5b86a8',
    earrings: true,
    outfit: { kind: 'blouse', colour: '#d9735b', inner: '#d9735b' },
    backdrop: { kind: 'leaves', colours: ['#a9c79a', '#eef3e6'] },
  },
  'curly-glasses': {
    skin: '#eec09a',
    hair: { style: 'curly-short', colour: '#7b5433' },
    eyes: '#6b4a2a',
    glasses: '#2a2622',
    outfit: { kind: 'knit', colour: '#2c3e5c', inner: '#e9eef4' },
    backdrop: { kind: 'brick', colours: ['#b7735a', '#e8cbbd'] },
  },
  'teal-hijab': {
    skin: '#b47a55',
    hair: { style: 'hijab', colour: '#1f5f66' },
    eyes: '#2e1a0e',
    outfit: { kind: 'blazer-blouse', colour: '#26282c', inner: '#1f5f66' },
    backdrop: { kind: 'office', colours: ['#d7dde3', '#f5f7f9'] },
  },
  'brown-crop': {
    skin: '#f0c8a8',
    hair: { style: 'crop', colour: '#4a3322' },
    eyes: '#4a6a80',
    outfit: { kind: 'shirt', colour: '#8fb0d3', inner: '#8fb0d3' },
    backdrop: { kind: 'studio', colours: ['#cdd6cf', '#f2f5f2'] },
  },
  'fade-suit': {
    skin: '#6e4431',
    hair: { style: 'fade', colour: '#120d0a' },
    eyes: '#24150c',
    beard: 'short',
    outfit: { kind: 'suit-tie', colour: '#2b3a55', inner: '#f4f4f4', accent: '#c08a2e' },
    backdrop: { kind: 'office', colours: ['#d3cbc0', '#f1ece4'] },
  },
  'dark-ponytail': {
    skin: '#a86e4b',
    hair: { style: 'ponytail', colour: '#1b120d' },
    eyes: '#2b190d',
    earrings: true,
    outfit: { kind: 'blouse', colour: '#d9a33a', inner: '#d9a33a' },
    backdrop: { kind: 'studio', colours: ['#d6cde0', '#f5f1f8'] },
  },
  'red-bun': {
    skin: '#f7dac6',
    hair: { style: 'bun', colour: '#b0532a' },
    eyes: '#4d7a62',
    outfit: { kind: 'knit', colour: '#7b8c5a', inner: '#7b8c5a' },
    backdrop: { kind: 'brick', colours: ['#a8705c', '#e6cbbf'] },
  },
  // The second simulator agency's people.
  'grey-receding': {
    skin: '#efc4a4',
    hair: { style: 'receding', colour: '#8d8a86' },
    eyes: '#4e6478',
    beard: 'short',
    mature: true,
    outfit: { kind: 'blazer-shirt', colour: '#4b3a2f', inner: '#f1ede4' },
    backdrop: { kind: 'leaves', colours: ['#98b38a', '#e1ead8'] },
  },
  'brown-beard': {
    skin: '#f1c9aa',
    hair: { style: 'side-part', colour: '#5a3b23' },
    eyes: '#5c7a4c',
    beard: 'short',
    outfit: { kind: 'blazer-shirt', colour: '#2f3e52', inner: '#ffffff' },
    backdrop: { kind: 'brick', colours: ['#b97d62', '#ecd3c6'] },
  },
  'wavy-black': {
    skin: '#b98461',
    hair: { style: 'wavy', colour: '#15100c' },
    eyes: '#2c1a0d',
    earrings: true,
    outfit: { kind: 'blazer-blouse', colour: '#6b2f45', inner: '#f4e9e6' },
    backdrop: { kind: 'office', colours: ['#d9d4cc', '#f4f1ec'] },
  },
  'side-part-glasses': {
    skin: '#efd0b0',
    hair: { style: 'side-part', colour: '#161210' },
    eyes: '#2e2016',
    glasses: '#2a2622',
    outfit: { kind: 'suit-tie', colour: '#3b3f47', inner: '#dce8f4', accent: '#2d4f7c' },
    backdrop: { kind: 'studio', colours: ['#ccd6de', '#f3f6f8'] },
  },
  'grey-pixie': {
    skin: '#f4d2bc',
    hair: { style: 'pixie', colour: '#b9b6b2' },
    eyes: '#6a8aa4',
    mature: true,
    earrings: true,
    outfit: { kind: 'knit', colour: '#8a3b4a', inner: '#8a3b4a' },
    backdrop: { kind: 'leaves', colours: ['#a3bf95', '#eaf1e3'] },
  },
  'curly-moustache': {
    skin: '#d6a27a',
    hair: { style: 'curly-short', colour: '#1e1611' },
    eyes: '#2f1d10',
    beard: 'moustache',
    outfit: { kind: 'shirt', colour: '#f1f1ec', inner: '#f1f1ec' },
    backdrop: { kind: 'office', colours: ['#cfd6d2', '#eff3f1'] },
  },
  'black-hijab': {
    skin: '#c48d66',
    hair: { style: 'hijab', colour: '#25252b' },
    eyes: '#2a180c',
    outfit: { kind: 'blazer-blouse', colour: '#b8a58a', inner: '#25252b' },
    backdrop: { kind: 'studio', colours: ['#e1d6c6', '#f8f3ec'] },
  },
  'ginger-stubble': {
    skin: '#f7d8c2',
    hair: { style: 'side-part', colour: '#c0662e' },
    eyes: '#5f87a6',
    beard: 'stubble',
    glasses: '#2a2622',
    outfit: { kind: 'knit', colour: '#3b4a3a', inner: '#e8e4da' },
    backdrop: { kind: 'studio', colours: ['#d2dccb', '#f2f6ee'] },
  },
  'black-bun': {
    skin: '#ecc8a6',
    hair: { style: 'bun', colour: '#14100d' },
    eyes: '#2d1c10',
    glasses: '#2a2622',
    outfit: { kind: 'blazer-blouse', colour: '#5d6b7a', inner: '#ffffff' },
    backdrop: { kind: 'office', colours: ['#d4d9de', '#f3f5f7'] },
  },
  'fade-beard': {
    skin: '#9a6245',
    hair: { style: 'fade', colour: '#17110d' },
    eyes: '#26160b',
    beard: 'short',
    outfit: { kind: 'blazer-shirt', colour: '#6a6f5a', inner: '#f3f1ea' },
    backdrop: { kind: 'leaves', colours: ['#93b185', '#dfe9d6'] },
  },
  'afro-earrings': {
    skin: '#5e3a28',
    hair: { style: 'afro', colour: '#15100c' },
    eyes: '#22140b',
    earrings: true,
    outfit: { kind: 'blouse', colour: '#2f7d6d', inner: '#2f7d6d' },
    backdrop: { kind: 'brick', colours: ['#a6705d', '#e9cfc3'] },
  },
  'blonde-ponytail': {
    skin: '#f5d5bf',
    hair: { style: 'ponytail', colour: '#d9bb7a' },
    eyes: '#5679a0',
    outfit: { kind: 'blazer-blouse', colour: '#1f3550', inner: '#f6f1e9' },
    backdrop: { kind: 'studio', colours: ['#cfd8e2', '#f4f7fa'] },
  },
  'auburn-long': {
    skin: '#f6d9c6',
    hair: { style: 'long', colour: '#7d3a1e' },
    eyes: '#5b7c58',
    earrings: true,
    outfit: { kind: 'knit', colour: '#c7b9a4', inner: '#c7b9a4' },
    backdrop: { kind: 'office', colours: ['#d6d0c7', '#f3f0eb'] },
  },
  'crop-glasses': {
    skin: '#dcae86',
    hair: { style: 'crop', colour: '#3a2a1d' },
    eyes: '#3b2616',
    glasses: '#2a2622',
    outfit: { kind: 'shirt', colour: '#5a7fa8', inner: '#5a7fa8' },
    backdrop: { kind: 'leaves', colours: ['#9ebc90', '#e5eedd'] },
  },
  'dark-bob': {
    skin: '#d7a57c',
    hair: { style: 'bob', colour: '#231812' },
    eyes: '#2d1b0f',
    outfit: { kind: 'blazer-blouse', colour: '#7a2f2f', inner: '#f5efe6' },
    backdrop: { kind: 'studio', colours: ['#dbd2c9', '#f7f3ef'] },
  },
  'blonde-crop': {
    skin: '#f3cfb4',
    hair: { style: 'crop', colour: '#c9a25e' },
    eyes: '#4d7797',
    outfit: { kind: 'suit-tie', colour: '#2c3340', inner: '#ffffff', accent: '#4a6b8a' },
    backdrop: { kind: 'brick', colours: ['#b07a66', '#ead2c7'] },
  },
} satisfies Record<string, PortraitLook>;

export type PortraitId = keyof typeof PORTRAITS;

const svg = (body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${PORTRAIT_SIZE.width}" height="${PORTRAIT_SIZE.height}" viewBox="0 0 ${PORTRAIT_SIZE.width} ${PORTRAIT_SIZE.height}">${body}</svg>`;

/** A colour darkened (amount < 0) or lightened (> 0) towards black or white, for shading. */
function shade(hex: string, amount: number): string {
  const value = Number.parseInt(hex.slice(1), 16);
  const channel = (shift: number) => {
    const c = (value >> shift) & 0xff;
    const target = amount < 0 ? 0 : 255;
    return Math.round(c + (target - c) * Math.abs(amount));
  };
  return `#${[16, 8, 0].map((shift) => channel(shift).toString(16).padStart(2, '0')).join('')}`;
}

function backdrop({ kind, colours: [deep, light] }: PortraitLook['backdrop']): string {
  const { width: W, height: H } = PORTRAIT_SIZE;
  const base =
    `<defs><radialGradient id="bg" cx="0.45" cy="0.3" r="0.9"><stop offset="0" stop-color="${light}"/><stop offset="1" stop-color="${deep}"/></radialGradient>` +
    `<filter id="soft" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="22"/></filter></defs>` +
    `<rect width="${W}" height="${H}" fill="url(#bg)"/>`;
  // Out-of-focus shapes behind the sitter, as a portrait lens blurs an office, a garden or a wall.
  if (kind === 'office')
    return (
      base +
      `<g filter="url(#soft)" opacity="0.7"><rect x="-40" y="60" width="200" height="420" fill="#ffffff"/><rect x="470" y="90" width="170" height="380" fill="#ffffff"/>` +
      `<rect x="430" y="470" width="220" height="40" fill="${shade(deep, -0.25)}"/><circle cx="120" cy="560" r="70" fill="${shade(deep, -0.2)}"/></g>`
    );
  if (kind === 'leaves')
    return (
      base +
      `<g filter="url(#soft)" opacity="0.75">${[
        [60, 120, 90],
        [530, 80, 110],
        [560, 380, 90],
        [30, 430, 100],
        [140, 640, 80],
        [480, 640, 90],
      ]
        .map(([x, y, r], index) => `<ellipse cx="${x}" cy="${y}" rx="${r}" ry="${r! * 0.7}" fill="${shade(deep, index % 2 ? -0.3 : -0.12)}"/>`)
        .join('')}</g>`
    );
  if (kind === 'brick')
    return (
      base +
      `<g filter="url(#soft)" opacity="0.55">${Array.from({ length: 9 }, (_, row) =>
        Array.from({ length: 5 }, (_, col) => {
          const x = col * 150 - (row % 2) * 75;
          return `<rect x="${x + 6}" y="${row * 90 + 6}" width="138" height="78" fill="${shade(deep, (row + col) % 3 === 0 ? -0.18 : 0.05)}"/>`;
        }).join(''),
      ).join('')}</g>`
    );
  return base + `<ellipse cx="300" cy="820" rx="420" ry="160" fill="${shade(deep, -0.12)}" opacity="0.5"/>`;
}

/** Hair that falls behind the head and shoulders (drawn before the face). */
function hairBehind(look: PortraitLook): string {
  const { style, colour } = look.hair;
  const dark = shade(colour, -0.25);
  switch (style) {
    case 'long':
      return `<path d="M176 300 C 170 170 230 135 300 135 C 372 135 432 172 426 300 L 440 560 C 444 610 420 640 392 650 L 208 650 C 178 640 156 610 160 560 Z" fill="${colour}"/><path d="M200 420 L 190 630 L 230 640 Z M400 420 L 410 630 L 370 640 Z" fill="${dark}" opacity="0.5"/>`;
    case 'wavy':
      return `<path d="M170 300 C 165 165 230 130 300 130 C 372 130 438 168 430 300 C 450 360 420 400 446 450 C 470 500 430 540 452 590 C 466 630 420 660 390 650 L 210 650 C 178 660 136 630 150 590 C 170 540 128 500 154 450 C 178 400 150 360 170 300 Z" fill="${colour}"/><path d="M182 440 C 164 500 196 540 176 600 M418 440 C 436 500 404 540 424 600" stroke="${dark}" stroke-width="10" fill="none" opacity="0.5"/>`;
    case 'bob':
    case 'fringe-bob':
      return `<path d="M172 310 C 166 170 232 138 300 138 C 370 138 436 172 428 310 L 436 470 C 438 500 416 512 392 508 L 208 508 C 184 512 162 500 164 470 Z" fill="${colour}"/>`;
    case 'ponytail':
      return `<path d="M390 230 C 470 250 480 380 450 470 C 436 520 400 540 392 520 C 420 450 424 330 380 270 Z" fill="${colour}"/>`;
    case 'bun':
      return `<circle cx="300" cy="140" r="58" fill="${colour}"/><path d="M262 128 C 282 110 318 110 338 128" stroke="${dark}" stroke-width="6" fill="none"/>`;
    case 'afro':
      return `<g fill="${colour}">${[
        [300, 200, 150],
        [190, 250, 90],
        [410, 250, 90],
        [175, 340, 70],
        [425, 340, 70],
        [230, 150, 80],
        [370, 150, 80],
      ]
        .map(([x, y, r]) => `<circle cx="${x}" cy="${y}" r="${r}"/>`)
        .join('')}</g>`;
    case 'hijab':
      return `<path d="M160 330 C 150 170 226 120 300 120 C 376 120 452 170 440 330 C 446 430 470 520 520 600 L 80 600 C 130 520 154 430 160 330 Z" fill="${colour}"/>`;
    default:
      return '';
  }
}

/** Hair over the top of the head and around the face (drawn after the face). */
function hairFront(look: PortraitLook): string {
  const { style, colour } = look.hair;
  const light = shade(colour, 0.22);
  const dark = shade(colour, -0.3);
  switch (style) {
    case 'crop':
      return `<path d="M188 318 C 172 210 226 156 300 156 C 376 156 430 210 412 318 C 404 268 392 240 366 228 C 330 242 266 240 232 226 C 208 244 194 276 188 318 Z" fill="${colour}"/><path d="M240 186 C 280 172 330 172 368 192" stroke="${light}" stroke-width="6" fill="none" opacity="0.5"/>`;
    case 'side-part':
      return `<path d="M186 322 C 168 206 226 150 304 150 C 380 150 434 204 414 320 C 408 262 394 234 370 222 C 330 214 300 218 262 206 C 250 226 214 242 200 268 C 192 284 188 302 186 322 Z" fill="${colour}"/><path d="M262 206 C 300 186 352 190 384 214" stroke="${light}" stroke-width="7" fill="none" opacity="0.55"/><path d="M262 206 L 256 170" stroke="${dark}" stroke-width="4" opacity="0.6"/>`;
    case 'fade':
      return `<path d="M192 300 C 184 214 232 170 300 170 C 368 170 416 214 408 300 C 398 250 376 222 300 218 C 224 222 202 250 192 300 Z" fill="${colour}"/><path d="M190 300 C 188 320 190 340 194 356 L 204 356 C 200 330 200 312 204 296 Z M410 300 C 412 320 410 340 406 356 L 396 356 C 400 330 400 312 396 296 Z" fill="${colour}" opacity="0.55"/>`;
    case 'receding':
      return `<path d="M190 350 C 178 290 190 236 226 210 C 232 240 222 280 214 350 Z M410 350 C 422 290 410 236 374 210 C 368 240 378 280 386 350 Z" fill="${colour}"/><path d="M236 200 C 270 184 330 184 364 200 C 340 196 300 198 270 204 Z" fill="${colour}" opacity="0.6"/>`;
    case 'curly-short':
      return `<g fill="${colour}">${[
        [220, 220, 42],
        [262, 188, 44],
        [306, 176, 46],
        [350, 188, 44],
        [390, 222, 40],
        [200, 268, 34],
        [404, 270, 32],
        [240, 236, 30],
        [330, 220, 32],
      ]
        .map(([x, y, r]) => `<circle cx="${x}" cy="${y}" r="${r}"/>`)
        .join('')}</g><g fill="${light}" opacity="0.35">${[
        [256, 180, 12],
        [312, 166, 12],
        [356, 180, 11],
      ]
        .map(([x, y, r]) => `<circle cx="${x}" cy="${y}" r="${r}"/>`)
        .join('')}</g>`;
    case 'long':
    case 'wavy':
      return `<path d="M180 330 C 170 200 230 150 300 150 C 372 150 432 200 420 330 C 410 270 390 232 344 214 C 330 244 290 266 236 270 C 212 282 192 302 180 330 Z" fill="${colour}"/><path d="M300 160 C 320 190 336 206 344 214" stroke="${dark}" stroke-width="4" fill="none" opacity="0.5"/>`;
    case 'bob':
      return `<path d="M176 360 C 166 206 226 150 300 150 C 376 150 436 206 424 360 C 416 290 406 250 386 230 C 340 240 270 236 228 222 C 200 250 184 296 176 360 Z" fill="${colour}"/><path d="M236 190 C 270 176 326 174 370 194" stroke="${light}" stroke-width="6" fill="none" opacity="0.5"/>`;
    case 'fringe-bob':
      // A straight fringe across the forehead, the bob's sides framing the face.
      return `<path d="M176 370 C 164 204 226 148 300 148 C 374 148 436 204 424 370 C 418 316 410 284 398 262 C 360 270 240 270 202 262 C 190 284 182 316 176 370 Z" fill="${colour}"/><path d="M214 256 C 260 262 340 262 386 256" stroke="${light}" stroke-width="5" fill="none" opacity="0.35"/>`;
    case 'pixie':
      return `<path d="M184 320 C 170 200 232 150 304 150 C 380 150 432 204 416 316 C 408 268 398 244 380 232 C 352 262 300 276 246 268 C 222 274 196 290 184 320 Z" fill="${colour}"/><path d="M246 268 C 290 262 340 246 380 232" stroke="${dark}" stroke-width="4" fill="none" opacity="0.45"/>`;
    case 'bun':
    case 'ponytail':
      return `<path d="M186 320 C 172 206 228 158 300 158 C 372 158 428 206 414 320 C 406 266 390 236 360 222 C 330 212 272 212 240 222 C 210 236 194 266 186 320 Z" fill="${colour}"/><path d="M300 160 C 300 184 296 200 290 214" stroke="${dark}" stroke-width="4" fill="none" opacity="0.5"/><path d="M236 196 C 270 180 330 180 366 198" stroke="${light}" stroke-width="5" fill="none" opacity="0.45"/>`;
    case 'afro':
      return `<path d="M194 304 C 188 206 238 168 300 168 C 362 168 412 206 406 304 C 392 264 352 244 300 244 C 248 244 208 264 194 304 Z" fill="${colour}"/>`;
    case 'hijab':
      // The scarf framing the face, with a fold under the chin.
      return `<path d="M300 150 C 226 150 186 200 184 300 C 182 380 206 440 246 476 C 220 440 204 380 206 304 C 208 226 246 188 300 188 C 354 188 392 226 394 304 C 396 380 380 440 354 476 C 394 440 418 380 416 300 C 414 200 374 150 300 150 Z" fill="${shade(colour, 0.12)}"/><path d="M246 472 C 270 496 330 496 354 472 C 380 500 410 540 430 590 C 360 612 240 612 170 590 C 190 540 220 500 246 472 Z" fill="${colour}"/><path d="M246 472 C 270 496 330 496 354 472" stroke="${shade(colour, -0.2)}" stroke-width="4" fill="none"/><path d="M250 520 C 280 560 330 566 372 548" stroke="${shade(colour, -0.2)}" stroke-width="5" fill="none" opacity="0.6"/>`;
    default:
      return '';
  }
}

function outfit(look: PortraitLook): string {
  const { kind, colour, inner, accent } = look.outfit;
  const dark = shade(colour, -0.28);
  const shoulders = `<path d="M40 800 C 48 676 118 616 214 592 L 386 592 C 482 616 552 676 560 800 Z" fill="${colour}"/>`;
  const folds = `<path d="M130 800 C 138 730 150 690 170 660 M470 800 C 462 730 450 690 430 660" stroke="${dark}" stroke-width="6" fill="none" opacity="0.5"/>`;
  switch (kind) {
    case 'suit-tie':
    case 'blazer-shirt':
      return (
        shoulders +
        folds +
        `<path d="M236 590 L 300 720 L 364 590 Z" fill="${inner}"/>` +
        `<path d="M236 590 L 272 640 L 300 610 L 328 640 L 364 590 L 344 584 L 300 600 L 256 584 Z" fill="${shade(inner, -0.08)}"/>` +
        (kind === 'suit-tie' && accent
          ? `<path d="M290 612 L 310 612 L 316 632 L 322 720 L 300 742 L 278 720 L 284 632 Z" fill="${accent}"/><path d="M288 604 L 312 604 L 310 620 L 290 620 Z" fill="${shade(accent, -0.2)}"/>`
          : '') +
        `<path d="M214 592 L 300 760 L 236 800 L 170 800 C 180 720 196 650 214 592 Z M386 592 L 300 760 L 364 800 L 430 800 C 420 720 404 650 386 592 Z" fill="${dark}" opacity="0.55"/>` +
        `<path d="M214 592 L 300 760 M386 592 L 300 760" stroke="${shade(colour, -0.45)}" stroke-width="3" fill="none" opacity="0.6"/>`
      );
    case 'blazer-blouse':
      return (
        shoulders +
        folds +
        `<path d="M232 592 C 250 650 350 650 368 592 L 340 800 L 260 800 Z" fill="${inner}"/>` +
        `<path d="M214 592 L 284 800 L 170 800 C 180 720 196 650 214 592 Z M386 592 L 316 800 L 430 800 C 420 720 404 650 386 592 Z" fill="${dark}" opacity="0.55"/>`
      );
    case 'blouse':
      return (
        shoulders +
        `<path d="M246 594 C 262 640 338 640 354 594" stroke="${shade(colour, -0.2)}" stroke-width="6" fill="none"/>` +
        `<path d="M160 800 C 166 740 176 700 196 670 M440 800 C 434 740 424 700 404 670" stroke="${dark}" stroke-width="5" fill="none" opacity="0.4"/>`
      );
    case 'knit':
      return (
        shoulders +
        folds +
        `<path d="M236 592 C 252 628 348 628 364 592" stroke="${shade(colour, -0.18)}" stroke-width="18" fill="none"/>` +
        (inner === colour ? '' : `<path d="M262 604 L 300 630 L 338 604 L 326 592 L 274 592 Z" fill="${inner}"/>`)
      );
    case 'shirt':
      return (
        shoulders +
        `<path d="M244 588 L 272 650 L 300 612 L 328 650 L 356 588 L 340 578 L 300 606 L 260 578 Z" fill="${shade(colour, 0.18)}"/>` +
        `<path d="M300 612 L 300 800" stroke="${dark}" stroke-width="3" opacity="0.5"/>` +
        [660, 720, 780].map((y) => `<circle cx="308" cy="${y}" r="4" fill="${dark}" opacity="0.6"/>`).join('') +
        folds
      );
  }
}

function face(look: PortraitLook): string {
  const skin = look.skin;
  const shadow = shade(skin, -0.16);
  const deep = shade(skin, -0.35);
  const lips = shade(skin, -0.28);
  const brows = shade(look.hair.style === 'hijab' ? '#2a1d14' : look.hair.colour, look.mature ? -0.1 : -0.2);
  const eye = (cx: number) =>
    `<ellipse cx="${cx}" cy="336" rx="17" ry="10" fill="#fbfaf7"/>` +
    `<circle cx="${cx}" cy="337" r="8" fill="${look.eyes}"/><circle cx="${cx}" cy="337" r="4" fill="#120d0a"/><circle cx="${cx + 3}" cy="334" r="2.2" fill="#ffffff"/>` +
    `<path d="M${cx - 19} 334 C ${cx - 10} 322 ${cx + 10} 322 ${cx + 19} 334" stroke="${shade(skin, -0.6)}" stroke-width="3.5" fill="none" stroke-linecap="round"/>`;
  const jaw = look.mature
    ? 'M192 300 C 190 196 238 176 300 176 C 362 176 410 196 408 300 C 408 396 372 472 300 482 C 228 472 192 396 192 300 Z'
    : 'M194 298 C 192 194 240 176 300 176 C 360 176 408 194 406 298 C 406 392 366 466 300 476 C 234 466 194 392 194 298 Z';
  return (
    // Neck, with the shadow the jaw casts.
    `<path d="M252 430 L 252 600 C 280 618 320 618 348 600 L 348 430 Z" fill="${skin}"/>` +
    `<path d="M252 470 C 280 520 320 520 348 470 L 348 520 C 320 548 280 548 252 520 Z" fill="${shadow}" opacity="0.7"/>` +
    // Ears, face, and a soft shadow down one side.
    `<ellipse cx="194" cy="344" rx="20" ry="34" fill="${shadow}"/><ellipse cx="406" cy="344" rx="20" ry="34" fill="${shadow}"/>` +
    `<path d="${jaw}" fill="${skin}"/>` +
    `<path d="M360 190 C 400 214 410 260 406 310 C 402 396 366 466 300 476 C 352 440 380 380 382 306 C 384 250 376 214 360 190 Z" fill="${shadow}" opacity="0.55"/>` +
    (look.earrings
      ? `<circle cx="192" cy="384" r="7" fill="#d8b25a"/><circle cx="408" cy="384" r="7" fill="#d8b25a"/><circle cx="190" cy="382" r="2.5" fill="#fff3c8"/><circle cx="406" cy="382" r="2.5" fill="#fff3c8"/>`
      : '') +
    // Brows, eyes, nose, cheeks, mouth.
    `<path d="M228 308 C 242 296 262 296 278 304" stroke="${brows}" stroke-width="8" fill="none" stroke-linecap="round"/>` +
    `<path d="M322 304 C 338 296 358 296 372 308" stroke="${brows}" stroke-width="8" fill="none" stroke-linecap="round"/>` +
    eye(254) +
    eye(346) +
    `<path d="M302 342 C 298 366 290 384 286 394 C 296 402 306 402 316 396" stroke="${deep}" stroke-width="3.5" fill="none" stroke-linecap="round"/>` +
    `<ellipse cx="236" cy="400" rx="26" ry="14" fill="#e0706a" opacity="0.14"/><ellipse cx="364" cy="400" rx="26" ry="14" fill="#e0706a" opacity="0.14"/>` +
    `<path d="M264 424 C 284 448 316 448 336 424 C 316 432 284 432 264 424 Z" fill="#ffffff"/>` +
    `<path d="M262 422 C 284 454 316 454 338 422 C 332 436 318 446 300 446 C 282 446 268 436 262 422 Z" fill="${lips}"/>` +
    `<path d="M262 422 C 280 428 320 428 338 422" stroke="${shade(lips, -0.25)}" stroke-width="3" fill="none" stroke-linecap="round"/>` +
    (look.mature
      ? `<path d="M250 410 C 246 426 250 440 258 450 M350 410 C 354 426 350 440 342 450" stroke="${shadow}" stroke-width="3" fill="none" opacity="0.8"/><path d="M224 352 C 232 358 244 360 252 358 M376 352 C 368 358 356 360 348 358" stroke="${shadow}" stroke-width="2.5" fill="none"/>`
      : '')
  );
}

function beard(look: PortraitLook): string {
  if (!look.beard) return '';
  const colour = look.hair.style === 'receding' || look.hair.style === 'fade' ? shade(look.hair.colour, 0.05) : look.hair.colour;
  const moustache = `<path d="M258 416 C 276 402 292 404 300 410 C 308 404 324 402 342 416 C 326 414 312 418 300 420 C 288 418 274 414 258 416 Z" fill="${colour}"/>`;
  if (look.beard === 'moustache') return moustache;
  const around =
    'M196 330 C 198 400 220 452 256 470 C 276 484 324 484 344 470 C 380 452 402 400 404 330 C 398 380 380 420 350 440 C 330 452 316 446 300 446 C 284 446 270 452 250 440 C 220 420 202 380 196 330 Z';
  const chin = 'M252 446 C 270 462 330 462 348 446 C 344 478 322 490 300 490 C 278 490 256 478 252 446 Z';
  const opacity = look.beard === 'stubble' ? 0.2 : 0.92;
  return `<g fill="${colour}" opacity="${opacity}"><path d="${around}"/><path d="${chin}"/></g>${moustache.replace('/>', ` opacity="${opacity}"/>`)}`;
}

function glasses(look: PortraitLook): string {
  if (!look.glasses) return '';
  const frame = look.glasses;
  return (
    `<g stroke="${frame}" stroke-width="5" fill="#ffffff" fill-opacity="0.12">` +
    `<rect x="218" y="312" width="72" height="50" rx="16"/><rect x="310" y="312" width="72" height="50" rx="16"/></g>` +
    `<path d="M290 332 C 296 326 304 326 310 332 M218 328 L 196 322 M382 328 L 404 322" stroke="${frame}" stroke-width="5" fill="none"/>`
  );
}

/** How far the head sits below where its parts are drawn, so the neck is a natural length above the shoulders. */
const HEAD_DROP = 34;

/** The drawing of one look. */
export function portraitSvg(id: PortraitId): string {
  const look: PortraitLook = PORTRAITS[id];
  // The head is drawn about the origin of the face and set on the shoulders by one shift.
  const head = (part: string) => `<g transform="translate(0 ${HEAD_DROP})">${part}</g>`;
  return svg(backdrop(look.backdrop) + head(hairBehind(look)) + outfit(look) + head(face(look) + beard(look) + hairFront(look) + glasses(look)));
}
