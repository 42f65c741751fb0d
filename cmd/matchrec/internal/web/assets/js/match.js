// match.js — the match page: wires the API, the live stream and the
// replay controls to the views (board, dice, tally, status, feed). One
// page serves live viewers, replay and, with ?overlay=1, the streaming
// overlay (which shows only the pending step, the last roll and the tally).

// judge is a live binding: enterJudgeView may turn it on.
import {matchId, overlay, judge, enterJudgeView, apiURL, getJSON} from './api.js';
import {renderBoard} from './board.js';
import {renderRoll} from './dice.js';
import {renderTally} from './tally.js';
import {renderStatus} from './status.js';
import {Feed} from './feed.js';
import {follow} from './stream.js';
import {Replay} from './replay.js';

const $ = (id) => document.getElementById(id);
const feed = new Feed($('feed'));

// Tests and the latency measurement read when each event's board was
// drawn (Date.now() per seq).
window.__mr = {rendered: {}};

let liveState = null; // the newest board the stream gave
let seekCount = 0;    // stale replay answers are dropped by this number

const replay = new Replay({
  onSeek: async (seq) => {
    const n = ++seekCount;
    try {
      const r = await getJSON(apiURL('state', {at: seq}));
      if (n === seekCount && !replay.live) draw(r.state);
    } catch (e) {
      message(e.message);
    }
  },
  onLive: () => {
    seekCount++;
    if (liveState) draw(liveState);
  },
});

function draw(state) {
  renderStatus(state);
  renderRoll($('roll-head'), $('dice'), state);
  renderTally($('tally'), state);
  if (!overlay) {
    renderBoard($('board'), state);
    feed.mark(state.seq);
  }
  document.body.dataset.seq = state.seq;
  window.__mr.rendered[state.seq] = Date.now();
}

function message(text) {
  const m = $('message');
  m.textContent = text || '';
  m.hidden = !text;
}

function connState(s, detail) {
  const c = $('conn');
  c.textContent = s === 'error' ? `feed error: ${detail}` : s;
  c.dataset.state = s;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// firstState waits for the match: a streamer opens the page before the
// match is created, or before the broadcast delay has made it public.
async function firstState() {
  for (;;) {
    try {
      return await getJSON(apiURL('state'));
    } catch (e) {
      if (e.status === 404) message(`Waiting for match ${matchId}…`);
      else message(e.message);
      await sleep(e.status === 404 ? 2000 : 5000);
    }
  }
}

// loadFeed reads the narrated history page by page.
async function loadFeed(upTo) {
  let from = 1;
  while (from && from <= upTo) {
    const page = await getJSON(apiURL('events', {from}));
    for (const ev of page.events) feed.add(ev);
    from = page.next || 0;
  }
}

async function start() {
  document.body.classList.toggle('overlay', overlay);
  try {
    await enterJudgeView();
  } catch (e) {
    message(`Judge view refused: ${e.message}. Showing the public view.`);
  }
  const r = await firstState();
  message('');
  const view = $('view-badge');
  if (judge) {
    view.textContent = 'judge view — no delay';
    view.dataset.view = 'judge';
  } else if (r.delay_ms > 0) {
    view.textContent = `delayed ${Math.round(r.delay_ms / 1000)} s`;
    view.dataset.view = 'delayed';
  }
  liveState = r.state;
  replay.setHead(r.head);
  draw(r.state);
  if (!overlay) await loadFeed(r.state.seq);
  follow(apiURL('stream'), r.state.seq + 1, {
    onMessage: (m) => {
      feed.add(m.event);
      replay.setHead(m.event.seq);
      if (m.state) {
        liveState = m.state;
        if (replay.live) draw(m.state);
      }
    },
    onStatus: connState,
  });
}

start().catch((e) => message(e.message));
