import {setMarks} from './marks.js';

// feed.js — the narrated events, oldest first. The page loads only the
// newest ones; older ones come a page at a time when the reader scrolls
// to the top (or asks), so a match of any length opens at once. Each
// event is shown once however often it arrives (a page load and a
// reconnect may overlap); in replay the events after the one shown are
// dimmed as "not yet". A click on an event seeks the board to it.

export class Feed {
  // loadOlder(before, to) returns a promise of the events just before seq
  // before (oldest first) — a page, or back to event to if that is
  // further — or of [] when there are none.
  constructor(ol, {onPick, loadOlder}) {
    this.ol = ol;
    this.items = new Map(); // seq → <li>
    this.current = 0;
    this.lo = 0; // the lowest seq in the list (0: none)
    this.hi = 0; // the highest
    this.loadOlder = loadOlder;
    this.loading = false;
    this.complete = false; // event 1 is in the list
    this.more = document.createElement('li');
    this.more.className = 'more';
    const btn = document.createElement('button');
    btn.type = 'button';
    btn.textContent = 'Earlier events';
    btn.addEventListener('click', () => this.older());
    this.more.append(btn);
    this.more.hidden = true;
    ol.append(this.more);
    ol.addEventListener('click', (e) => {
      const li = e.target.closest('li[data-seq]');
      if (li) onPick(Number(li.dataset.seq));
    });
    ol.addEventListener('scroll', () => {
      if (ol.scrollTop < 40) this.older();
    });
  }

  item(ev) {
    const li = document.createElement('li');
    li.dataset.seq = ev.seq;
    li.className = `ev ev-${ev.type.replace(/[^a-z0-9]+/g, '-')}`;
    li.title = 'show the board after this event';
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
    const r = ev.roll;
    if (r && r.firer) {
      // Who fired at whom (the audit's explanation of the roll); the
      // line above already says with what and what it decided.
      const t = document.createElement('span');
      t.className = 'text roll-for';
      t.textContent = `${r.firer} → ${r.target}`;
      li.append(t);
    }
    setMarks(li, ev);
    if (ev.seq > this.current && this.current) li.classList.add('future');
    return li;
  }

  // remark shows an event's new witness and marks (a remark the stream
  // sent with a confirmation, a contest, a dispute or a ruling), if the
  // feed shows the event.
  remark(r) {
    const li = this.items.get(r.seq);
    if (li) setMarks(li, r);
  }

  // add shows an event, in order.
  add(ev) {
    if (this.items.has(ev.seq)) return;
    const li = this.item(ev);
    // Events arrive in order, so appending is the rule (and cheap on a
    // long match); the search only keeps the list sorted if one does not.
    let next = null;
    if (ev.seq < this.hi) {
      let best = Infinity;
      for (const s of this.items.keys()) if (s > ev.seq && s < best) best = s;
      next = this.items.get(best);
    }
    const stick = this.atEnd();
    this.ol.insertBefore(li, next);
    this.items.set(ev.seq, li);
    this.hi = Math.max(this.hi, ev.seq);
    this.lo = this.lo ? Math.min(this.lo, ev.seq) : ev.seq;
    this.complete ||= ev.seq === 1;
    this.more.hidden = this.complete;
    if (stick) this.scrollToEnd();
  }

  // prepend shows older events (oldest first), all before the list,
  // keeping what the reader looks at where it is.
  prepend(evs) {
    const frag = document.createDocumentFragment();
    for (const ev of evs) {
      if (this.items.has(ev.seq) || (this.lo && ev.seq >= this.lo)) continue;
      const li = this.item(ev);
      frag.append(li);
      this.items.set(ev.seq, li);
    }
    if (!frag.childNodes.length) return;
    const before = this.ol.scrollHeight;
    this.ol.insertBefore(frag, this.more.nextSibling);
    this.ol.scrollTop += this.ol.scrollHeight - before;
    this.lo = Math.min(...evs.map((e) => e.seq), this.lo || Infinity);
    this.complete ||= this.lo === 1;
    this.more.hidden = this.complete;
  }

  // older loads the page of events before the first one shown.
  async older(to) {
    if (this.loading || this.complete || !this.lo) return;
    this.loading = true;
    try {
      const evs = await this.loadOlder(this.lo, to);
      if (!evs.length) this.complete = true;
      this.prepend(evs);
    } finally {
      this.loading = false;
      this.more.hidden = this.complete;
    }
  }

  // reach loads the older events back to event seq: one request (a page
  // of the API's at most), not a page of the feed at a time.
  async reach(seq) {
    while (!this.complete && this.lo > seq && !this.loading) await this.older(seq);
  }

  atEnd() {
    const ol = this.ol;
    return ol.scrollHeight - ol.scrollTop - ol.clientHeight < 24;
  }

  scrollToEnd() {
    this.ol.scrollTop = this.ol.scrollHeight;
  }

  // mark shows the board is at event seq: the events after it are dimmed.
  // Only the events between the old and the new mark change, so a live
  // match of any length costs the same per event.
  mark(seq) {
    const old = this.current || this.hi;
    this.current = seq;
    const [a, b] = old < seq ? [old, seq] : [seq, old];
    if (b - a > this.items.size) {
      for (const [s, li] of this.items) li.classList.toggle('future', s > seq);
    } else {
      for (let s = a + 1; s <= b; s++) this.items.get(s)?.classList.toggle('future', s > seq);
    }
    this.ol.querySelector('li.current')?.classList.remove('current');
    const cur = this.items.get(seq);
    if (!cur) return;
    cur.classList.add('current');
    // Scroll the list alone (scrollIntoView would scroll the page too,
    // moving the whole layout in a stream).
    const top = cur.offsetTop;
    const ol = this.ol;
    if (top < ol.scrollTop || top + cur.offsetHeight > ol.scrollTop + ol.clientHeight) {
      ol.scrollTop = Math.max(0, top - ol.clientHeight + cur.offsetHeight + 8);
    }
  }
}
