package replay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// countingStore is a bbolt store that counts the events its scans hand
// out (each one decoded), so a test can tell what a call read.
type countingStore struct {
	*bolt.Store
	read int
}

func (s *countingStore) Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error {
	return s.Store.Scan(ctx, match, from, func(e events.Event) error {
		s.read++
		return fn(e)
	})
}

// tellAll narrates every event of evs from event 1: the reference.
func tellAll(t *testing.T, evs []events.Event) [][]string {
	t.Helper()
	n := replay.NewNarratorFor(editions.Lookup)
	out := make([][]string, len(evs)+1)
	for _, e := range evs {
		lines, err := n.Next(e)
		if err != nil {
			t.Fatal(err)
		}
		out[e.Seq] = lines
	}
	return out
}

// A page of the events verb costs its own events: it starts from a
// narrator positioned at its first event — the one the last page left
// there, or one folded from the nearest verified snapshot — never from
// event 1, and it tells every event exactly as a narration from event 1
// does, rulings included.
func TestEventsPagesReadOnlyTheirOwnEvents(t *testing.T) {
	ctx := context.Background()
	g := projtest.LongMatch(t, ed3e.Rules{}, 1500, 3)
	g.Void(g.FirstRoll()) // the last two events: a dispute and its ruling
	evs := projtest.Relabel("long", g.Events)
	want := tellAll(t, evs)
	st := &countingStore{Store: openBolt(t)}
	if err := st.Append(ctx, "long", 0, evs); err != nil {
		t.Fatal(err)
	}
	// Warm the snapshots, as any seek does.
	k := &fold.Seeker{Log: st, Lookup: editions.Lookup}
	if _, err := k.StateAt(ctx, "long", 0); err != nil {
		t.Fatal(err)
	}
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	v := (&replay.Reader{Recorder: rec, PageBytes: 16 << 10}).Verbs()
	page := func(from uint64) api.EventsResult {
		t.Helper()
		res, err := v.Handle(ctx, api.VerbEvents, mustJSON(t, api.EventsRequest{Match: "long", From: from}))
		if err != nil {
			t.Fatal(err)
		}
		p := res.(api.EventsResult)
		for _, e := range p.Events {
			if e.Text != strings.Join(want[e.Seq], "\n") {
				t.Fatalf("page from %d: event %d told %q, from event 1 %q", from, e.Seq, e.Text, want[e.Seq])
			}
		}
		return p
	}
	// The last page holds the ruling, which refolds the match from event 1
	// (reading it all again): it is checked for its narration only.
	page(uint64(len(evs)) - 3)
	for _, from := range []uint64{1, 700, 1234} {
		st.read = 0
		p := page(from)
		// The nearest snapshot is at most K-1 events back; one event more
		// is read to find the page's end, one to check the snapshot.
		if limit := fold.DefaultSnapshotEvery + len(p.Events) + 2; st.read > limit || len(p.Events) == 0 {
			t.Fatalf("a page of %d events from %d read %d events (at most %d)", len(p.Events), from, st.read, limit)
		}
		if p.Next == 0 {
			continue
		}
		// The next page continues from the narrator this one left.
		st.read = 0
		q := page(p.Next)
		if st.read > len(q.Events)+1 {
			t.Fatalf("the page after %d read %d events for %d", from, st.read, len(q.Events))
		}
	}
}

// cancellingStore cancels a context once its scans have handed out after
// events.
type cancellingStore struct {
	*bolt.Store
	after  int
	cancel context.CancelFunc
}

func (s *cancellingStore) Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error {
	return s.Store.Scan(ctx, match, from, func(e events.Event) error {
		if s.after--; s.after == 0 {
			s.cancel()
		}
		return fn(e)
	})
}

// Folding leaves snapshots behind it: a seek cut short keeps what it
// folded (the next one starts there), and telling a match from its start
// (the events verb) leaves it seekable; every snapshot left is the fold's
// state at its event.
func TestFoldsLeaveSnapshotsBehind(t *testing.T) {
	evs := projtest.Relabel("long", projtest.LongMatch(t, ed3e.Rules{}, 3000, 4).Events)
	hashes := make([]events.Hash, len(evs)+1)
	f := fold.NewFolder("long", editions.Lookup)
	for _, e := range evs {
		if err := f.Apply(e); err != nil {
			t.Fatal(err)
		}
		hashes[e.Seq], _ = f.State.Hash()
	}
	check := func(st *bolt.Store, what string, min uint64) {
		t.Helper()
		sums, err := (&fold.Seeker{Log: st, Lookup: editions.Lookup}).SnapshotSums(context.Background(), "long")
		if err != nil {
			t.Fatal(err)
		}
		var top uint64
		for seq, sum := range sums {
			if sum != hashes[seq] {
				t.Fatalf("%s: the snapshot at %d is not the fold's state", what, seq)
			}
			top = max(top, seq)
		}
		if top < min {
			t.Fatalf("%s: snapshots up to %d, want %d at least", what, top, min)
		}
	}

	st := openBolt(t)
	if err := st.Append(context.Background(), "long", 0, evs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cs := &cancellingStore{Store: st, after: 1500, cancel: cancel} // the scan sees it at 2384
	if _, err := (&fold.Seeker{Log: cs, Lookup: editions.Lookup}).StateAt(ctx, "long", 2900); err == nil {
		t.Fatal("a seek whose caller gave up went on")
	}
	check(st, "a seek cut short", 2048)

	st = openBolt(t)
	if err := st.Append(context.Background(), "long", 0, evs); err != nil {
		t.Fatal(err)
	}
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	v := (&replay.Reader{Recorder: rec}).Verbs()
	for req := (api.EventsRequest{Match: "long", TextOnly: true}); ; {
		res, err := v.Handle(context.Background(), api.VerbEvents, mustJSON(t, req))
		if err != nil {
			t.Fatal(err)
		}
		if req.From = res.(api.EventsResult).Next; req.From == 0 {
			break
		}
	}
	check(st, "telling the match", 2944)
}
