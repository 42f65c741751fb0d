// api.js — the page's only way to the server: JSON over fetch, and the
// judge view's credentials. Every URL the page uses is built here, so the
// judge view (?view=judge) reaches every request or none.

const params = new URLSearchParams(location.search);

// The match id is the path's last part: /matches/ID.
export const matchId = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');

export const overlay = params.get('overlay') === '1';

// judge is true once the server accepted the judge's token for this page.
export let judge = params.get('view') === 'judge';

// enterJudgeView trades a #judge=TOKEN fragment for the judge cookie. The
// fragment never reaches the server (nor its logs); the token is removed
// from the address bar at once, whatever the answer, so it cannot linger
// on a screen being streamed.
export async function enterJudgeView() {
  const m = /(?:^#|&)judge=([^&]+)/.exec(location.hash);
  if (!m) return;
  const token = decodeURIComponent(m[1]);
  const r = await fetch(`/api/matches/${encodeURIComponent(matchId)}/judge`, {
    method: 'POST', headers: {Authorization: 'Bearer ' + token},
  });
  if (r.ok) params.set('view', 'judge');
  // (toString, not .size: OBS's built-in browser can be an older Chromium.)
  const query = params.toString();
  history.replaceState(null, '', location.pathname + (query ? '?' + query : ''));
  if (!r.ok) throw await apiError(r);
  judge = true;
}

// apiURL is the URL of one of the match's endpoints (state, events,
// stream) with the given query.
export function apiURL(endpoint, query = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null) q.set(k, String(v));
  }
  if (judge) q.set('view', 'judge');
  const qs = q.toString();
  return `/api/matches/${encodeURIComponent(matchId)}/${endpoint}` + (qs ? '?' + qs : '');
}

// getJSON fetches a JSON answer; an error answer becomes an Error with the
// API's status and code, so callers can tell "not yet" from "broken".
export async function getJSON(url) {
  const r = await fetch(url, {headers: {Accept: 'application/json'}});
  if (!r.ok) throw await apiError(r);
  return r.json();
}

async function apiError(r) {
  let body = null;
  try { body = await r.json(); } catch { /* not JSON: keep the status text */ }
  const e = new Error(body?.error?.message || `${r.status} ${r.statusText}`);
  e.status = r.status;
  e.code = body?.error?.code || '';
  return e;
}
