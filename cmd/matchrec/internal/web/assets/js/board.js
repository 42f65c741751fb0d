// board.js — the table seen from above, drawn in inches (the SVG viewBox
// is the table), so positions are used as recorded with no scaling code:
// terrain first, then the models on their bases coloured by side, the
// firing unit and the target models it can hit ringed, removed models
// greyed where they fell, and each unit's name placed where it covers
// neither a model nor another name.

import {svg, title} from './svg.js';
import {sideOf, playerName} from './sides.js';
import {sketchLayer} from './sketch.js';
import {renderSchematic} from './schematic.js';

const MM_PER_INCH = 25.4;
const LABEL_EM = 1.1;      // the unit labels' font size, in inches (board.css)
const CHAR_W = 0.66 * LABEL_EM; // a bold character's width, generously

export function renderBoard(el, state) {
  // A match measured at the table has no positions to draw.
  if (state.geometry === 'measured') return renderSchematic(el, state);
  delete el.dataset.view;
  const W = state.table?.w || 72;
  const H = state.table?.h || 48;
  // The recorder's (0,0) is the bottom-left corner and y grows upwards;
  // SVG's y grows downwards. Flip here, once, for every shape.
  const fy = (y) => H - y;
  el.setAttribute('viewBox', `0 0 ${W} ${H}`);

  // An attack in progress is ringed boldly; the last finished one faintly,
  // so viewers still see who shot whom while the dust settles.
  const attack = state.attack || state.last_attack || null;
  const live = !!state.attack;
  const firer = attack?.firer;
  const target = attack?.target;
  const eligible = new Set(attack?.eligible || []);
  const shooters = new Set((attack?.shooters || []).map((s) => s.model));

  const layers = [svg('rect', {class: 'table', x: 0, y: 0, width: W, height: H})];
  layers.push(grid(W, H));
  for (const t of state.terrain || []) layers.push(terrain(t, fy));

  const removed = [];
  const alive = [];
  const standing = []; // every living model, as boxes labels must avoid
  const units = [];
  for (const u of state.units || []) {
    const side = sideOf(state, u.player);
    for (const m of u.models || []) {
      let role = '';
      if (u.id === firer) role = 'firer';
      else if (u.id === target) role = eligible.size === 0 || eligible.has(m.id) ? 'target' : 'out-of-reach';
      const c = model(u, m, side, role, live, fy, state);
      (m.removed ? removed : alive).push(c);
      if (!m.removed) standing.push(box(m.x, fy(m.y), radius(m)));
    }
    const here = (u.models || []).filter((m) => !m.removed);
    if (here.length) units.push({u, side, here});
  }
  // Removed models underneath: a living model may stand where one fell.
  layers.push(svg('g', {class: 'removed-models'}, removed));
  if (attack) {
    // From the models that fire to the models they can hit.
    const from = centre(state, firer, (m) => shooters.size === 0 || shooters.has(m.id), fy);
    const to = centre(state, target, (m) => eligible.size === 0 || eligible.has(m.id), fy);
    if (from && to) {
      layers.push(svg('line', {class: 'attack-line' + (live ? ' live' : ''), x1: from[0], y1: from[1], x2: to[0], y2: to[1]}));
    }
  }
  layers.push(sketchLayer(state, fy)); // markers, scatters, charges: under the models
  layers.push(svg('g', {class: 'models'}, alive));
  layers.push(svg('g', {class: 'labels'}, placeLabels(units, standing, W, H, fy)));
  el.replaceChildren(...layers);
}

// centre is the middle of the living models of unit id that pass keep
// (or of all its living models when none does), in SVG coordinates.
function centre(state, id, keep, fy) {
  const u = (state.units || []).find((x) => x.id === id);
  const here = (u?.models || []).filter((m) => !m.removed);
  const picked = here.filter(keep);
  const ms = picked.length ? picked : here;
  if (!ms.length) return null;
  return [ms.reduce((s, m) => s + m.x, 0) / ms.length, fy(ms.reduce((s, m) => s + m.y, 0) / ms.length)];
}

function box(cx, cy, r) {
  return {x0: cx - r, y0: cy - r, x1: cx + r, y1: cy + r};
}

function overlaps(a, b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

// placeLabels names each unit beside its models: above them, else below,
// right or left, else further out, the first place that stays on the
// table and covers no model and no name placed before it.
function placeLabels(units, standing, W, H, fy) {
  const placed = [];
  const out = [];
  // Units with many models first: their names have the fewest places.
  for (const {u, side, here} of [...units].sort((a, b) => b.here.length - a.here.length)) {
    const name = u.name || u.id;
    const w = name.length * CHAR_W;
    const h = LABEL_EM;
    const xs = here.map((m) => m.x);
    const ys = here.map((m) => fy(m.y));
    const r = Math.max(...here.map(radius));
    const b = {x0: Math.min(...xs) - r, x1: Math.max(...xs) + r, y0: Math.min(...ys) - r, y1: Math.max(...ys) + r};
    const cx = (b.x0 + b.x1) / 2;
    const cy = (b.y0 + b.y1) / 2;
    const gap = 0.3;
    const candidates = [];
    for (let k = 0; k < 4; k++) {
      const d = gap + k * h;
      candidates.push(
        {x: cx - w / 2, y: b.y0 - d - h}, // above
        {x: cx - w / 2, y: b.y1 + d},     // below
        {x: b.x1 + d, y: cy - h / 2},     // right
        {x: b.x0 - d - w, y: cy - h / 2}, // left
      );
    }
    const rect = (c) => ({x0: c.x, y0: c.y, x1: c.x + w, y1: c.y + h});
    const onTable = (q) => q.x0 >= 0 && q.y0 >= 0 && q.x1 <= W && q.y1 <= H;
    const free = (q) => onTable(q) && !placed.some((p) => overlaps(p, q)) && !standing.some((s) => overlaps(s, q));
    const pick = candidates.find((c) => free(rect(c))) || candidates.find((c) => onTable(rect(c))) || candidates[0];
    const q = rect(pick);
    placed.push(q);
    // Text sits on its baseline: about 0.8 em below the box's top.
    out.push(svg('text', {class: `unit-label ${side}`, x: q.x0 + w / 2, y: q.y0 + 0.8 * h, 'text-anchor': 'middle', 'data-unit': u.id}, [name]));
  }
  return out;
}

function radius(m) {
  return ((m.base_mm || 25) / MM_PER_INCH) / 2;
}

function model(u, m, side, role, live, fy, state) {
  const cls = ['model', side];
  if (m.removed) cls.push('removed');
  if (role && !m.removed) cls.push(role, live ? 'live' : 'done');
  if (!m.removed && m.wounds_left < m.w) cls.push('wounded');
  const name = m.name || m.id;
  const hurt = m.removed ? 'removed' : `${m.wounds_left}/${m.w} wounds`;
  return svg('circle', {
    class: cls.join(' '), cx: m.x, cy: fy(m.y), r: radius(m),
    'data-model': m.id, 'data-unit': u.id,
  }, [title(`${name} (${u.name || u.id}, ${playerName(state, u.player)}): ${hurt}`)]);
}

function terrain(t, fy) {
  const pts = (t.polygon || []).map(([x, y]) => `${x},${fy(y)}`).join(' ');
  const kind = /^[a-z-]+$/.test(t.kind || '') ? t.kind : 'other';
  const g = svg('g', {class: `terrain terrain-${kind}`, 'data-terrain': t.id}, [
    svg('polygon', {points: pts}, [title(`${t.name || t.id} (${t.kind})`)]),
  ]);
  const n = (t.polygon || []).length;
  if (n) {
    const cx = t.polygon.reduce((s, p) => s + p[0], 0) / n;
    const cy = t.polygon.reduce((s, p) => s + p[1], 0) / n;
    g.append(svg('text', {class: 'terrain-label', x: cx, y: fy(cy), 'text-anchor': 'middle'}, [t.name || t.id]));
  }
  return g;
}

// grid draws a line every 6": distances read off the board at a glance.
function grid(W, H) {
  const lines = [];
  for (let x = 6; x < W; x += 6) lines.push(svg('line', {x1: x, y1: 0, x2: x, y2: H}));
  for (let y = 6; y < H; y += 6) lines.push(svg('line', {x1: 0, y1: y, x2: W, y2: y}));
  return svg('g', {class: 'grid'}, lines);
}
