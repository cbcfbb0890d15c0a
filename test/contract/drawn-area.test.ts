import { describe, expect, it } from 'vitest';
import {
  AREA_LENGTH_MAX,
  AREA_POINTS_MAX,
  areaBox,
  areaTest,
  canonicalArea,
  formatArea,
  inArea,
  parseArea,
  unwrappedCorners,
  type AreaPoint,
} from '../../contract/drawn-area.ts';

/** A square around Kew (VIC), 0.02° a side, corners clockwise from the north-west. */
const KEW: AreaPoint[] = [
  { lat: -37.8, lng: 145.02 },
  { lat: -37.8, lng: 145.04 },
  { lat: -37.82, lng: 145.04 },
  { lat: -37.82, lng: 145.02 },
];

describe('the area filter (a drawn outline)', () => {
  it('reads corners as lat,lng;… and spells them canonically', () => {
    expect(parseArea('-37.8,145.02;-37.8,145.04;-37.82,145.04;-37.82,145.02')).toEqual(KEW);
    // A trailing separator is forgiven; trailing zeros and -0 have one spelling.
    const parsed = parseArea('-37.80000,145.02;-37.8,145.04;-37.82,145.04;-0,145.02;') as AreaPoint[];
    expect(formatArea(parsed)).toBe('-37.8,145.02;-37.8,145.04;-37.82,145.04;0,145.02');
    // Rounded to five decimals (about a metre).
    expect(formatArea([{ lat: -37.123456, lng: 145.000004 }])).toBe('-37.12346,145');
  });

  it('says what is wrong with nonsense', () => {
    const problems: Record<string, RegExp> = {
      '': /at least 3 corners/,
      '-37.8,145': /at least 3 corners/,
      '-37.8,145;-37.9,145.1': /at least 3 corners/,
      'a,b;c,d;e,f': /decimal degrees/,
      '-37.8,145;-37.9;-37.9,145.1': /decimal degrees/,
      '-37.8,145,1;-37.9,145;-37.9,145.1': /decimal degrees/,
      '1e2,145;-37.9,145;-37.9,145.1': /decimal degrees/,
      '-37.123456,145;-37.9,145;-37.9,145.1': /at most 5 decimals/,
      '-97,145;-37.9,145;-37.9,145.1': /latitudes/,
      '-37,185;-37.9,145;-37.9,145.1': /longitudes/,
      '-37.8,145;-37.8,145.1;-37.8,145.2': /enclose an area/,
    };
    for (const [text, problem] of Object.entries(problems)) {
      expect(parseArea(text), text).toMatch(problem);
      // The widget's reading (no words) refuses the same.
      expect(canonicalArea(text), text).toBeUndefined();
    }
    expect(canonicalArea('-37.80000,145.02;-37.8,145.04;-37.82,145.04;-0,145.02;')).toBe('-37.8,145.02;-37.8,145.04;-37.82,145.04;0,145.02');
  });

  it('refuses too many corners and too long a value', () => {
    const corners = (count: number) =>
      Array.from(
        { length: count },
        (_, i) => `${(-37.8 + 0.01 * Math.sin((2 * Math.PI * i) / count)).toFixed(5)},${(145 + 0.01 * Math.cos((2 * Math.PI * i) / count)).toFixed(5)}`,
      ).join(';');
    expect(parseArea(corners(AREA_POINTS_MAX))).toHaveLength(AREA_POINTS_MAX);
    expect(parseArea(corners(AREA_POINTS_MAX + 1))).toMatch(/at most 100 corners/);
    expect(parseArea(`${corners(3)};${' '.repeat(AREA_LENGTH_MAX)}`)).toMatch(/at most \d+ characters/);
  });

  it('knows which points are inside, concave outlines included', () => {
    expect(inArea(KEW, -37.81, 145.03)).toBe(true);
    expect(inArea(KEW, -37.79, 145.03)).toBe(false);
    expect(inArea(KEW, -37.81, 145.05)).toBe(false);
    // A U: two arms joined at the south; the gap between the arms is outside.
    const u: AreaPoint[] = [
      { lat: 0, lng: 0 },
      { lat: 0, lng: 1 },
      { lat: -3, lng: 1 },
      { lat: -3, lng: 2 },
      { lat: 0, lng: 2 },
      { lat: 0, lng: 3 },
      { lat: -4, lng: 3 },
      { lat: -4, lng: 0 },
    ];
    expect(inArea(u, -1, 0.5)).toBe(true);
    expect(inArea(u, -1, 2.5)).toBe(true);
    expect(inArea(u, -1, 1.5)).toBe(false);
    expect(inArea(u, -3.5, 1.5)).toBe(true);
    expect(areaBox(u)).toEqual({ west: 0, south: -4, east: 3, north: 0 });
  });
  it('reads an outline across the antimeridian as one shape (Chatham Islands, Fiji)', () => {
    // Around Waitangi (Chatham Islands, 176.6°W) and drawn on across 180°: corners on both sides.
    const across = parseArea('-43.9,179.5;-43.9,-179.5;-44.1,-179.5;-44.1,179.5') as AreaPoint[];
    expect(across).toHaveLength(4);
    expect(unwrappedCorners(across).map((corner) => corner.lng)).toEqual([179.5, 180.5, 180.5, 179.5]);
    // Its box has west above east, as the bbox filter reads a box across the antimeridian.
    expect(areaBox(across)).toEqual({ west: 179.5, south: -44.1, east: -179.5, north: -43.9 });
    // Points on either side of 180° inside; the rest of the world (the long way round) outside.
    expect(inArea(across, -44, 179.8)).toBe(true);
    expect(inArea(across, -44, -179.8)).toBe(true);
    expect(inArea(across, -44, 180)).toBe(true);
    expect(inArea(across, -44, 0)).toBe(false);
    expect(inArea(across, -44, 179.4)).toBe(false);
    expect(inArea(across, -44, -179.4)).toBe(false);
    expect(inArea(across, -43.8, 179.8)).toBe(false);
    // The same shape started on the other side has the same box and the same inside.
    const otherStart = parseArea('-43.9,-179.5;-44.1,-179.5;-44.1,179.5;-43.9,179.5') as AreaPoint[];
    expect(areaBox(otherStart)).toEqual(areaBox(across));
    const inside = areaTest(otherStart);
    expect([inside(-44, 179.8), inside(-44, -179.8), inside(-44, 0)]).toEqual([true, true, false]);
    // An outline that does not cross it is as it was.
    expect(unwrappedCorners(KEW)).toEqual(KEW);
    expect(areaBox(KEW)).toEqual({ west: 145.02, south: -37.82, east: 145.04, north: -37.8 });
  });
});
