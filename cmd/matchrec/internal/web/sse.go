package web

import (
	"context"
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
	State *ViewState `json:"state,omitempty"`
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
		if err := s.catchUp(ctx, st, id, v.next, first-1); err != nil {
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
		if behind {
			// Too slow for the ring: drop it; the browser reconnects
			// with Last-Event-ID and catches up from the store.
			_ = st.write([]byte(": behind: reconnect to catch up\n\n"))
			return
		}
		if (len(frames) > 0 || status != nil) && s.burst(st, frames, status) != nil {
			return // too slow to take a burst: dropped, it resumes
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

// catchUpChunk is how many events a catch-up narrates per turn on a
// worker; the worker is free again while they are written.
const catchUpChunk = 512

// catchUp writes events from..to from the store, narrated from where a
// reader left off or the nearest snapshot before from: chunks narrated on a viewers' worker,
// each written with the worker free, so a slow client never holds one.
func (s *Server) catchUp(ctx context.Context, st *stream, id string, from, to uint64) error {
	for from <= to {
		end := min(to, from+catchUpChunk-1)
		var frames [][]byte
		err := s.worker(ctx, func() error {
			n, err := s.tell(ctx, id, from, end, func(e events.Event, ev Event, _ *replay.Narrator) error {
				b, err := json.Marshal(ev)
				if err != nil {
					return err
				}
				frames = append(frames, frame(e.Seq, b, nil))
				return nil
			})
			if n != nil && err == nil {
				s.narrators.Put(id, n) // the next chunk (this viewer's or another's) goes on from it
			}
			return err
		})
		if err != nil {
			return err
		}
		if len(frames) == 0 {
			return fmt.Errorf("match %s: no events %d..%d in the store", id, from, end)
		}
		for _, f := range frames {
			if err := st.write(f); err != nil {
				return err
			}
		}
		from = end + 1
	}
	return nil
}

// burst writes what a hub gave a viewer. Writes are the one cost of a
// viewer that grows with the viewers (the narration and the encoding are
// the hub's, once per event); each goes into the socket's buffer at once
// unless the client is megabytes behind, and one that cannot within
// WriteTimeout drops the viewer.
func (s *Server) burst(st *stream, frames [][]byte, status *feedStatus) error {
	if status != nil {
		b, err := json.Marshal(status)
		if err != nil {
			return err
		}
		if err := st.write(fmt.Appendf(nil, "event: feed-status\ndata: %s\n\n", b)); err != nil {
			return err
		}
	}
	for _, f := range frames {
		if err := st.write(f); err != nil {
			return err
		}
	}
	return st.flush()
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
