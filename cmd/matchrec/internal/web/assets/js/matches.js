// matches.js — the match list, from the recorder's match index: live or
// ended, the winner, the last played first; filters and pages. It stays
// current cheaply: every few seconds it asks only for the matches changed
// since the index revision it has (?since=), never for the whole list.

const $ = (id) => document.getElementById(id);
const form = $('filters');
const rows = new Map(); // match id → <tr>
let rev = 0;
let next = '';
let generation = 0; // a newer load makes answers to older ones stale

function filters() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v) q.set(k, String(v));
  return q;
}

async function get(q) {
  const r = await fetch('/api/matches?' + q.toString(), {headers: {Accept: 'application/json'}});
  const body = await r.json();
  if (!r.ok) throw new Error(body?.error?.message || r.statusText);
  return body;
}

function say(text) {
  const m = $('message');
  m.textContent = text || '';
  m.hidden = !text;
}

// load lists the first page of the current filters (or, with more, the next).
async function load(more = false) {
  const gen = more ? generation : ++generation;
  const q = filters();
  if (more) q.set('cursor', next);
  try {
    const page = await get(q);
    if (gen !== generation) return;
    if (!more) {
      rows.clear();
      $('matches').tBodies[0].replaceChildren();
      rev = page.rev;
    }
    for (const mt of page.matches) put(mt, false);
    next = page.next || '';
    $('more').hidden = !next;
    say(rows.size ? '' : 'No matches yet.');
  } catch (e) {
    say(`Cannot list the matches: ${e.message}`);
  }
}

// refresh asks for what changed since rev: the changed matches that pass
// the filters are updated or put on top; the changed ones that no longer
// pass leave the list.
async function refresh() {
  const gen = generation;
  try {
    const q = filters();
    q.delete('sort');
    const changedAll = new Set();
    const passing = [];
    let newRev = rev;
    for (const withFilters of [true, false]) {
      const base = withFilters ? new URLSearchParams(q) : new URLSearchParams();
      base.set('since', String(rev));
      for (let cursor = '', pages = 0; pages < 20; pages++) {
        if (cursor) base.set('cursor', cursor);
        const page = await get(base);
        for (const mt of page.matches) (withFilters ? passing.push(mt) : changedAll.add(mt.id));
        newRev = page.rev;
        if (!page.next) break;
        cursor = page.next;
      }
    }
    if (gen !== generation) return;
    const keep = new Set(passing.map((m) => m.id));
    for (const id of changedAll) {
      if (keep.has(id)) continue;
      rows.get(id)?.remove();
      rows.delete(id);
    }
    for (const mt of passing) put(mt, true);
    rev = newRev;
    say(rows.size ? '' : 'No matches yet.');
  } catch (e) {
    say(`Cannot refresh the matches: ${e.message}`);
  }
}

// put shows a match: in place if listed, else at the end of a page or,
// when it changed while watched, at the top (the list runs newest first).
function put(mt, changed) {
  const tr = row(mt);
  const old = rows.get(mt.id);
  const body = $('matches').tBodies[0];
  if (old && !(changed && form.elements.sort.value === 'updated')) {
    old.replaceWith(tr);
  } else {
    old?.remove();
    if (changed) body.prepend(tr);
    else body.append(tr);
  }
  rows.set(mt.id, tr);
}

function row(mt) {
  const tr = document.createElement('tr');
  tr.dataset.match = mt.id;
  tr.dataset.status = mt.status;
  const link = (href, text) => {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    return a;
  };
  const base = `/matches/${encodeURIComponent(mt.id)}`;
  const name = document.createElement('td');
  name.append(link(base, mt.name || mt.id));
  // The id too: two matches of one name (a league's rounds) are told apart.
  const id = document.createElement('code');
  id.className = 'match-id';
  id.textContent = mt.id;
  name.append(' ', id);
  if (mt.parent) name.append(` (branch of ${mt.parent} at ${mt.at})`);
  const players = mt.players || [];
  const who = (id) => players.find((p) => p.id === id)?.name || id;
  const status = td(mt.status === 'ended' ? 'Final' : '● live');
  status.className = `status ${mt.status}`;
  const plist = td(players.map((p) => p.name || p.id).join(' vs '));
  plist.title = players.map((p) => `${p.name || p.id}: ${(p.army || []).join(', ')}`).join('\n');
  const watch = document.createElement('td');
  watch.append(link(base, 'live'), ' · ', link(base + '?overlay=full', 'overlay'));
  if (mt.table) {
    // The table's own overlay follows whatever match is live on it.
    watch.append(' · ', link(`/tables/${mt.table}/overlay`, `table ${mt.table} overlay`));
  }
  tr.dataset.table = mt.table || '';
  tr.append(
    name,
    td(mt.table ? String(mt.table) : ''),
    status,
    td(mt.status === 'ended' ? (mt.winner ? who(mt.winner) : 'none') : ''),
    plist,
    td(mt.edition || ''),
    td(String(mt.head)),
    td(new Date(mt.updated / 1e6).toLocaleString()),
    watch,
  );
  return tr;
}

function td(text) {
  const c = document.createElement('td');
  c.textContent = text;
  return c;
}

let typing = null;
form.addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(() => load(), 250);
});
form.addEventListener('submit', (e) => e.preventDefault());
$('more').addEventListener('click', () => load(true));
load();
setInterval(refresh, 5000);
