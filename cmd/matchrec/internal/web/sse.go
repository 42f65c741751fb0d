package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/natsbus"
)

// StreamMessage is the data of one message of /api/matches/{id}/stream;
// the SSE id is Event.Seq.
type StreamMessage struct {
	Event Event `json:"event"`
	// State is the board after the event. It is sent only with the last
	// event of a burst: a page draws the newest board, and a reconnecting
	// page catching up on a hundred events needs one board, not a hundred.
	State *projector.State `json:"state,omitempty"`
}

// streamItem is one event on its way to the client: the board after it,
// and when it may be sent.
type streamItem struct {
	ev      Event
	state   *projector.State
	release time.Time
}

// apiStream is the Server-Sent Events stream of a match: every event from
// ?from= (or, on a reconnect, from the Last-Event-ID the browser sends,
// which wins) in order, each once, then each new one as it is recorded.
//
// History comes from the store, then the stream follows the match's NATS
// subject (natsbus.Subscribe, an ordered JetStream consumer) from the event
// after the last one the store gave: no gap and no duplicate between the
// two, and a branch's inherited events, which its subject lacks, come from
// the store. Public clients get each event at its release (visibility).
func (s *Server) apiStream(w http.ResponseWriter, r *http.Request) {
	id, ok := matchID(w, r)
	if !ok {
		return
	}
	q, err := parseQuery(r, "from")
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	from, given, err := q.seq("from")
	if err == nil && !given {
		from = 1
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" && err == nil {
		var n uint64
		if n, err = parseSeq(last); err != nil {
			err = fmt.Errorf("Last-Event-ID %q: %v", last, err)
		}
		from = n + 1
	}
	if err != nil {
		writeError(w, projector.CodeBadRequest, err.Error())
		return
	}
	judge, ok := s.judge(w, r, id, q)
	if !ok {
		return
	}
	head, ok := s.visibleHead(w, r, id, judge)
	if !ok {
		return
	}
	if from > head+1 {
		s.beyondEnd(w, id, head, from, judge)
		return
	}

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a proxy in front must not buffer the stream
	w.WriteHeader(http.StatusOK)
	// retry: reconnect after a second, not the browser's default three.
	if _, err := io.WriteString(w, "retry: 1000\n\n"); err != nil || rc.Flush() != nil {
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	items := make(chan streamItem, 64)
	fail := make(chan error, 1)
	go func() {
		defer close(items)
		fail <- s.follow(ctx, id, from, judge, items)
	}()
	s.send(ctx, w, rc, items)
	cancel()
	for range items { // let follow finish before its error is read
	}
	if err := <-fail; err != nil {
		s.log.Warn().Err(err).Str("match", id).Msg("event stream stopped")
		b, _ := json.Marshal(map[string]string{"code": string(projector.CodeInternal), "message": err.Error()})
		// Named "feed-error": a message named "error" would look like a
		// connection error to EventSource, which then reconnects anyway.
		_, _ = fmt.Fprintf(w, "event: feed-error\ndata: %s\n\n", b)
		_ = rc.Flush()
	}
}

// follow narrates the match from the store and then from the bus, queueing
// every event from from on with the board after it and its release time.
func (s *Server) follow(ctx context.Context, id string, from uint64, judge bool, out chan<- streamItem) error {
	var prev time.Time
	emit := func(ev Event, e events.Event, n *replay.Narrator) error {
		st := n.State().Clone()
		st.Match = id // the narrator folds without a match id
		prev = s.vis.release(judge, e.Time, prev)
		select {
		case out <- streamItem{ev: ev, state: publicState(st), release: prev}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var last events.Event
	t, err := s.narrate(ctx, id, 1, 0, func(e events.Event, ev Event, n *replay.Narrator) error {
		last = e
		if e.Seq < from {
			return nil
		}
		return emit(ev, e, n)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil // the client left, or the server stops
		}
		return err
	}
	// Only events that chain from the store's and are the store's own
	// (natsbus.RecordCheck) are delivered; anything else stops the feed
	// with natsbus.ErrBusDiffers.
	after := store.Head{Seq: last.Seq, Hash: last.Hash}
	err = natsbus.Subscribe(ctx, s.js, id, after, natsbus.RecordCheck{Store: s.st}, func(e events.Event) error {
		last = e
		ev, err := t.next(e)
		if err != nil {
			return err
		}
		if e.Seq < from {
			return nil
		}
		return emit(ev, e, t.n)
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// send writes queued events as they are released, each with its id, and
// the board only with the last event of what is ready at once. An idle
// stream gets a comment every KeepAlive.
func (s *Server) send(ctx context.Context, w io.Writer, rc *http.ResponseController, items <-chan streamItem) {
	ping := time.NewTicker(s.cfg.KeepAlive)
	defer ping.Stop()
	var (
		queue  []streamItem
		closed bool
		timer  *time.Timer
		wake   <-chan time.Time
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		// Take everything already queued, so a burst goes out as one.
	drain:
		for !closed {
			select {
			case it, ok := <-items:
				if !ok {
					closed = true
					break drain
				}
				queue = append(queue, it)
			default:
				break drain
			}
		}
		now := time.Now()
		ready := 0
		for ready < len(queue) && !queue[ready].release.After(now) {
			ready++
		}
		if ready > 0 {
			for i, it := range queue[:ready] {
				m := StreamMessage{Event: it.ev}
				if i == ready-1 {
					m.State = it.state
				}
				b, err := json.Marshal(m)
				if err != nil {
					s.log.Error().Err(err).Msg("encode stream message")
					return
				}
				if _, err := fmt.Fprintf(w, "id: %s\ndata: %s\n\n", strconv.FormatUint(it.ev.Seq, 10), b); err != nil {
					return
				}
			}
			if rc.Flush() != nil {
				return
			}
			clear(queue[:ready]) // drop the boards for the collector
			queue = queue[ready:]
			continue
		}
		if closed && len(queue) == 0 {
			return
		}
		wake = nil
		if len(queue) > 0 {
			if timer == nil {
				timer = time.NewTimer(time.Until(queue[0].release))
			} else {
				timer.Reset(time.Until(queue[0].release))
			}
			wake = timer.C
		}
		in := items
		if closed {
			in = nil
		}
		select {
		case it, ok := <-in:
			if !ok {
				closed = true
			} else {
				queue = append(queue, it)
			}
		case <-wake:
		case <-ping.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
