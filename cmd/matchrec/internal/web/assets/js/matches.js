// matches.js — the match list: every match there is to watch (public ones
// only appear once the broadcast delay has passed their start), with links
// to the live page and the overlay. It refreshes itself.

const $ = (id) => document.getElementById(id);

async function refresh() {
  const m = $('message');
  try {
    const r = await fetch('/api/matches', {headers: {Accept: 'application/json'}});
    const body = await r.json();
    if (!r.ok) throw new Error(body?.error?.message || r.statusText);
    $('matches').tBodies[0].replaceChildren(...body.map(row));
    m.hidden = body.length > 0;
    m.textContent = body.length ? '' : 'No matches yet.';
  } catch (e) {
    m.hidden = false;
    m.textContent = `Cannot list the matches: ${e.message}`;
  }
}

function row(mt) {
  const tr = document.createElement('tr');
  tr.dataset.match = mt.id;
  const link = (href, text) => {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    return a;
  };
  const base = `/matches/${encodeURIComponent(mt.id)}`;
  const name = document.createElement('td');
  name.append(link(base, mt.name || mt.id));
  if (mt.parent) name.append(` (branch of ${mt.parent} at ${mt.at})`);
  const watch = document.createElement('td');
  watch.append(link(base, 'live'), ' · ', link(base + '?overlay=1', 'overlay'));
  tr.append(
    name,
    td(mt.edition || ''),
    td(mt.players.map((p) => p.name || p.id).join(' vs ')),
    td(String(mt.head)),
    td(new Date(mt.created).toLocaleString()),
    watch,
  );
  return tr;
}

function td(text) {
  const c = document.createElement('td');
  c.textContent = text;
  return c;
}

refresh();
setInterval(refresh, 5000);
