// tally.js — a running score per side and the luck meter: wounds caused
// against the wounds the dice were expected to cause (the exact odds of
// every step of each finished attack). Right of centre is lucky.

import {sideOf, playerName} from './sides.js';

export function renderTally(el, state) {
  el.replaceChildren(...(state.tally || []).map((t) => card(state, t)));
}

function card(state, t) {
  const div = document.createElement('div');
  div.className = `tally ${sideOf(state, t.player)}`;
  div.dataset.player = t.player;
  const luck = t.wounds_caused - t.expected_wounds;
  div.append(
    el('h3', 'player', playerName(state, t.player)),
    stat('Models lost', 'models-lost', t.models_lost),
    stat('Wounds caused', 'wounds', t.wounds_caused),
    stat('Expected', 'expected', t.expected_wounds.toFixed(1)),
    stat('Dice rolled', 'dice', t.dice),
    meter(luck, t.expected_wounds),
  );
  return div;
}

function meter(luck, expected) {
  const box = el('div', 'luck');
  const bar = el('div', 'luck-bar');
  const mark = el('span', 'luck-mark');
  // Scale by the size of the sample: one wound above expectation is big
  // luck on two expected wounds and noise on twenty.
  const scale = Math.max(2, expected);
  const pos = 50 + 50 * Math.max(-1, Math.min(1, luck / scale));
  mark.style.left = `${pos}%`; // CSSOM, allowed by the page's CSP
  bar.append(mark);
  const word = Math.abs(luck) < 0.05 ? 'as expected' : luck > 0 ? 'lucky' : 'unlucky';
  const label = el('div', 'luck-label', `${luck >= 0 ? '+' : '−'}${Math.abs(luck).toFixed(1)} ${word}`);
  box.dataset.luck = luck.toFixed(2);
  box.append(bar, label);
  return box;
}

function stat(label, cls, value) {
  const row = el('div', 'stat');
  row.append(el('span', 'label', label), el('span', `value ${cls}`, String(value)));
  return row;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
