// board.js — the table seen from above, drawn in inches (the SVG viewBox
// is the table), so positions are used as recorded with no scaling code:
// terrain first, then the models on their bases coloured by side, the
// firing unit and its target ringed, removed models greyed where they fell.

import {svg, title} from './svg.js';
import {sideOf, playerName} from './sides.js';

const MM_PER_INCH = 25.4;

export function renderBoard(el, state) {
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

  const layers = [svg('rect', {class: 'table', x: 0, y: 0, width: W, height: H})];
  layers.push(grid(W, H));
  for (const t of state.terrain || []) layers.push(terrain(t, fy));

  const removed = [];
  const alive = [];
  const labels = [];
  const centres = {};
  for (const u of state.units || []) {
    const side = sideOf(state, u.player);
    const role = u.id === firer ? 'firer' : u.id === target ? 'target' : '';
    for (const m of u.models || []) {
      const c = model(u, m, side, role, live, fy, state);
      (m.removed ? removed : alive).push(c);
    }
    const here = (u.models || []).filter((m) => !m.removed);
    if (here.length) {
      const cx = here.reduce((s, m) => s + m.x, 0) / here.length;
      const cy = here.reduce((s, m) => s + m.y, 0) / here.length;
      const top = Math.max(...here.map((m) => m.y + radius(m)));
      const bottom = Math.min(...here.map((m) => m.y - radius(m)));
      centres[u.id] = [cx, fy(cy)];
      // Above the unit, or below it when it stands at the far edge.
      const ly = fy(top) - 0.6 > 1.4 ? fy(top) - 0.6 : fy(bottom) + 1.4;
      labels.push(svg('text', {class: `unit-label ${side}`, x: cx, y: ly, 'text-anchor': 'middle'},
        [u.name || u.id]));
    }
  }
  // Removed models underneath: a living model may stand where one fell.
  layers.push(svg('g', {class: 'removed-models'}, removed));
  if (firer && target && centres[firer] && centres[target]) {
    const [x1, y1] = centres[firer];
    const [x2, y2] = centres[target];
    layers.push(svg('line', {class: 'attack-line' + (live ? ' live' : ''), x1, y1, x2, y2}));
  }
  layers.push(svg('g', {class: 'models'}, alive));
  layers.push(svg('g', {class: 'labels'}, labels));
  el.replaceChildren(...layers);
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
