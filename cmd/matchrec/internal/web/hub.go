package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/natsbus"
)

// A hub is one watched match: however many viewers it has, it holds one
// subscription to the match's subject on the bus, narrates each new event
// once, encodes its board once, and keeps the last Config.Ring events as
// ready-made SSE frames that every viewer's stream copies from. A viewer
// costs a write per burst, never a fold; one that falls further behind
// than the ring holds is dropped, and its browser resumes from the store
// with Last-Event-ID.
//
// Every event from the bus is checked against the store before anyone
// sees it: it must chain from the hub's head and be the very record the
// recorder wrote at its sequence. One that is not pauses the feed
// ("the bus copy differs from the record"): nothing the recorder did not
// write is ever shown.
//
// With a broadcast delay the hub also releases each event to its public
// viewers at its release time (visibility.release), keeping the board at
// the public head by a second narrator that trails the first.
type hub struct {
	hs     *hubs
	s      *Server
	id     string
	ctx    context.Context
	cancel context.CancelFunc
	ready  chan struct{} // closed once seeded; startErr says how
	// startErr is set before ready closes and never after.
	startErr error
	refs     int         // viewers joined (hubs.mu)
	linger   *time.Timer // closes the hub when it stays without viewers (hubs.mu)

	// The follower's own: the narrator at the head.
	nar *replay.Narrator

	// mu guards what follows; the viewers' pulls only read it, so a
	// burst of hundreds of them shares the read lock.
	mu          sync.RWMutex
	ring        []*item // contiguous sequence numbers, ring[0] the oldest
	head        uint64  // the last event in the ring
	headHash    events.Hash
	headFinal   []byte // the frame of event head with its board
	public      uint64 // the last event released to public viewers
	publicFinal []byte // the frame of event public with its board at it
	viewers     map[*viewer]struct{}
	status      feedStatus
	kick        chan struct{} // wakes the releaser: an event was added
}

// item is one event as its viewers get it.
type item struct {
	seq     uint64
	release time.Time    // when public viewers may have it
	ev      events.Event // kept until released, for the public narrator
	event   []byte       // the event's JSON (Event)
	frame   []byte       // its SSE message without a board
}

// feedStatus is what the hub tells its viewers of its feed; Gen counts
// changes, so each viewer is told each change once.
type feedStatus struct {
	State   string `json:"state"` // ok, paused (the bus differs), stalled (the bus is unreachable)
	Message string `json:"message,omitempty"`
	gen     int
}

// viewer is one open stream of a hub.
type viewer struct {
	judge bool
	next  uint64        // the next event to send
	told  int           // the status generation last sent
	wake  chan struct{} // buffered(1): the hub has something new
}

// hubs is the hub of each watched match.
type hubs struct {
	s    *Server
	base context.Context
	mu   sync.Mutex
	m    map[string]*hub
	wg   sync.WaitGroup
}

func newHubs(s *Server, base context.Context) *hubs {
	return &hubs{s: s, base: base, m: map[string]*hub{}}
}

// join returns the match's hub, starting it on the first viewer, and
// counts the caller as a viewer until leave. It waits for the hub to be
// seeded (or ctx).
func (hs *hubs) join(ctx context.Context, id string) (*hub, error) {
	hs.mu.Lock()
	h := hs.m[id]
	if h == nil {
		h = &hub{hs: hs, s: hs.s, id: id, ready: make(chan struct{}), viewers: map[*viewer]struct{}{},
			kick: make(chan struct{}, 1), status: feedStatus{State: "ok"}}
		h.ctx, h.cancel = context.WithCancel(hs.base)
		hs.m[id] = h
		hs.wg.Go(h.run)
	}
	h.refs++
	if h.linger != nil {
		h.linger.Stop()
		h.linger = nil
	}
	hs.mu.Unlock()
	select {
	case <-h.ready:
	case <-ctx.Done():
		hs.leave(h)
		return nil, ctx.Err()
	}
	if h.startErr != nil {
		hs.leave(h)
		return nil, h.startErr
	}
	return h, nil
}

// leave ends a viewer's membership; the last one out starts the linger,
// after which the hub closes unless someone joined again.
func (hs *hubs) leave(h *hub) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h.refs--
	if h.refs > 0 {
		return
	}
	if h.startErr != nil {
		hs.drop(h)
		return
	}
	h.linger = time.AfterFunc(hs.s.cfg.Linger, func() {
		hs.mu.Lock()
		defer hs.mu.Unlock()
		if h.refs == 0 {
			hs.drop(h)
		}
	})
}

// drop closes h and forgets it; hs.mu is held.
func (hs *hubs) drop(h *hub) {
	if hs.m[h.id] == h {
		delete(hs.m, h.id)
	}
	h.cancel()
}

// wait waits for every hub to stop (after the server's context ends).
func (hs *hubs) wait() { hs.wg.Wait() }

// run seeds the hub, then follows the bus until the hub closes.
func (h *hub) run() {
	defer h.cancel()
	err := h.s.worker(h.ctx, h.seed)
	if err != nil {
		// Under hs.mu: leave reads startErr under it, and a viewer whose
		// wait for ready ended first leaves while this runs.
		h.hs.mu.Lock()
		h.startErr = fmt.Errorf("start following match %s: %w", h.id, err)
		h.hs.drop(h)
		h.hs.mu.Unlock()
	}
	close(h.ready)
	if err != nil {
		return
	}
	h.s.log.Debug().Str("match", h.id).Uint64("head", h.head).Uint64("public", h.public).Msg("hub started")
	if h.s.cfg.Delay > 0 {
		go h.releaser()
	}
	h.follow()
	h.s.log.Debug().Str("match", h.id).Msg("hub closed")
}

// seed fills the ring from the store: the events from the public head
// to the head, narrated from the nearest snapshot before them.
func (h *hub) seed() error {
	hd, err := h.s.st.Head(h.ctx, h.id)
	if err != nil {
		return err
	}
	public := hd.Seq
	if h.s.cfg.Delay > 0 {
		if public, err = h.s.vis.Head(h.ctx, h.id, false); err != nil {
			return err
		}
	}
	var prev time.Time
	h.nar, err = h.s.tell(h.ctx, h.id, max(public, 1), hd.Seq, func(e events.Event, v Event, n *replay.Narrator) error {
		prev = h.s.vis.release(false, e.Time, prev)
		it, err := newItem(e, v, prev, e.Seq > public)
		if err != nil {
			return err
		}
		h.ring = append(h.ring, it)
		h.head, h.headHash = e.Seq, e.Hash
		if e.Seq == hd.Seq || e.Seq == public {
			final, err := finalFrame(it, n, h.id)
			if err != nil {
				return err
			}
			if e.Seq == hd.Seq {
				h.headFinal = final
			}
			if e.Seq == public {
				h.publicFinal = final
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if h.nar == nil {
		return fmt.Errorf("match %s: no events to follow", h.id)
	}
	h.public = public
	return nil
}

// newItem makes the frames of event e (view v), released at release; the
// raw event is kept when a public narrator will need it.
func newItem(e events.Event, v Event, release time.Time, keep bool) (*item, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	it := &item{seq: e.Seq, release: release, event: b, frame: frame(e.Seq, b, nil)}
	if keep {
		it.ev = e
	}
	return it, nil
}

// frame is an SSE message of /stream: the id, and StreamMessage's JSON
// put together from the event's and the board's.
func frame(seq uint64, event, state []byte) []byte {
	b := make([]byte, 0, len(event)+len(state)+48)
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, "\ndata: {\"event\":"...)
	b = append(b, event...)
	if state != nil {
		b = append(b, ",\"state\":"...)
		b = append(b, state...)
	}
	return append(b, "}\n\n"...)
}

// finalFrame is it's frame with the board after it, n's state.
func finalFrame(it *item, n *replay.Narrator, match string) ([]byte, error) {
	st := publicState(n.State(), n.Rules())
	st.Match = match // a narrator started at event 1 folds without the id
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return frame(it.seq, it.event, b), nil
}

// follow subscribes to the match's subject from the event after the head,
// again after every failure (with a growing pause), until the hub closes.
func (h *hub) follow() {
	wait := time.Second
	for h.ctx.Err() == nil {
		// Subscribe delivers only events that chain from the head and are
		// the store's own record at their sequence (RecordCheck); anything
		// else stops it with natsbus.ErrBusDiffers.
		after := store.Head{Seq: h.head, Hash: h.headHash}
		err := natsbus.Subscribe(h.ctx, h.s.js, h.id, after, natsbus.RecordCheck{Store: h.s.st, Key: h.s.rec.Identity().PublicKey()}, h.onEvent)
		if h.ctx.Err() != nil {
			return
		}
		if errors.Is(err, natsbus.ErrBusDiffers) {
			h.s.log.Error().Err(err).Str("match", h.id).Msg("feed paused: the bus copy differs from the record")
			h.setStatus("paused", "feed paused: the bus copy differs from the record")
		} else {
			h.s.log.Warn().Err(err).Str("match", h.id).Dur("retry_in", wait).Msg("feed interrupted")
			h.setStatus("stalled", "feed interrupted: "+err.Error())
		}
		select {
		case <-time.After(wait):
		case <-h.ctx.Done():
			return
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// onEvent takes the next event from the bus, which Subscribe checked to
// be the recorder's own record at the sequence after the head.
func (h *hub) onEvent(e events.Event) error {
	n := h.nar
	v, err := step(n, e)
	if err != nil {
		return err
	}
	h.mu.Lock()
	prev := h.ring[len(h.ring)-1].release
	h.mu.Unlock()
	it, err := newItem(e, v, h.s.vis.release(false, e.Time, prev), h.s.cfg.Delay > 0)
	if err != nil {
		return err
	}
	final, err := finalFrame(it, n, h.id)
	if err != nil {
		return err
	}

	h.mu.Lock()
	h.ring = append(h.ring, it)
	h.head, h.headHash, h.headFinal = e.Seq, e.Hash, final
	if h.s.cfg.Delay == 0 {
		h.public, h.publicFinal = e.Seq, final
	}
	if h.status.State != "ok" {
		h.status = feedStatus{State: "ok", gen: h.status.gen + 1}
	}
	h.trim()
	h.notify(h.s.cfg.Delay == 0)
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default:
	}
	return nil
}

// releaser releases events to public viewers at their release times,
// keeping the board at the public head with a narrator of its own.
func (h *hub) releaser() {
	pub, err := h.s.narrators.At(h.ctx, h.id, h.public+1)
	if err != nil {
		h.s.log.Error().Err(err).Str("match", h.id).Msg("public view stopped")
		h.setStatus("stalled", "the public view stopped: "+err.Error())
		return
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		h.mu.Lock()
		var due []*item
		var wake time.Time
		now := time.Now()
		for i := len(h.ring) - 1; i >= 0 && h.ring[i].seq > h.public; i-- {
			it := h.ring[i]
			if !it.release.After(now) {
				due = append(due, it)
			}
			wake = it.release // ends as the release of the first held event
		}
		h.mu.Unlock()
		if len(due) > 0 {
			var last *item
			for i := len(due) - 1; i >= 0; i-- {
				if _, err = step(pub, due[i].ev); err != nil {
					h.s.log.Error().Err(err).Str("match", h.id).Msg("public view stopped")
					h.setStatus("stalled", "the public view stopped: "+err.Error())
					return
				}
				last = due[i]
			}
			final, err := finalFrame(last, pub, h.id)
			if err != nil {
				h.s.log.Error().Err(err).Str("match", h.id).Msg("public view stopped")
				return
			}
			h.mu.Lock()
			for _, it := range due {
				it.ev = events.Event{} // released: the raw event is no longer needed
			}
			h.public, h.publicFinal = last.seq, final
			h.trim()
			h.notify(true)
			h.mu.Unlock()
			continue
		}
		var c <-chan time.Time
		if !wake.IsZero() {
			timer.Reset(time.Until(wake))
			c = timer.C
		}
		select {
		case <-c:
		case <-h.kick:
		case <-h.ctx.Done():
			return
		}
	}
}

// trim drops the oldest events beyond the ring's size, never one a
// public viewer has not been released yet; h.mu is held.
func (h *hub) trim() {
	n := 0
	for len(h.ring)-n > h.s.cfg.Ring && h.ring[n].seq < h.public {
		h.ring[n] = nil
		n++
	}
	h.ring = h.ring[n:]
}

// notify wakes the judge viewers, and the public ones too when public
// moved; h.mu is held.
func (h *hub) notify(public bool) {
	for v := range h.viewers {
		if v.judge || public {
			select {
			case v.wake <- struct{}{}:
			default:
			}
		}
	}
}

func (h *hub) setStatus(state, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.status.State == state && h.status.Message == msg {
		return
	}
	h.status = feedStatus{State: state, Message: msg, gen: h.status.gen + 1}
	for v := range h.viewers {
		select {
		case v.wake <- struct{}{}:
		default:
		}
	}
}

func (h *hub) add(v *viewer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.viewers[v] = struct{}{}
}

func (h *hub) remove(v *viewer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.viewers, v)
}

// first is the oldest event the ring holds.
func (h *hub) first() uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.ring[0].seq
}

// pull takes what v may be sent now: the frames from v.next to its end
// (the head for the judge, the public head otherwise), the last with the
// board; and the feed's status if it changed since v was last told.
// behind says v needs events the ring no longer holds. Only v's own
// stream calls it: v's fields are its own.
func (h *hub) pull(v *viewer) (frames [][]byte, status *feedStatus, behind bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if v.told != h.status.gen {
		st := h.status
		status, v.told = &st, st.gen
	}
	end, final := h.public, h.publicFinal
	if v.judge {
		end, final = h.head, h.headFinal
	}
	if v.next > end {
		return nil, status, false
	}
	first := h.ring[0].seq
	if v.next < first {
		return nil, status, true
	}
	for seq := v.next; seq < end; seq++ {
		frames = append(frames, h.ring[seq-first].frame)
	}
	frames = append(frames, final)
	v.next = end + 1
	return frames, status, false
}
