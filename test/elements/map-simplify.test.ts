import { expect } from '@open-wc/testing';
import { douglasPeucker, simplifyOutline, type ScreenPoint } from '../../widget/map/simplify.ts';

// The freehand outline's simplification (widget/map/simplify.ts, Douglas–Peucker).

describe('simplifying a drawn outline', () => {
  it('drops points within the tolerance of the line through their neighbours and keeps the corners', () => {
    // An L: along the top with a 1 px wobble, then down; the corner and the ends stay.
    const l: ScreenPoint[] = [
      [0, 0],
      [10, 1],
      [20, 0],
      [30, -1],
      [40, 0],
      [40, 10],
      [41, 20],
      [40, 30],
    ];
    expect(douglasPeucker(l, 2)).to.deep.equal([
      [0, 0],
      [40, 0],
      [40, 30],
    ]);
    // A tolerance below the wobble keeps it (a point on the line between its neighbours still goes).
    const fine = douglasPeucker(l, 0.5);
    expect(fine).to.deep.include.members([
      [10, 1],
      [30, -1],
      [41, 20],
    ]);
    expect(fine).to.not.deep.include([20, 0]);
    expect(douglasPeucker([[1, 2]], 5)).to.deep.equal([[1, 2]]);
  });

  it('brings a long freehand circle down to the most corners asked, still round', () => {
    const circle: ScreenPoint[] = Array.from({ length: 2000 }, (_, i) => {
      const angle = (2 * Math.PI * i) / 2000;
      return [200 + 150 * Math.cos(angle), 200 + 150 * Math.sin(angle)] as const;
    });
    const outline = simplifyOutline(circle, 50);
    expect(outline.length).to.be.within(12, 50);
    for (const [x, y] of outline) expect(Math.hypot(x - 200, y - 200)).to.be.closeTo(150, 0.001);
    // Closed: the end drawn back onto the start is not a corner twice.
    const [first, last] = [outline[0]!, outline.at(-1)!];
    expect(Math.hypot(first[0] - last[0], first[1] - last[1])).to.be.greaterThan(2);
    expect(simplifyOutline(circle, 8).length).to.be.at.most(8);
  });
});
