// judge.js — what only the judge's view shows: the disputes not ruled
// yet and the physical rolls and measurements at the table nobody has
// confirmed (or that were contested), from the state's disputes,
// dice.manual and measures.

import {playerName} from './sides.js';

export function renderJudge(el, state) {
  const open = (state.disputes || []).filter((d) => !d.ruling);
  const rolls = (state.dice?.manual || []).filter((r) => r.status !== 'confirmed');
  const measures = (state.measures || []).filter((m) => m.status !== 'confirmed');
  const list = (title, items, line) => {
    const box = document.createElement('div');
    const h = document.createElement('h3');
    h.textContent = `${title} (${items.length})`;
    const ul = document.createElement('ul');
    ul.replaceChildren(...items.map((x) => {
      const li = document.createElement('li');
      li.textContent = line(x);
      return li;
    }));
    if (!items.length) {
      const li = document.createElement('li');
      li.className = 'none';
      li.textContent = 'none';
      ul.append(li);
    }
    box.append(h, ul);
    return box;
  };
  el.replaceChildren(
    list('Open disputes', open, (d) => `#${d.seq}: ${playerName(state, d.by)} disputes event ${d.event}` + (d.reason ? ` — “${d.reason}”` : '')),
    list('Unconfirmed rolls', rolls, (r) => `event ${r.seq}: ${playerName(state, r.roller)}'s roll, ${r.status}` + (r.reason ? ` — “${r.reason}”` : '')),
    list('Unconfirmed measurements', measures, (m) => `event ${m.seq}: ${playerName(state, m.player)}'s measurement for ${m.for}, ${m.status}` + (m.reason ? ` — “${m.reason}”` : '')),
  );
  el.dataset.open = open.length;
  el.dataset.unconfirmed = rolls.length;
  el.dataset.measures = measures.length;
}
