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

// A branch reaches a cluster's follower as its branch.created, the first
// event on its subject, numbered after the fork: the store keeps it as a
// pointer into its parent's events, as Branch does, and reads the branch
// through its lineage. A branch.created whose parent or fork event the
// store lacks, or that does not link to the fork, is refused. The
// positions of two followed streams are kept apart.
func TestFollowStartsABranch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, bolt.Options{NoSync: true})
	parent := storetest.MakeEvents("p", 1, events.Hash{}, 5)
	if _, rejected, err := s.Follow(ctx, "", streamEvents(parent, 1), 5); err != nil || len(rejected) > 0 {
		t.Fatalf("follow: %v %v", err, rejected)
	}
	branch := func(id, of string, at uint64, prev events.Hash) events.Event {
		e, err := events.New(id, at+1, prev, parent[0].Time+100, events.Actor{Kind: events.ActorSystem}, events.BranchCreated{Parent: of, At: at, Name: "what if"})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	good := branch("b", "p", 3, parent[2].Hash)
	next := storetest.MakeEvents("b", 5, good.Hash, 1)
	bad := []events.Event{
		branch("orphan", "nobody", 3, parent[2].Hash), // no such parent
		branch("far", "p", 9, parent[4].Hash),         // past the parent's head
		branch("loose", "p", 3, parent[1].Hash),       // does not link to the fork
	}
	in := append(append([]events.Event{good}, next...), bad...)
	_, rejected, err := s.Follow(ctx, "", streamEvents(in, 6), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rejected) != len(bad) {
		t.Fatalf("%d refused (%v), want the %d bad branches", len(rejected), rejected, len(bad))
	}
	lin, err := s.Lineage(ctx, "b")
	if err != nil || len(lin) != 2 || lin[0] != (events.BranchPoint{Match: "p", Upto: 3}) {
		t.Fatalf("lineage %v %v", lin, err)
	}
	var seqs []uint64
	if err := s.Scan(ctx, "b", 1, func(e events.Event) error { seqs = append(seqs, e.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 5 || seqs[4] != 5 {
		t.Fatalf("the branch reads events %v, want 1-3 of its parent and its own 4-5", seqs)
	}
	for _, id := range []string{"orphan", "far", "loose"} {
		if _, err := s.Head(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("refused branch %s exists: %v", id, err)
		}
	}
	if _, _, err := s.Follow(ctx, "ARCHIVE", nil, 77); err != nil {
		t.Fatal(err)
	}
	own, _ := s.Followed(ctx, "")
	other, _ := s.Followed(ctx, "ARCHIVE")
	if own != 10 || other != 77 {
		t.Fatalf("positions %d and %d, want 10 and 77", own, other)
	}
}
