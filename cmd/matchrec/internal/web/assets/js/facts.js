// facts.js — the "Measured" panel: what the players measured at the table
// for the attack on the board (its declaration's facts and any taken at
// its steps), or the latest measurement, each with what the opponent said
// of it (unconfirmed, confirmed, CONTESTED) and, when a judge amended it,
// that its facts are shown as ruled (the event feed keeps them as
// measured, with the ruling's mark); and the facts a measure step waits
// for. Hidden when the match has measured nothing.

import {playerName} from './sides.js';

export function renderFacts(panel, el, state) {
  const all = state.measures || [];
  const attack = state.attack || state.last_attack || null;
  const seqs = new Set(attack?.measures || []);
  const shown = all.filter((m) => seqs.has(m.seq));
  const last = all[all.length - 1];
  if (last && !seqs.has(last.seq) && (!attack || last.seq > attack.seq)) shown.push(last);
  const asked = state.pending?.kind === 'measure' ? state.pending.facts || [] : [];
  panel.hidden = shown.length === 0 && asked.length === 0 && state.geometry !== 'measured';
  const out = [];
  if (asked.length) {
    out.push(para('facts-asked', `Waiting for ${playerName(state, state.pending.player)} to measure: ` +
      asked.map((n) => name(n) + ` (${n.value})`).join('; ')));
  }
  for (const m of shown) {
    const box = document.createElement('div');
    box.className = 'measurement';
    box.dataset.seq = m.seq;
    box.dataset.status = m.status;
    const ruled = (state.disputes || []).find((d) => d.event === m.seq && d.ruling && d.decision !== 'uphold');
    let head = `event ${m.seq} — ${playerName(state, m.player)}, for ${m.for}: ${m.status === 'contested' ? 'CONTESTED' : m.status}`;
    if (m.reason) head += ` (“${m.reason}”)`;
    if (ruled) head += ruled.decision === 'amend' ? ` — AMENDED by ruling ${ruled.ruling}: as ruled` : ` — VOIDED by ruling ${ruled.ruling}`;
    box.append(para('measurement-head', head));
    const ul = document.createElement('ul');
    for (const f of m.facts || []) {
      const li = document.createElement('li');
      li.textContent = `${name(f)}: ${f.value}`;
      li.dataset.kind = f.kind;
      ul.append(li);
    }
    box.append(ul);
    out.push(box);
  }
  if (!out.length) out.push(para('none', 'nothing measured yet'));
  el.replaceChildren(...out);
  el.dataset.count = shown.length;
}

// name names a fact as the log does: "range from tac-1", "target boy-3".
function name(f) {
  if (f.from && f.model) return `${f.kind} from ${f.from} to ${f.model}`;
  if (f.from) return `${f.kind} from ${f.from}`;
  return f.model ? `${f.kind} ${f.model}` : f.kind;
}

function para(cls, text) {
  const p = document.createElement('p');
  p.className = cls;
  p.textContent = text;
  return p;
}
