package bolt_test

import (
	"context"
	"errors"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

func streamEvents(evs []events.Event, firstStreamSeq uint64) []store.StreamEvent {
	out := make([]store.StreamEvent, len(evs))
	for i, e := range evs {
		out[i] = store.StreamEvent{Event: e, StreamSeq: firstStreamSeq + uint64(i)}
	}
	return out
}

// The own append path and the follower write the same events in either
// order: the second is skipped; a different event at a stored place is a
// divergence, never an overwrite; a gap is refused; the request index,
// the stream sequence and the follower's position are kept; no outbox
// entry is made (the events are on the stream already).
func TestStreamWritesAreIdempotent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, bolt.Options{NoSync: true})
	evs := storetest.MakeEvents("m", 1, events.Hash{}, 4)
	first := streamEvents(evs[:2], 10)
	first[1].Key, first[1].Request = []byte("k1"), store.Request{First: 1, Last: 2}
	if err := s.AppendStream(ctx, "m", first); err != nil {
		t.Fatal(err)
	}
	// The follower reads the same two, then two more from another recorder.
	moved, rejected, err := s.Follow(ctx, "", streamEvents(evs, 10), 13)
	if err != nil || len(rejected) > 0 {
		t.Fatalf("follow: %v %v", err, rejected)
	}
	if moved["m"] != 4 {
		t.Fatalf("moved %v, want m at 4", moved)
	}
	// The own path's write after the follower's: skipped.
	if err := s.AppendStream(ctx, "m", streamEvents(evs[2:], 12)); err != nil {
		t.Fatalf("own append after the follower: %v", err)
	}
	if h, _ := s.Head(ctx, "m"); h.Seq != 4 || h.Hash != evs[3].Hash {
		t.Fatalf("head %+v", h)
	}
	if _, seq, _ := s.StreamHead(ctx, "m"); seq != 13 {
		t.Fatalf("stream seq %d, want 13", seq)
	}
	if pos, _ := s.Followed(ctx, ""); pos != 13 {
		t.Fatalf("followed %d, want 13", pos)
	}
	if r, err := s.Request(ctx, "m", []byte("k1")); err != nil || r.Last != 2 {
		t.Fatalf("request index: %+v %v", r, err)
	}
	pending := 0
	_ = s.Pending(ctx, 0, func(store.OutboxEntry) error { pending++; return nil })
	if pending != 0 {
		t.Fatalf("%d outbox entries for stream events", pending)
	}

	// A different event 3: diverged, nothing overwritten.
	other := storetest.MakeEvents("m", 1, events.Hash{}, 3)
	other[2].Actor.ID = "someone-else"
	other[2].Hash = events.ComputeHash(other[2])
	_, rejected, err = s.Follow(ctx, "", streamEvents(other[2:], 12), 14)
	if err != nil || len(rejected) != 1 || !errors.Is(rejected[0], store.ErrDiverged) {
		t.Fatalf("divergent event: %v %v", err, rejected)
	}
	if err := s.AppendStream(ctx, "m", streamEvents(other[2:], 12)); !errors.Is(err, store.ErrDiverged) {
		t.Fatalf("divergent own append: %v", err)
	}
	// A gap: refused.
	more := storetest.MakeEvents("m", 5, evs[3].Hash, 2)
	if err := s.AppendStream(ctx, "m", streamEvents(more[1:], 20)); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("gap: %v", err)
	}
	var n int
	_ = s.Scan(ctx, "m", 0, func(e events.Event) error {
		if e.Hash != evs[n].Hash {
			t.Fatalf("event %d changed", e.Seq)
		}
		n++
		return nil
	})
	if n != 4 {
		t.Fatalf("%d events stored, want 4", n)
	}
}

// A follower's matches are in the match index as the own ones are: the
// entry follows every event the follower applies.
func TestFollowedMatchesAreIndexed(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, bolt.Options{NoSync: true})
	evs := storetest.MakeEvents("f", 1, events.Hash{}, 3)
	if _, rejected, err := s.Follow(ctx, "", streamEvents(evs, 1), 3); err != nil || len(rejected) > 0 {
		t.Fatalf("follow: %v %v", err, rejected)
	}
	e, err := s.MatchEntry(ctx, "f")
	if err != nil || e.Head != 3 || e.Updated != evs[2].Time {
		t.Fatalf("index entry %+v, %v; want head 3", e, err)
	}
}
