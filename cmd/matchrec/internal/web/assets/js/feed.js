// feed.js — the narrated events, oldest first. Each event is shown once
// however often it arrives (a page load and a reconnect may overlap); in
// replay the events after the one shown are dimmed as "not yet".

export class Feed {
  constructor(ol) {
    this.ol = ol;
    this.items = new Map(); // seq → <li>
    this.current = 0;
    this.last = 0; // the highest seq in the list
  }

  add(ev) {
    if (this.items.has(ev.seq)) return;
    const li = document.createElement('li');
    li.dataset.seq = ev.seq;
    li.className = `ev ev-${ev.type.replace(/[^a-z0-9]+/g, '-')}`;
    const n = document.createElement('span');
    n.className = 'seq';
    n.textContent = ev.seq;
    li.append(n);
    for (const line of ev.text.split('\n')) {
      const t = document.createElement('span');
      t.className = 'text';
      t.textContent = line;
      li.append(t);
    }
    if (ev.seq > this.current) li.classList.add('future');
    // Events arrive in order, so appending is the rule (and cheap on a
    // long match); the search only keeps the list sorted if one does not.
    let next = null;
    if (ev.seq < this.last) {
      const after = [...this.items.keys()].filter((s) => s > ev.seq);
      next = this.items.get(Math.min(...after));
    }
    this.ol.insertBefore(li, next);
    this.items.set(ev.seq, li);
    this.last = Math.max(this.last, ev.seq);
  }

  // mark shows the board is at event seq.
  mark(seq) {
    this.current = seq;
    let cur = null;
    for (const [s, li] of this.items) {
      li.classList.toggle('future', s > seq);
      li.classList.toggle('current', s === seq);
      if (s === seq) cur = li;
    }
    // Scroll the list alone (scrollIntoView would scroll the page too,
    // moving the whole layout in a stream).
    if (cur) {
      const top = cur.offsetTop;
      const ol = this.ol;
      if (top < ol.scrollTop || top + cur.offsetHeight > ol.scrollTop + ol.clientHeight) {
        ol.scrollTop = Math.max(0, top - ol.clientHeight + cur.offsetHeight + 8);
      }
    }
  }
}
