package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
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

// apiStream is the Server-Sent Events stream of a match: every event from
// ?from= (or, on a reconnect, from the Last-Event-ID the browser sends,
// which wins) in order, each once, then each new one as it is recorded.
//
// New events come from the match's hub (hub.go), which follows the bus
// once for all its viewers; events older than the hub's ring come from
// the store first, narrated from the nearest snapshot before them, on a
// viewers' worker. Public clients get each event at its release.
func (s *Server) apiStream(w http.ResponseWriter, r *http.Request) {
	id, q, ok := s.matchQuery(w, r, "from")
	if !ok {
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
	judge, head, ok := s.viewer(w, r, id, q)
	if !ok {
		return
	}
	if from > head+1 {
		s.beyondEnd(w, id, head, from, judge)
		return
	}

	ctx := r.Context()
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no") // a proxy in front must not buffer the stream
	w.WriteHeader(http.StatusOK)
	st := &stream{s: s, w: w, rc: rc}
	// retry: reconnect after a second, not the browser's default three.
	if st.write([]byte("retry: 1000\n\n")) != nil || st.flush() != nil {
		return
	}

	h, err := s.hubs.join(ctx, id)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn().Err(err).Str("match", id).Msg("event stream stopped")
			st.event("feed-status", feedStatus{State: "stalled", Message: err.Error()})
		}
		return
	}
	defer s.hubs.leave(h)
	v := &viewer{judge: judge, next: from, wake: make(chan struct{}, 1)}
	h.add(v)
	defer h.remove(v)

	// Older than the ring: from the store, narrated from the nearest
	// snapshot. The hub's events meanwhile wait in its ring.
	if first := h.first(); v.next < first {
		err := s.worker(ctx, func() error {
			_, err := s.tell(ctx, id, v.next, first-1, func(e events.Event, ev Event, _ *replay.Narrator) error {
				b, err := json.Marshal(ev)
				if err != nil {
					return err
				}
				return st.write(frame(e.Seq, b, nil))
			})
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn().Err(err).Str("match", id).Msg("event stream catch-up failed")
			}
			return
		}
		v.next = first
	}

	ping := time.NewTicker(s.cfg.KeepAlive)
	defer ping.Stop()
	for {
		frames, status, behind := h.pull(v)
		if status != nil && st.event("feed-status", status) != nil {
			return
		}
		if behind {
			// Too slow for the ring: drop it; the browser reconnects
			// with Last-Event-ID and catches up from the store.
			_ = st.write([]byte(": behind: reconnect to catch up\n\n"))
			return
		}
		for _, f := range frames {
			if st.write(f) != nil {
				return
			}
		}
		if (len(frames) > 0 || status != nil) && st.flush() != nil {
			return
		}
		select {
		case <-v.wake:
		case <-ping.C:
			if st.write([]byte(": keep-alive\n\n")) != nil || st.flush() != nil {
				return
			}
		case <-ctx.Done():
			return
		case <-h.ctx.Done():
			return
		}
	}
}

// stream writes one event stream, each burst within Config.WriteTimeout:
// a client that stops reading is dropped instead of holding the frames
// it has not taken.
type stream struct {
	s  *Server
	w  io.Writer
	rc *http.ResponseController
}

func (st *stream) write(b []byte) error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(st.s.cfg.WriteTimeout))
	_, err := st.w.Write(b)
	return err
}

func (st *stream) flush() error {
	_ = st.rc.SetWriteDeadline(time.Now().Add(st.s.cfg.WriteTimeout))
	return st.rc.Flush()
}

// event sends a named event (feed-status) with v as its JSON data, at
// once. Named, not "error": EventSource takes a message named "error" for
// a connection error.
func (st *stream) event(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := st.write(fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, b)); err != nil {
		return err
	}
	return st.flush()
}
