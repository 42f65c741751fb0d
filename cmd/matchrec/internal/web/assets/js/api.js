// api.js — the page's only way to the server: JSON over fetch. Every URL
// the page uses is built here, so the judge view (?view=judge) reaches
// every request or none. The judge logs in on /matches/ID/judge (a form:
// the token never appears in an address); the server then knows this
// browser by an HttpOnly session cookie, which counts only on requests
// that ask for the judge view.

const params = new URLSearchParams(location.search);

// The match id is the path's last part: /matches/ID.
export const matchId = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');

// overlay is the overlay variant (bar, cards or full), or '' for the
// page itself. The server has already put its classes on <body>.
const kinds = {bar: 'bar', cards: 'cards', full: 'full', 1: 'full'};
export const overlay = kinds[params.get('overlay')] || '';

// judge is true when the page asks for the judge view.
export const judge = params.get('view') === 'judge';

// deepLink is the event ?at= asks the page to open at (0: live).
export const deepLink = /^[1-9][0-9]*$/.test(params.get('at') || '') ? Number(params.get('at')) : 0;

// dropTokenFragment removes a #judge=TOKEN left by an old judge link
// from the address at once, so it cannot linger on a screen being
// streamed, and says where the judge logs in now.
export function dropTokenFragment() {
  if (!/judge=/.test(location.hash)) return false;
  history.replaceState(null, '', location.pathname + location.search);
  return true;
}

export const loginURL = `/matches/${encodeURIComponent(matchId)}/judge`;

// apiURL is the URL of one of the match's endpoints (state, events,
// turns, stream) with the given query.
export function apiURL(endpoint, query = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
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
