// match.js — the match page: wires the API, the live stream and the
// replay controls to the views (board, dice, tally, status, feed, judge).
// One page serves live viewers, replay and, with ?overlay=bar|cards|full,
// the streaming overlay.
//
// It opens at once on a match of any length: the board now (a seek from
// the nearest snapshot), the last events of the feed and the turn marks,
// then the live stream from the event after the board; older events load
// when the reader scrolls back.

import {matchId, table, setMatch, tableMatch, overlay, judge, deepLink, dropTokenFragment, loginURL, apiURL, getJSON} from './api.js';
import {renderBoard} from './board.js';
import {renderRoll} from './dice.js';
import {renderTally} from './tally.js';
import {renderStatus} from './status.js';
import {renderJudge} from './judge.js';
import {renderFacts} from './facts.js';
import {Feed} from './feed.js';
import {Overlay} from './overlay.js';
import {follow} from './stream.js';
import {Replay} from './replay.js';
import {sideOf} from './sides.js';

const $ = (id) => document.getElementById(id);
const FEED_PAGE = 100;  // events a feed page holds
const API_PAGE = 5000;  // the most events /events gives at once
const TABLE_POLL_MS = 2000; // how often a table's page looks for a new match on it

// Tests and the latency measurement read when each event's board was
// drawn (Date.now() per seq), when the page first showed a board and when
// it was ready (the feed's last page and the turn marks in): each
// performance.now(), from the start of the page's navigation.
window.__mr = {rendered: {}, firstDraw: 0, ready: 0};

// rolls are the rolls' event views the page has (seq → event): what each
// roll was for and decided, for the roll panel.
const rolls = new Map();
function keepRoll(ev) {
  if (ev.roll) rolls.set(ev.seq, ev);
}

const feed = new Feed($('feed'), {
  onPick: (seq) => replay.seek(seq),
  loadOlder: async (before, to) => {
    if (before <= 1) return [];
    const from = Math.max(1, before - API_PAGE, Math.min(before - FEED_PAGE, to ?? before));
    const page = await getJSON(apiURL('events', {from, limit: before - from}));
    page.events.forEach(keepRoll);
    return page.events;
  },
});
const ov = overlay ? new Overlay(overlay) : null;

let liveState = null; // the newest board the stream gave
let seekCount = 0;    // stale replay answers are dropped by this number

// shareAt puts the replay position in the address (?at=SEQ), so the
// moment can be shared; live, the address has none.
function shareAt(seq) {
  const u = new URL(location.href);
  if (seq) u.searchParams.set('at', String(seq));
  else u.searchParams.delete('at');
  if (u.href !== location.href) history.replaceState(null, '', u);
}

const replay = new Replay({
  onSeek: async (seq) => {
    const n = ++seekCount;
    if (!overlay) shareAt(seq);
    try {
      const r = await getJSON(apiURL('state', {at: seq}));
      if (n === seekCount && !replay.live) draw(r.state);
      if (!overlay) await feed.reach(seq).then(() => n === seekCount && !replay.live && feed.mark(seq));
    } catch (e) {
      message(e.message);
    }
  },
  onLive: () => {
    seekCount++;
    if (!overlay) shareAt(0);
    if (liveState) draw(liveState);
  },
});

function draw(state) {
  if (ov) {
    ov.draw(state);
  } else {
    renderStatus(state);
    drawRoll(state);
    renderTally($('tally'), state);
    renderBoard($('board'), state);
    renderFacts($('measure-panel'), $('measured'), state);
    if (judge) renderJudge($('judge'), state);
    feed.mark(state.seq);
  }
  replay.setEnded(!!liveState?.ended);
  document.body.dataset.seq = state.seq;
  window.__mr.rendered[state.seq] = Date.now();
  window.__mr.firstDraw ||= performance.now();
}

// drawRoll shows the state's last roll with its event view; one the page
// does not have yet (a replay far back, the first board) is asked for.
function drawRoll(state) {
  const seq = state.last_roll?.seq;
  renderRoll($('roll-head'), $('dice'), state, rolls.get(seq));
  if (seq && !rolls.has(seq)) {
    getJSON(apiURL('events', {from: seq, limit: 1})).then((p) => {
      p.events.forEach(keepRoll);
      if (rolls.has(seq) && $('dice').dataset.seq === String(seq)) renderRoll($('roll-head'), $('dice'), state, rolls.get(seq));
    }).catch(() => {});
  }
}

function message(text) {
  const m = $('message');
  m.textContent = text || '';
  m.hidden = !text;
}

function connState(s) {
  const c = $('conn');
  c.textContent = s;
  c.dataset.state = s;
}

// feedStatus shows the hub's word on the feed: paused when the bus copy
// differs from the record (nothing unverified is ever shown), stalled
// when the bus cannot be reached.
function feedStatus(st) {
  const el = $('feed-status');
  el.textContent = st.state === 'ok' ? '' : st.message || st.state;
  el.hidden = st.state === 'ok';
  el.dataset.state = st.state;
  document.body.dataset.feed = st.state;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// firstState waits for the match: a streamer opens the page before the
// match is created, or before the broadcast delay has made it public.
async function firstState() {
  for (;;) {
    try {
      return await getJSON(apiURL('state'));
    } catch (e) {
      if (e.status === 401 && judge) {
        message('The judge view needs the judge login: ');
        const a = document.createElement('a');
        a.href = loginURL();
        a.textContent = 'log in';
        $('message').append(a);
        await sleep(5000);
        continue;
      }
      if (e.status === 404) message(`Waiting for match ${matchId}…`);
      else message(e.message);
      await sleep(e.status === 404 ? 2000 : 5000);
    }
  }
}

function header(r) {
  const view = $('view-badge');
  if (judge) {
    view.textContent = 'judge view — no delay';
    view.dataset.view = 'judge';
    $('judge-panel').hidden = false;
    const out = $('logout');
    out.action = `/matches/${encodeURIComponent(matchId)}/logout`;
    out.hidden = false;
  } else {
    if (r.delay_ms > 0) {
      view.textContent = `delayed ${Math.round(r.delay_ms / 1000)} s`;
      view.dataset.view = 'delayed';
    }
    const a = $('judge-link');
    a.href = loginURL();
    a.hidden = false;
  }
}

// followTable finds the match live on the page's venue table, waiting for
// one, then watches the table: when a new match goes live there the page
// switches to it (a reload: the page starts over on the table's URL).
async function followTable() {
  for (;;) {
    const id = await tableMatch(table).catch(() => '');
    if (id) {
      setMatch(id);
      break;
    }
    message(`Waiting for a match on table ${table}…`);
    await sleep(2000);
  }
  setInterval(async () => {
    const id = await tableMatch(table).catch(() => '');
    if (id && id !== matchId) location.reload();
  }, TABLE_POLL_MS);
}

async function start() {
  const dropped = dropTokenFragment();
  if (table) await followTable();
  const r = await firstState();
  message(dropped ? 'Judges log in on the judge login page now: a token no longer goes in the address.' : '');
  header(r);
  liveState = r.state;
  replay.setHead(r.head);
  const pages = [];
  if (!overlay) {
    pages.push(getJSON(apiURL('events', {limit: FEED_PAGE})).then((p) => {
      for (const ev of p.events) {
        keepRoll(ev);
        feed.add(ev);
      }
      if (replay.live && liveState) drawRoll(liveState);
    }));
    pages.push(getJSON(apiURL('turns')).then((t) => replay.setTurns(t.turns, (player) => sideOf(liveState, player))));
  }
  draw(r.state);
  await Promise.all(pages).catch((e) => message(e.message));
  feed.mark(r.state.seq);
  feed.scrollToEnd();
  window.__mr.ready = performance.now();
  if (deepLink) replay.seek(deepLink);
  follow(apiURL('stream'), r.state.seq + 1, {
    onMessage: (m) => {
      keepRoll(m.event);
      if (ov) ov.event(m.event);
      if (!overlay) {
        feed.add(m.event);
        for (const r of m.event.remarks || []) feed.remark(r);
      }
      if (m.event.type === 'turn.started') replay.addTurn({turn: m.event.payload.turn, player: m.event.payload.player, seq: m.event.seq});
      replay.setHead(m.event.seq);
      if (document.body.dataset.feed && document.body.dataset.feed !== 'ok') feedStatus({state: 'ok'});
      if (m.state) {
        liveState = m.state;
        if (replay.live) draw(m.state);
      }
    },
    onStatus: connState,
    onFeed: feedStatus,
  });
}

start().catch((e) => message(e.message));
