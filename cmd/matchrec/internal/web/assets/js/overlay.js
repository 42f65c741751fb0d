// overlay.js — the broadcast overlay (?overlay=bar|cards|full): a slim
// bar along the bottom (title, each player with army and models lost,
// turn and phase, and a DISPUTE flag while one is open) and short-lived
// cards above it for what just happened (a roll, an attack's result, a
// ruling). Sizes follow the viewport (vh), so 1280×720 and 1920×1080
// frame alike; no text wraps: what does not fit is cut with an ellipsis.

import {sideOf, playerName} from './sides.js';
import {die} from './dice.js';

const CARD_MS = 7000;

export class Overlay {
  constructor(kind) {
    this.kind = kind;
    this.bar = document.getElementById('ov-bar');
    this.cards = document.getElementById('ov-cards');
    this.prev = null;
    this.timers = new Map();
  }

  // draw shows state; changes since the previous draw raise cards.
  draw(state) {
    if (this.kind !== 'cards') this.drawBar(state);
    if (this.kind !== 'bar') this.raise(state);
    this.prev = state;
  }

  drawBar(state) {
    const sides = (state.players || []).map((p) => {
      const t = (state.tally || []).find((x) => x.player === p.id) || {models_lost: 0};
      const army = (state.units || []).filter((u) => u.player === p.id).map((u) => u.name || u.id).join(' · ');
      return el('div', `ov-side ${sideOf(state, p.id)}`, [
        el('div', 'ov-who', [el('span', 'ov-name', playerName(state, p.id)), el('span', 'ov-army', army)]),
        el('div', 'ov-score', [el('span', 'ov-lost', String(t.models_lost)), el('span', 'ov-label', 'lost')]),
      ], {player: p.id});
    });
    let where;
    if (state.ended) {
      where = state.winner ? `Final — ${playerName(state, state.winner)} wins` : 'Final';
    } else if (state.turn) {
      where = [`Turn ${state.turn}`, state.phase, state.active_player && playerName(state, state.active_player)].filter(Boolean).join(' · ');
    } else {
      where = 'Setting up';
    }
    const dispute = openDispute(state);
    const mid = el('div', 'ov-mid', [
      el('span', 'ov-title', state.name || state.match),
      dispute ? el('span', 'ov-flag', 'DISPUTE — judge called') : el('span', 'ov-where', where),
    ]);
    const [a, b] = sides;
    this.bar.replaceChildren(...[a, mid, b].filter(Boolean));
    this.bar.classList.toggle('disputed', !!dispute);
  }

  raise(state) {
    const prev = this.prev;
    const roll = state.last_roll;
    if (roll && prev && roll.seq !== prev.last_roll?.seq) this.card('roll', rollCard(state, roll));
    const atk = state.last_attack;
    if (atk && prev && atk.seq !== prev.last_attack?.seq) this.card('attack', attackCard(state, atk));
    const ms = state.measures || [];
    const m = ms[ms.length - 1];
    const pm = (prev?.measures || [])[(prev?.measures || []).length - 1];
    if (m && prev && m.seq !== pm?.seq) this.card('measure', measureCard(state, m));
    for (const d of state.disputes || []) {
      const before = (prev?.disputes || []).find((x) => x.seq === d.seq);
      if (prev && d.ruling && !before?.ruling) this.card('ruling', rulingCard(d));
    }
    // An open dispute keeps its card until it is ruled.
    const open = openDispute(state);
    const has = this.cards.querySelector('.card-dispute');
    if (open && !has) {
      this.cards.append(el('div', 'card card-dispute', [el('div', 'card-head', 'DISPUTE — judge called'),
        el('div', 'card-line', `${playerName(state, open.by)} disputes event ${open.event}`)]));
    } else if (!open && has) {
      has.remove();
    }
  }

  // card shows a card of a kind, replacing the one of that kind shown,
  // and takes it down after CARD_MS.
  card(kind, node) {
    node.classList.add('card', `card-${kind}`);
    this.cards.querySelector(`.card-${kind}`)?.remove();
    this.cards.append(node);
    clearTimeout(this.timers.get(kind));
    this.timers.set(kind, setTimeout(() => node.remove(), CARD_MS));
  }
}

function openDispute(state) {
  return (state.disputes || []).find((d) => !d.ruling);
}

function rollCard(state, roll) {
  const n = roll.values.length;
  const need = roll.need ? `, needing ${roll.need}+` : '';
  return el('div', sideOf(state, roll.roller), [
    el('div', 'card-head', `${playerName(state, roll.roller)} rolls ${n} ${n === 1 ? 'die' : 'dice'} to ${roll.purpose || 'roll'}${need}`),
    el('div', 'card-dice', roll.values.slice(0, 20).map((v) => die(v, roll.need))),
    el('div', 'card-line', `${roll.successes} ${roll.successes === 1 ? 'success' : 'successes'}`),
  ], {seq: roll.seq});
}

function attackCard(state, atk) {
  const unit = (state.units || []).find((u) => u.id === atk.target);
  const name = unit?.name || atk.target;
  const n = (atk.casualties || []).length;
  const head = n === 0 ? `${name}: nothing removed` : n === 1 ? `1 model of ${name} removed` : `${n} ${name} removed`;
  const line = `${atk.hits} ${atk.hits === 1 ? 'hit' : 'hits'} · ${atk.wounds} ${atk.wounds === 1 ? 'wound' : 'wounds'} · ${atk.saves} saved`;
  return el('div', sideOf(state, atk.attacker), [el('div', 'card-head', head), el('div', 'card-line', line)], {seq: atk.seq});
}

// measureCard shows what a player measured at the table (a match measured
// there, or a declaration that carried facts): its first few facts.
function measureCard(state, m) {
  const facts = (m.facts || []).slice(0, 4).map((f) => `${f.kind} ${f.from ? f.from + (f.model ? '→' + f.model : '') : f.model || ''}: ${f.value}`);
  const more = (m.facts || []).length > 4 ? ` +${m.facts.length - 4} more` : '';
  return el('div', sideOf(state, m.player), [el('div', 'card-head', `${playerName(state, m.player)} measures for ${m.for}`),
    el('div', 'card-line', facts.join(' · ') + more)], {seq: m.seq});
}

function rulingCard(d) {
  const word = {amend: 'amended', void: 'voided', uphold: 'upheld'}[d.decision] || d.decision;
  return el('div', '', [el('div', 'card-head', `RULING: ${word}`), el('div', 'card-line', `event ${d.event}` + (d.note ? ` — ${d.note}` : ''))]);
}

// el builds an element with a class and text or children: text is only
// ever set as text, never parsed.
function el(tag, cls, content, data = {}) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (typeof content === 'string') e.textContent = content;
  else if (content) e.append(...content);
  for (const [k, v] of Object.entries(data)) e.dataset[k] = v;
  return e;
}
