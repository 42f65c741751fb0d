// judge.js — what only the judge's view shows, from the state's disputes
// and dice.manual: the disputes not ruled yet; the contested rolls no
// ruling has settled (a ruling after the contest settles it), with who
// contested; the rulings, by the event they rule on — the one in force
// (the last void or amend ruling) first, then those it replaced and the
// upholds; and the physical rolls and measurements at the table nobody
// has confirmed yet (or whose contest no ruling settled), from measures.

import {playerName} from './sides.js';

export function renderJudge(el, state) {
  const disputes = state.disputes || [];
  const open = disputes.filter((d) => !d.ruling);
  const manual = state.dice?.manual || [];
  const contested = manual.filter((r) => r.status === 'contested' && !r.settled);
  const unconfirmed = manual.filter((r) => r.status === 'unconfirmed');
  const measures = (state.measures || []).filter((m) => m.status === 'unconfirmed' || (m.status === 'contested' && !m.settled));
  const ruled = [...new Set(disputes.filter((d) => d.ruling).map((d) => d.event))].sort((a, b) => a - b);

  const list = (title, items, line, cls) => {
    const box = document.createElement('div');
    box.className = cls;
    const h = document.createElement('h3');
    h.textContent = `${title} (${items.length})`;
    const ul = document.createElement('ul');
    ul.replaceChildren(...items.map((x) => {
      const li = document.createElement('li');
      const l = line(x);
      if (typeof l === 'string') li.textContent = l;
      else li.append(...l);
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
  const who = (id) => playerName(state, id);
  el.replaceChildren(
    list('Open disputes', open, (d) => `#${d.seq}: ${who(d.by)} disputes event ${d.event}` + (d.reason ? ` — “${d.reason}”` : ''), 'open'),
    list('Contested rolls', contested,
      (r) => `event ${r.seq}: ${who(r.roller)}'s roll, contested by ${who(r.witness)} at event ${r.by}` + (r.reason ? ` — “${r.reason}”` : '') + ' — no ruling since', 'contested'),
    list('Rulings', ruled, (ev) => rulingsOf(state, ev), 'rulings'),
    list('Unconfirmed rolls', unconfirmed, (r) => `event ${r.seq}: ${who(r.roller)}'s roll, unconfirmed`, 'unconfirmed'),
    list('Measurements not confirmed', measures, (m) => `event ${m.seq}: ${who(m.player)}'s measurement for ${m.for}, ${m.status}` + (m.witness ? ` by ${who(m.witness)}` : '') + (m.reason ? ` — “${m.reason}”` : ''), 'measures'),
  );
  el.dataset.open = open.length;
  el.dataset.contested = contested.length;
  el.dataset.unconfirmed = unconfirmed.length;
  el.dataset.rulings = ruled.length;
  el.dataset.measures = measures.length;
}

// rulingsOf tells the rulings on event ev: the one in force (its dispute
// has no superseded: the last void or amend), then the others in the
// order they were made, each saying what replaced it.
function rulingsOf(state, ev) {
  const rs = (state.disputes || []).filter((d) => d.event === ev && d.ruling).sort((a, b) => a.ruling - b.ruling);
  const changes = (d) => d.decision === 'void' || d.decision === 'amend';
  const inForce = rs.filter((d) => changes(d) && !d.superseded).pop();
  const word = (d) => ({amend: 'AMENDED', void: 'VOIDED', uphold: 'upheld'}[d.decision] || d.decision);
  const what = (d) => `${word(d)}${d.values ? ' to ' + d.values.join(' ') : ''}${d.models ? ' to ' + d.models.join(', ') : ''} by ruling ${d.ruling}` + (d.note ? ` (“${d.note}”)` : '');
  const out = [];
  const head = document.createElement('span');
  head.className = 'in-force';
  head.textContent = inForce ? `event ${ev}: ${what(inForce)} — in force` : `event ${ev}: stands as played`;
  out.push(head);
  for (const d of rs) {
    if (d === inForce) continue;
    const s = document.createElement('span');
    s.className = d.superseded ? 'replaced' : 'upheld';
    s.textContent = d.superseded ? `${what(d).replace(/^[A-Z]+/, (w) => w.toLowerCase())}, replaced by ruling ${d.superseded}` : what(d);
    out.push(s);
  }
  return out;
}
