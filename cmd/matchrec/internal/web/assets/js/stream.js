// stream.js — live events by Server-Sent Events. On a dropped connection
// (or when the server drops a page too slow to keep up) EventSource
// reconnects by itself and sends the last id it saw (Last-Event-ID), so
// the server resumes right after it; the page still drops any seq it
// already has, so nothing is shown twice.

export function follow(url, from, {onMessage, onStatus, onFeed}) {
  let last = from - 1;
  let es = null;
  let retry = null;

  function open() {
    const u = new URL(url, location.href);
    u.searchParams.set('from', String(last + 1));
    es = new EventSource(u);
    es.onopen = () => onStatus('connected');
    es.onmessage = (m) => {
      const d = JSON.parse(m.data);
      if (d.event.seq <= last) return;
      last = d.event.seq;
      onMessage(d);
    };
    // The hub's word on its feed: ok, paused (the bus copy differs from
    // the record: nothing unverified is ever sent) or stalled.
    es.addEventListener('feed-status', (m) => onFeed(JSON.parse(m.data)));
    es.onerror = () => {
      if (es.readyState !== EventSource.CLOSED) {
        onStatus('reconnecting');
        return;
      }
      // An error answer (not a dropped connection) closes EventSource for
      // good: open a new one later, from where the page is.
      onStatus('offline');
      retry = setTimeout(open, 3000);
    };
  }

  // A page left for another is kept alive by the browser for a while
  // (the back/forward cache) with its connections open: a browser allows
  // only six to a server, so close the stream when the page is hidden and
  // open it again, from where it was, if the page comes back.
  window.addEventListener('pagehide', () => {
    clearTimeout(retry);
    es.close();
  });
  window.addEventListener('pageshow', (e) => {
    if (e.persisted) open();
  });

  open();
  return () => {
    clearTimeout(retry);
    es.close();
  };
}
