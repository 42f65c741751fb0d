// overlay.js — the broadcast overlay (?overlay=bar|cards|full): a slim
// bar along the bottom (title, each player with army and models lost,
// turn and phase, and a DISPUTE flag while one is open) and short-lived
// cards above it for what just happened, each saying who did what to
// whom: a roll (the firing unit and its target, the weapon, the dice and
// what they decided, as the audit explains the roll), an attack's result
// (which unit shot which, with what, and what fell), a dispute (its
// reason and the roll it is about, until ruled) and a ruling (what it
// decided, old → new dice and their effect). At most two cards show at
// once, so two cards and the bar keep under a sixth of the frame. Sizes
// follow the viewport (vh), so 1280×720 and 1920×1080 frame alike; no text
// wraps: what does not fit is cut with an ellipsis.

import {sideOf, playerName} from './sides.js';
import {die} from './dice.js';
import {apiURL, getJSON} from './api.js';

const CARD_MS = 7000;
const MAX_CARDS = 2; // with the bar, under a sixth of the frame

export class Overlay {
  constructor(kind) {
    this.kind = kind;
    this.bar = document.getElementById('ov-bar');
    this.cards = document.getElementById('ov-cards');
    this.prev = null;
    this.state = null;
    this.timers = new Map();
    this.disputed = new Map(); // dispute seq → what it is about, from its event
  }

  // event shows what an event of the stream just did (before the board
  // after it is drawn): rolls, disputes and rulings raise their cards.
  event(ev) {
    if (this.kind === 'bar' || !this.state) return;
    const st = this.state;
    const about = aboutOf(st, (ev.remarks || [])[0]);
    switch (ev.type) {
      case 'dice.rolled':
        if (ev.roll) this.card('roll', rollCard(st, ev));
        break;
      case 'dispute.raised':
        this.disputed.set(ev.seq, about);
        break;
      case 'ruling.made':
        this.card('ruling', rulingCard(st, ev, about));
        break;
    }
  }

  // draw shows state; changes since the previous draw raise cards.
  draw(state) {
    this.state = state;
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
    const atk = state.last_attack;
    if (atk && prev && atk.seq !== prev.last_attack?.seq) this.card('attack', attackCard(state, atk));
    const ms = state.measures || [];
    const m = ms[ms.length - 1];
    const pm = (prev?.measures || [])[(prev?.measures || []).length - 1];
    if (m && prev && m.seq !== pm?.seq) this.card('measure', measureCard(state, m));
    // An open dispute keeps its card until it is ruled.
    const open = openDispute(state);
    const has = this.cards.querySelector('.card-dispute');
    if (open && Number(has?.dataset.seq) !== open.seq) {
      has?.remove();
      const card = disputeCard(state, open, this.disputed.get(open.seq));
      this.show(card);
      if (!this.disputed.has(open.seq)) {
        // Opened while the dispute was open: read what it is about.
        getJSON(apiURL('events', {from: open.event, limit: 1})).then((p) => {
          const ev = p.events[0];
          if (!ev) return;
          this.disputed.set(open.seq, aboutOf(state, {type: ev.type, payload: ev.payload}));
          card.replaceWith(disputeCard(state, open, this.disputed.get(open.seq)));
        }).catch(() => {});
      }
    } else if (!open && has) {
      has.remove();
    }
  }

  // card shows a short-lived card of a kind, replacing the one of that
  // kind shown, and takes it down after CARD_MS.
  card(kind, node) {
    node.classList.add('card', `card-${kind}`);
    this.cards.querySelector(`.card-${kind}`)?.remove();
    this.show(node);
    clearTimeout(this.timers.get(kind));
    this.timers.set(kind, setTimeout(() => node.remove(), CARD_MS));
  }

  // show adds a card at the bottom of the stack, taking down the oldest
  // short-lived ones beyond MAX_CARDS (an open dispute's card stays).
  show(node) {
    this.cards.append(node);
    const shown = [...this.cards.children];
    for (const c of shown) {
      if (this.cards.children.length <= MAX_CARDS) break;
      if (c !== node && !c.classList.contains('card-dispute')) c.remove();
    }
  }
}

function openDispute(state) {
  return (state.disputes || []).find((d) => !d.ruling);
}

function unitName(state, id) {
  const u = (state.units || []).find((x) => x.id === id);
  return u?.name || id;
}

// aboutOf says what a remark's event was, for a viewer: "Alice's hit roll
// (4 1 6)" for a roll, else its kind.
function aboutOf(state, r) {
  if (!r) return '';
  const p = r.payload || {};
  if (r.type === 'dice.rolled') {
    return `${playerName(state, p.roller)}'s ${p.purpose || ''} roll (${(p.values || []).join(' ')})`.replace('  ', ' ');
  }
  return r.type.replace(/[._]/g, ' ');
}

// rollCard: who rolled for what — the firing unit and its target, the
// weapon — the dice, and what they decided.
function rollCard(state, ev) {
  const p = ev.payload || {};
  const r = ev.roll || {};
  const values = p.values || [];
  const who = playerName(state, p.roller);
  const head = r.firer ? `${r.firer} → ${r.target}` : `${who} rolls to ${p.purpose || 'roll'}`;
  const what = [r.firer ? who : '', r.weapon, p.purpose && (r.firer ? `to ${p.purpose}` : ''), p.need ? `${p.need}+` : ''].filter(Boolean).join(' · ');
  return el('div', sideOf(state, p.roller), [
    el('div', 'card-head', head),
    el('div', 'card-dice', values.slice(0, 20).map((v) => die(v, p.need))),
    el('div', 'card-line', [el('span', 'card-what', what ? what + ' — ' : ''), el('span', 'card-decided', r.decided || '')]),
  ], {seq: ev.seq});
}

// attackCard: which unit shot which, with what, and what fell.
function attackCard(state, atk) {
  const firer = unitName(state, atk.firer);
  const target = unitName(state, atk.target);
  const n = (atk.casualties || []).length;
  const fell = n === 0 ? 'nothing removed' : n === 1 ? '1 model removed' : `${n} models removed`;
  const u = (state.units || []).find((x) => x.id === atk.firer);
  const weapons = [...new Set((atk.shooters || []).map((s) => u?.weapons?.find((w) => w.id === s.weapon)?.name || s.weapon))].join(', ');
  const tally = `${atk.hits} ${atk.hits === 1 ? 'hit' : 'hits'} · ${atk.wounds} ${atk.wounds === 1 ? 'wound' : 'wounds'} · ${atk.saves} saved`;
  return el('div', sideOf(state, atk.attacker), [
    el('div', 'card-head', `${firer} → ${target}`),
    el('div', 'card-line', [el('span', 'card-decided', fell), ` · ${weapons ? weapons + ' · ' : ''}${tally}`]),
  ], {seq: atk.seq});
}

// disputeCard: who disputes what, and why.
function disputeCard(state, d, about) {
  const node = el('div', 'card card-dispute', [
    el('div', 'card-head', 'DISPUTE — judge called'),
    el('div', 'card-line', `${playerName(state, d.by)} disputes ${about || 'an event'}` + (d.reason ? `: “${d.reason}”` : '')),
  ], {seq: d.seq});
  return node;
}

// rulingCard: what the judge decided, old → new dice and their effect,
// and the judge's note.
function rulingCard(state, ev, about) {
  const p = ev.payload || {};
  const word = {amend: 'amended', void: 'voided', uphold: 'upheld'}[p.decision] || p.decision;
  const r = (ev.remarks || [])[0];
  let line = {uphold: 'it stands as played', void: 'it no longer counts'}[p.decision] || '';
  if (p.decision === 'amend') line = r?.in_force?.effect || `read as ${(p.values || p.models || []).join(' ')}`;
  const d = (state.disputes || []).find((x) => x.seq === p.dispute);
  const why = p.note ? ` (“${p.note}”)` : d?.reason ? ` (on “${d.reason}”)` : '';
  return el('div', '', [
    el('div', 'card-head', `RULING: ${word}` + (about ? ` — ${about}` : '')),
    el('div', 'card-line', line + why),
  ], {seq: ev.seq});
}

// measureCard shows what a player measured at the table (a match measured
// there, or a declaration that carried facts): its first few facts.
function measureCard(state, m) {
  const facts = (m.facts || []).slice(0, 4).map((f) => `${f.kind} ${f.from ? f.from + (f.model ? '→' + f.model : '') : f.model || ''}: ${f.value}`);
  const more = (m.facts || []).length > 4 ? ` +${m.facts.length - 4} more` : '';
  return el('div', sideOf(state, m.player), [el('div', 'card-head', `${playerName(state, m.player)} measures for ${m.for}`),
    el('div', 'card-line', facts.join(' · ') + more)], {seq: m.seq});
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
