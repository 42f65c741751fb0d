// dice.js — the last roll as dice faces: pips a viewer reads at a glance,
// successes lit and failures dimmed, the target number beside them.

import {svg, title} from './svg.js';
import {sideOf, playerName} from './sides.js';

// Pip centres on a 100×100 face.
const PIPS = {
  1: [[50, 50]],
  2: [[27, 27], [73, 73]],
  3: [[27, 27], [50, 50], [73, 73]],
  4: [[27, 27], [73, 27], [27, 73], [73, 73]],
  5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
  6: [[27, 24], [73, 24], [27, 50], [73, 50], [27, 76], [73, 76]],
};

// renderRoll shows the state's last roll; view, when known, is the roll's
// event view (its roll: what it was for and what it decided, as the audit
// explains it), so the heading says who fired what at whom and what the
// dice decided — a charge that reaches, a blast that scatters — not a
// count of successes a roll with no target number never has.
export function renderRoll(head, box, state, view) {
  const roll = state.last_roll;
  if (!roll) {
    head.textContent = 'No dice rolled yet';
    box.replaceChildren();
    box.removeAttribute('data-seq');
    return;
  }
  const n = roll.values.length;
  const need = roll.need ? `needing ${roll.need}+` : '';
  const who = playerName(state, roll.roller);
  const about = view?.seq === roll.seq ? view.roll : null;
  const what = about?.weapon ? ` (${about.weapon})` : '';
  const decided = about?.decided || (roll.need ? `${roll.successes} ${roll.successes === 1 ? 'success' : 'successes'}` : '');
  head.replaceChildren(
    span('roller ' + sideOf(state, roll.roller), who),
    ` rolls ${n} ${n === 1 ? 'die' : 'dice'} to ${roll.purpose || 'roll'}${what} `,
    span('need', need),
    about?.firer ? span('for', ` — ${about.firer} → ${about.target}`) : '',
    decided ? ' — ' : '',
    span('successes', decided),
    roll.source === 'digital' ? span('source', ' (digital)') : '',
  );
  head.dataset.decided = about ? 'yes' : '';
  box.dataset.seq = roll.seq;
  box.replaceChildren(...roll.values.map((v) => die(v, roll.need)));
}

// die is one die face: pips, lit when it meets need.
export function die(v, need) {
  // A die succeeds when it meets the target number; with no target number
  // (a plain roll) nothing is marked.
  const state = need ? (v >= need ? 'success' : 'fail') : 'plain';
  const face = [svg('rect', {class: 'face', x: 4, y: 4, width: 92, height: 92, rx: 16})];
  if (PIPS[v]) {
    for (const [cx, cy] of PIPS[v]) face.push(svg('circle', {class: 'pip', cx, cy, r: 9}));
  } else {
    face.push(svg('text', {class: 'pip-text', x: 50, y: 66, 'text-anchor': 'middle'}, [String(v)]));
  }
  face.push(title(`${v}${need ? (v >= need ? ' — success' : ' — fail') : ''}`));
  return svg('svg', {class: `die ${state}`, viewBox: '0 0 100 100', 'data-value': v, role: 'img', 'aria-label': String(v)}, face);
}

function span(cls, text) {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  return s;
}
