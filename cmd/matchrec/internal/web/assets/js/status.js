// status.js — where the match stands: turn, phase, whose turn, and the step
// it waits for (the recorder's own words, so the page never guesses). An
// ended match says "Final" and who won, not whose turn it is.

import {sideOf, playerName} from './sides.js';

export function renderStatus(state) {
  const byId = (id) => document.getElementById(id);
  byId('title').textContent = state.name || state.match;
  document.title = `${state.name || state.match} — matchrec`;
  byId('edition').textContent = state.edition ? `edition ${state.edition}` : '';
  byId('turn').textContent = state.turn ? `Turn ${state.turn}` : 'Setup';
  byId('phase').textContent = state.ended ? '' : state.phase || '';
  const active = byId('active');
  const pending = byId('pending');
  const p = state.pending || {};
  if (state.ended) {
    active.textContent = state.winner ? `Final — ${playerName(state, state.winner)} wins` : 'Final — no winner';
    active.className = `final ${state.winner ? sideOf(state, state.winner) : ''}`;
    pending.textContent = state.winner ? `Match over — ${playerName(state, state.winner)} wins` : 'Match over';
    pending.className = state.winner ? sideOf(state, state.winner) : '';
  } else {
    active.textContent = state.active_player ? `${playerName(state, state.active_player)} is active` : '';
    active.className = state.active_player ? sideOf(state, state.active_player) : '';
    pending.textContent = p.text || '';
    pending.className = p.player ? sideOf(state, p.player) : '';
  }
  pending.dataset.kind = p.kind || '';
  document.body.classList.toggle('ended', !!state.ended);
}
