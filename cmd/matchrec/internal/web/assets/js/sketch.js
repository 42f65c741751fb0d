// sketch.js — what the edition draws on the board for viewers (the
// state's sketch, projector.Sketcher): blast and template markers where
// they lie, where a blast was aimed and the arrow it scattered along, a
// charge and its models' moves. The server says what and where, in table
// inches; this only draws, each with what it decided as its tooltip.

import {svg, title} from './svg.js';
import {sideOf} from './sides.js';

// sketchLayer is the board's layer of sketches (fy flips y to SVG's).
export function sketchLayer(state, fy) {
  const shapes = (state.sketch || []).map((k) => {
    const side = k.player ? sideOf(state, k.player) : '';
    const cls = `sketch sketch-${k.kind} ${side}${k.live ? ' live' : ''}`;
    const data = {class: cls, 'data-kind': k.kind, 'data-seq': k.seq || ''};
    const a = [k.x1, fy(k.y1)];
    const b = [k.x2, fy(k.y2)];
    let body;
    switch (k.kind) {
      case 'marker':
      case 'aim':
        body = [svg('polygon', {points: capsule(a, k.r1, b, k.r2).map((p) => p.join(',')).join(' ')})];
        break;
      default: // scatter, charge, move: an arrow from a to b
        body = arrow(a, b, k.kind === 'move' ? 0.5 : 0.9);
    }
    return svg('g', data, [...body, title(k.label || k.kind)]);
  });
  return svg('g', {class: 'sketches'}, shapes);
}

// capsule is the outline of the hull of two circles (a marker: one
// circle for a blast, a teardrop for a template), as a polygon.
function capsule(a, ra, b, rb) {
  const pts = [];
  for (let i = 0; i < 48; i++) {
    const t = (i / 48) * 2 * Math.PI;
    pts.push([a[0] + ra * Math.cos(t), a[1] + ra * Math.sin(t)], [b[0] + rb * Math.cos(t), b[1] + rb * Math.sin(t)]);
  }
  return hull(pts);
}

// hull is the convex hull of points (Andrew's monotone chain).
function hull(pts) {
  pts.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  const cross = (o, p, q) => (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0]);
  const half = (list) => {
    const h = [];
    for (const p of list) {
      while (h.length >= 2 && cross(h[h.length - 2], h[h.length - 1], p) <= 0) h.pop();
      h.push(p);
    }
    h.pop();
    return h;
  };
  return [...half(pts), ...half([...pts].reverse())].map(([x, y]) => [+x.toFixed(3), +y.toFixed(3)]);
}

// arrow is a line from a to b with a head of size head at b.
function arrow(a, b, head) {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = Math.hypot(dx, dy) || 1;
  const ux = dx / len;
  const uy = dy / len;
  const h = Math.min(head, len / 2);
  const base = [b[0] - ux * h, b[1] - uy * h];
  const left = [base[0] - uy * h * 0.5, base[1] + ux * h * 0.5];
  const right = [base[0] + uy * h * 0.5, base[1] - ux * h * 0.5];
  return [
    svg('line', {x1: a[0], y1: a[1], x2: base[0], y2: base[1]}),
    svg('polygon', {class: 'head', points: [b, left, right].map((p) => p.join(',')).join(' ')}),
  ];
}
