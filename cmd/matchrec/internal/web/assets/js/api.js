// api.js — the page's only way to the server: JSON over fetch. Every URL
// the page uses is built here, so the judge view (?view=judge) reaches
// every request or none. The judge logs in on /matches/ID/judge (a form:
// the token never appears in an address); the server then knows this
// browser by an HttpOnly session cookie, which counts only on requests
// that ask for the judge view.

const params = new URLSearchParams(location.search);

const path = location.pathname.split('/').filter(Boolean);

// table is the venue's table a /tables/N page follows (0: a match's own
// page, /matches/ID). Such a page finds its match with tableMatch.
export const table = path[0] === 'tables' ? Number(path[1]) || 0 : 0;

// matchId is the match the page shows: the path's /matches/ID, or the one
// a table's page found (setMatch).
export let matchId = path[0] === 'matches' ? decodeURIComponent(path[1] || '') : '';

export function setMatch(id) {
  matchId = id;
  document.body.dataset.match = id;
}
if (matchId) document.body.dataset.match = matchId;

// overlay is the overlay variant (bar, cards or full), or '' for the
// page itself. The server has already put its classes on <body> (a
// table's /overlay page is the full overlay without a query).
const kinds = {bar: 'bar', cards: 'cards', full: 'full', 1: 'full'};
export const overlay = kinds[params.get('overlay')] ||
  ['bar', 'cards', 'full'].find((k) => document.body.classList.contains('overlay-' + k)) || '';

// tableMatch is the match live on venue table n — the newest created of
// those live there — or, when none is, the one played there last; '' when
// the table has had none.
export async function tableMatch(n) {
  for (const q of [`table=${n}&status=live&sort=created&limit=1`, `table=${n}&limit=1`]) {
    const page = await getJSON('/api/matches?' + q);
    if (page.matches.length) return page.matches[0].id;
  }
  return '';
}

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

export const loginURL = () => `/matches/${encodeURIComponent(matchId)}/judge`;

// after is the event ?after= says the reader saw recorded (0: none): a
// match's page passes it on with every request about its match, so a
// recorder of a cluster whose copy lacks it answers "ask again" rather
// than show an older match (read-your-writes).
const after = !table && /^[1-9][0-9]*$/.test(params.get('after') || '') ? params.get('after') : '';

// apiURL is the URL of one of the match's endpoints (state, events,
// turns, stream) with the given query.
export function apiURL(endpoint, query = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  if (judge) q.set('view', 'judge');
  if (after) q.set('after', after);
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
