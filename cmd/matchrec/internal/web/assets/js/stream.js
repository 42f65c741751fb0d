// stream.js — live events by Server-Sent Events. On a dropped connection
// EventSource reconnects by itself and sends the last id it saw
// (Last-Event-ID), so the server resumes right after it; the page still
// drops any seq it already has, so nothing is shown twice.

export function follow(url, from, {onMessage, onStatus}) {
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
    es.addEventListener('feed-error', (m) => onStatus('error', JSON.parse(m.data).message));
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

  open();
  return () => {
    clearTimeout(retry);
    es.close();
  };
}
