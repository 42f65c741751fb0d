// sides.js — which colour a player plays in. The board, the tally and the
// dice all colour by side, so the rule lives in one place: the order of
// the players in the match, as the recorder keeps it.

export function sideOf(state, player) {
  const i = (state.players || []).findIndex((p) => p.id === player);
  return i < 0 ? 'side-none' : `side-${i % 4}`;
}

export function playerName(state, id) {
  const p = (state.players || []).find((p) => p.id === id);
  return (p && p.name) || id || '';
}
