// marks.js — the judge's marks on an event, wherever the pages show it
// (the README's promise): a physical roll's witness — unconfirmed,
// confirmed, CONTESTED by Bob: …, or once a ruling after the contest
// settled it, contested by Bob: …; settled by ruling N — and under it the
// ruling in force (AMENDED … old → new, VOIDED …), the rulings it replaced,
// a dispute with no ruling yet, DISCARDED as ruled. The server words them
// (the same lines as `matchrec log`); this only shows them, as text.

// kindOf is a mark's class: what the mark says happened.
export function kindOf(mark) {
  if (mark.startsWith('AMENDED')) return 'amended';
  if (mark.startsWith('VOIDED')) return 'voided';
  if (mark.startsWith('DISCARDED')) return 'discarded';
  if (mark.startsWith('DISPUTED')) return 'disputed';
  if (mark.startsWith('replaced')) return 'replaced';
  return 'note';
}

// witnessKind is a witness state's class.
function witnessKind(w) {
  if (w.startsWith('CONTESTED')) return 'contested';
  if (w.startsWith('contested')) return 'settled';
  return w; // unconfirmed, confirmed
}

// markNodes are the elements that show ev's witness and marks (ev: an
// event or a remark of one): a witness badge, then one line per mark.
export function markNodes(ev) {
  const out = [];
  if (ev.witness) {
    const w = document.createElement('span');
    w.className = `witness witness-${witnessKind(ev.witness)}`;
    w.textContent = ev.witness;
    out.push(w);
  }
  for (const m of ev.marks || []) {
    const s = document.createElement('span');
    s.className = `mark mark-${kindOf(m)}`;
    s.textContent = '! ' + m;
    out.push(s);
  }
  return out;
}

// setMarks shows ev's witness and marks on el, replacing those it showed,
// and says on el which kinds it has (data-marks) for the styles and tests.
export function setMarks(el, ev) {
  for (const old of el.querySelectorAll(':scope > .witness, :scope > .mark')) old.remove();
  el.append(...markNodes(ev));
  const kinds = (ev.marks || []).map(kindOf);
  if (ev.witness) kinds.unshift('witness-' + witnessKind(ev.witness));
  el.dataset.marks = kinds.join(' ');
}
