/**
 * A freehand outline simplified to a polygon of a few corners (Douglas–Peucker): a drag gives a
 * point every few pixels, hundreds of them; the URL and the relay want at most about fifty. No
 * library in the project does this (simplify-js is not a dependency), and it is twenty lines.
 */

export type ScreenPoint = readonly [x: number, y: number];

/** The points a tolerance keeps: each dropped one lies within `tolerance` of the line its kept neighbours draw. */
export function douglasPeucker(points: readonly ScreenPoint[], tolerance: number): ScreenPoint[] {
  if (points.length <= 2) return [...points];
  const keep = new Uint8Array(points.length);
  keep[0] = keep[points.length - 1] = 1;
  // A stack, not recursion: a long drag cannot exhaust the call stack.
  const spans: Array<[number, number]> = [[0, points.length - 1]];
  while (spans.length) {
    const [first, last] = spans.pop()!;
    let farthest = -1;
    let distance = tolerance;
    for (let i = first + 1; i < last; i++) {
      const d = distanceToSegment(points[i]!, points[first]!, points[last]!);
      if (d > distance) [farthest, distance] = [i, d];
    }
    if (farthest < 0) continue;
    keep[farthest] = 1;
    spans.push([first, farthest], [farthest, last]);
  }
  return points.filter((_, i) => keep[i]);
}

/**
 * An outline of at most `maxPoints` corners: the smallest tolerance from `start` pixels, doubled
 * until it is few enough. The outline is closed (its end joins its start), so a last point
 * drawn back onto the first is dropped.
 */
export function simplifyOutline(points: readonly ScreenPoint[], maxPoints: number, start = 2): ScreenPoint[] {
  let tolerance = start;
  let kept = douglasPeucker(points, tolerance);
  while (kept.length > maxPoints) {
    tolerance *= 2;
    kept = douglasPeucker(points, tolerance);
  }
  const [first, last] = [kept[0], kept.at(-1)];
  if (kept.length > 3 && first && last && Math.hypot(first[0] - last[0], first[1] - last[1]) <= tolerance) kept.pop();
  return kept;
}

function distanceToSegment([x, y]: ScreenPoint, [ax, ay]: ScreenPoint, [bx, by]: ScreenPoint): number {
  const [dx, dy] = [bx - ax, by - ay];
  const length = dx * dx + dy * dy;
  const t = length === 0 ? 0 : Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / length));
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
}
