// replay.js — the replay controls: a slider over the event numbers with
// a mark where each turn starts, step back and forward (the arrow keys
// too), play at a chosen speed, back to live. It only decides which event
// to show; the page fetches and draws it (onSeek), so the board in replay
// is the recorder's state at that event, never a guess.

const MARK_GAP = 26; // px between turn marks, at least

export class Replay {
  constructor({onSeek, onLive}) {
    const $ = (id) => document.getElementById(id);
    this.slider = $('seek');
    this.marks = $('turn-marks');
    this.position = $('position');
    this.playBtn = $('play');
    this.liveBtn = $('live');
    this.speed = $('speed');
    this.onSeek = onSeek;
    this.onLive = onLive;
    this.head = 1;
    this.at = 1;
    this.live = true;
    this.ended = false;
    this.timer = null;
    this.turns = [];

    this.slider.addEventListener('input', () => this.seek(Number(this.slider.value)));
    this.marks.addEventListener('click', (e) => {
      const m = e.target.closest('.turn-mark');
      if (m) this.seek(Number(m.dataset.seq));
    });
    $('to-start').addEventListener('click', () => this.seek(1));
    $('back').addEventListener('click', () => this.step(-1));
    $('forward').addEventListener('click', () => this.step(1));
    this.liveBtn.addEventListener('click', () => this.goLive());
    this.playBtn.addEventListener('click', () => (this.timer ? this.pause() : this.play()));
    this.speed.addEventListener('change', () => { if (this.timer) { this.pause(); this.play(); } });
    // Arrow keys step, Home and End jump; not while typing in a field.
    document.addEventListener('keydown', (e) => {
      if (e.target.closest('input:not([type=range]), select, textarea') || e.altKey || e.ctrlKey || e.metaKey) return;
      const moves = {ArrowLeft: () => this.step(-1), ArrowRight: () => this.step(1), Home: () => this.seek(1), End: () => this.goLive()};
      if (moves[e.key]) {
        e.preventDefault();
        moves[e.key]();
      }
    });
  }

  step(by) {
    this.seek((this.live ? this.head : this.at) + by);
  }

  // setHead tells the controls the newest event there is; live, they follow it.
  setHead(head) {
    this.head = Math.max(1, head);
    this.slider.max = String(this.head);
    if (this.live) this.at = this.head;
    this.drawMarks();
    this.show();
  }

  // setEnded says the match is over: its last event is "Final", not live.
  setEnded(ended) {
    this.ended = ended;
    this.show();
  }

  // setTurns places a mark on the slider where each turn starts; side
  // gives a turn's colour class.
  setTurns(turns, side) {
    this.side = side;
    this.turns = turns;
    this.drawMarks();
  }

  addTurn(turn) {
    if (!this.turns.length || this.turns[this.turns.length - 1].seq < turn.seq) this.turns.push(turn);
    this.drawMarks();
  }

  // drawMarks redraws the turn marks, at most once a frame, and only as
  // many as fit: a mark at least MARK_GAP px from the one before, so a
  // long match shows every n-th turn instead of a smear of thousands.
  drawMarks() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      const span = Math.max(1, this.head - 1);
      const width = Math.max(1, this.marks.clientWidth - 16);
      let last = -Infinity;
      const shown = [];
      for (const t of this.turns) {
        if (t.seq > this.head) break;
        const x = ((t.seq - 1) / span) * width;
        if (x - last < MARK_GAP) continue;
        last = x;
        shown.push(t);
      }
      this.marks.replaceChildren(...shown.map((t) => {
        const m = document.createElement('button');
        m.type = 'button';
        m.className = `turn-mark ${this.side ? this.side(t.player) : ''}`;
        m.textContent = `T${t.turn}`;
        m.title = `turn ${t.turn} starts (event ${t.seq})`;
        m.dataset.seq = t.seq;
        // The thumb's centre runs from half a thumb in to half a thumb
        // short of each end (CSSOM: allowed by the page's policy).
        m.style.left = `calc(8px + (100% - 16px) * ${(t.seq - 1) / span})`;
        return m;
      }));
    });
  }

  seek(seq) {
    seq = Math.max(1, Math.min(this.head, seq));
    if (seq === this.head && !this.timer) {
      // The end of the slider is the live board.
      this.goLive();
      return;
    }
    this.live = false;
    this.at = seq;
    this.show();
    this.onSeek(seq);
  }

  play() {
    if (this.live) this.seek(1); // playing from live replays from the start
    const ms = 1000 / Number(this.speed.value || 1);
    this.timer = setInterval(() => {
      if (this.at >= this.head) {
        this.pause();
        this.goLive();
        return;
      }
      this.seek(this.at + 1);
    }, ms);
    this.playBtn.textContent = 'Pause';
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.playBtn.textContent = 'Play';
  }

  goLive() {
    this.pause();
    const was = this.live;
    this.live = true;
    this.at = this.head;
    this.show();
    if (!was) this.onLive();
  }

  show() {
    this.slider.value = String(this.at);
    const end = this.ended ? 'final' : 'live';
    this.position.textContent = this.live ? `event ${this.head} (${end})` : `event ${this.at} of ${this.head}`;
    this.liveBtn.textContent = this.ended ? 'Final' : '● Live';
    document.body.dataset.mode = this.live ? 'live' : 'replay';
  }
}
