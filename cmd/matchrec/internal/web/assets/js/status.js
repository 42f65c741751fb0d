// status.js — where the match stands: turn, phase, whose turn, and the step
// it waits for (the recorder's own words, so the page never guesses).

import {sideOf, playerName} from './sides.js';

export function renderStatus(state) {
  const byId = (id) => document.getElementById(id);
  byId('title').textContent = state.name || state.match;
  document.title = `${state.name || state.match} — matchrec`;
  byId('edition').textContent = state.edition ? `edition ${state.edition}` : '';
  byId('turn').textContent = state.turn ? `Turn ${state.turn}` : 'Setup';
  byId('phase').textContent = state.phase || '';
  const active = byId('active');
  active.textContent = state.active_player ? `${playerName(state, state.active_player)} is active` : '';
  active.className = state.active_player ? sideOf(state, state.active_player) : '';
  const p = state.pending || {};
  const pending = byId('pending');
  if (state.ended) {
    pending.textContent = state.winner ? `Match over — ${playerName(state, state.winner)} wins` : 'Match over';
  } else {
    pending.textContent = p.text || '';
  }
  pending.className = p.player ? sideOf(state, p.player) : '';
  pending.dataset.kind = p.kind || '';
}
