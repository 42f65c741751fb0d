// replay.js — the replay controls: a slider over the event numbers, step
// back and forward, play at a chosen speed, back to live. It only decides
// which event to show; the page fetches and draws it (onSeek), so the
// board in replay is the recorder's state at that event, never a guess.

export class Replay {
  constructor({onSeek, onLive}) {
    const $ = (id) => document.getElementById(id);
    this.slider = $('seek');
    this.position = $('position');
    this.playBtn = $('play');
    this.speed = $('speed');
    this.onSeek = onSeek;
    this.onLive = onLive;
    this.head = 1;
    this.at = 1;
    this.live = true;
    this.timer = null;

    this.slider.addEventListener('input', () => this.seek(Number(this.slider.value)));
    $('to-start').addEventListener('click', () => this.seek(1));
    $('back').addEventListener('click', () => this.seek(this.at - 1));
    $('forward').addEventListener('click', () => this.seek(this.at + 1));
    $('live').addEventListener('click', () => this.goLive());
    this.playBtn.addEventListener('click', () => (this.timer ? this.pause() : this.play()));
    this.speed.addEventListener('change', () => { if (this.timer) { this.pause(); this.play(); } });
  }

  // setHead tells the controls the newest event there is; live, they follow it.
  setHead(head) {
    this.head = Math.max(1, head);
    this.slider.max = String(this.head);
    if (this.live) this.at = this.head;
    this.show();
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
    this.live = true;
    this.at = this.head;
    this.show();
    this.onLive();
  }

  show() {
    this.slider.value = String(this.at);
    this.position.textContent = this.live ? `event ${this.head} (live)` : `event ${this.at} of ${this.head}`;
    document.body.dataset.mode = this.live ? 'live' : 'replay';
  }
}
