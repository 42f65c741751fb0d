// schematic.js — the board of a match measured at a physical table
// (state.geometry "measured"): nobody recorded where the models stand, so
// no map is drawn. Each side is a column of unit cards — the unit's name,
// what it did this turn (moved, advanced, fired, locked or engaged), one
// dot per model (wounded ringed, removed greyed) — and the attack in
// progress (or the last one) is an arrow from the firing unit's card to
// its target's, its firing models and the target models that may take the
// wounds ringed as on the map. What the players measured is in the
// "Measured" panel beside it (facts.js).

import {svg, title} from './svg.js';
import {sideOf, playerName} from './sides.js';

const W = 100;         // the drawing's width, in its own units
const COL = 44;        // a card's width
const GAP = 3;         // between cards
const PER_ROW = 12;    // model dots per row
const DOT = 1.3;       // a dot's radius
const HEAD = 5.2;      // a card's title and flags
const ROW = 3.6;       // a row of dots

export function renderSchematic(el, state) {
  const attack = state.attack || state.last_attack || null;
  const live = !!state.attack;
  const eligible = new Set(attack?.eligible || []);
  const shooters = new Set((attack?.shooters || []).map((s) => s.model));
  const players = state.players || [];
  const cards = [];
  const at = {}; // unit id → its card's box
  const bottom = [];
  players.forEach((p, col) => {
    let y = 4;
    const x = col === 0 ? 2 : W - 2 - COL;
    for (const u of (state.units || []).filter((u) => u.player === p.id)) {
      const rows = Math.max(1, Math.ceil((u.models || []).length / PER_ROW));
      const h = HEAD + rows * ROW + 1;
      at[u.id] = {x, y, w: COL, h};
      cards.push(card(state, u, sideOf(state, u.player), {x, y, w: COL, h}, attack, live, eligible, shooters));
      y += h + GAP;
    }
    bottom.push(y);
  });
  const H = Math.max(30, ...bottom);
  el.setAttribute('viewBox', `0 0 ${W} ${H}`);
  el.dataset.view = 'schematic';
  const layers = [arrowHead(), svg('rect', {class: 'table schematic', x: 0, y: 0, width: W, height: H})];
  players.forEach((p, col) => layers.push(svg('text', {class: `side-label ${sideOf(state, p.id)}`,
    x: col === 0 ? 2 : W - 2, y: 2.6, 'text-anchor': col === 0 ? 'start' : 'end'}, [playerName(state, p.id)])));
  // Who is locked or engaged with whom: a thin link between their cards.
  const linked = new Set();
  for (const u of state.units || []) {
    for (const o of u.engaged || []) {
      const key = [u.id, o].sort().join('|');
      if (linked.has(key) || !at[u.id] || !at[o]) continue;
      linked.add(key);
      layers.push(link(at[u.id], at[o], 'engaged-link', `${u.name || u.id} and ${o} are locked or engaged`));
    }
  }
  if (attack && at[attack.firer] && at[attack.target]) {
    layers.push(link(at[attack.firer], at[attack.target], 'attack-line' + (live ? ' live' : ''), `${attack.firer} → ${attack.target}`));
  }
  layers.push(svg('g', {class: 'cards'}, cards));
  el.replaceChildren(...layers);
}

// link joins two cards at their facing edges.
function link(a, b, cls, tip) {
  const left = a.x < b.x;
  const x1 = left ? a.x + a.w : a.x;
  const x2 = left ? b.x : b.x + b.w;
  const y1 = a.y + HEAD / 2 + 1;
  const y2 = b.y + HEAD / 2 + 1;
  return svg('line', {class: cls, x1, y1, x2, y2, 'marker-end': cls.startsWith('attack') ? 'url(#arrow)' : null}, [title(tip)]);
}

function card(state, u, side, box, attack, live, eligible, shooters) {
  const models = u.models || [];
  const alive = models.filter((m) => !m.removed);
  const flags = [];
  if (alive.length === 0) flags.push('destroyed');
  if (u.moved) flags.push(u.advanced ? 'advanced' : 'moved');
  if (u.fired) flags.push('fired');
  if ((u.engaged || []).length) flags.push('engaged with ' + u.engaged.map((id) => unitName(state, id)).join(', '));
  const kids = [
    svg('rect', {class: `unit-box ${side}`, x: box.x, y: box.y, width: box.w, height: box.h, rx: 1}),
    svg('text', {class: `unit-name ${side}`, x: box.x + 1.5, y: box.y + 2.8}, [`${u.name || u.id}`]),
    svg('text', {class: 'unit-count', x: box.x + box.w - 1.5, y: box.y + 2.8, 'text-anchor': 'end'}, [`${alive.length}/${models.length}`]),
    svg('text', {class: 'unit-flags', x: box.x + 1.5, y: box.y + 4.7}, [flags.join(' · ') || 'ready']),
  ];
  models.forEach((m, i) => {
    let role = '';
    if (u.id === attack?.firer) role = shooters.size === 0 || shooters.has(m.id) ? 'firer' : '';
    else if (u.id === attack?.target) role = eligible.size === 0 || eligible.has(m.id) ? 'target' : 'out-of-reach';
    const cls = ['model', side];
    if (m.removed) cls.push('removed');
    if (role && !m.removed) cls.push(role, live ? 'live' : 'done');
    if (!m.removed && m.wounds_left < m.w) cls.push('wounded');
    const cx = box.x + 2.6 + (i % PER_ROW) * 3.3;
    const cy = box.y + HEAD + 1.6 + Math.floor(i / PER_ROW) * ROW;
    const hurt = m.removed ? 'removed' : `${m.wounds_left}/${m.w} wounds`;
    kids.push(svg('circle', {class: cls.join(' '), cx, cy, r: DOT, 'data-model': m.id, 'data-unit': u.id},
      [title(`${m.name || m.id} (${m.id}): ${hurt}`)]));
  });
  return svg('g', {class: 'unit-card', 'data-unit': u.id}, kids);
}

function unitName(state, id) {
  const u = (state.units || []).find((x) => x.id === id);
  return u?.name || id;
}

// arrowHead is the marker the attack line ends in; the board's <defs>.
function arrowHead() {
  return svg('defs', {}, [svg('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: 'auto-start-reverse'},
    [svg('path', {d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head'})])]);
}
