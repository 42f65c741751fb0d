package storetest

import (
	"errors"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Appending, scanning, heads and listing on a single writer.

func testAppendScanHead(t *testing.T, s store.Store) {
	first := MakeEvents("m", 1, events.Hash{}, 3)
	mustAppend(t, s, "m", 0, first)
	wantLog(t, s, "m", first)
	wantHead(t, s, "m", first)

	more := MakeEvents("m", 4, first[2].Hash, 2)
	mustAppend(t, s, "m", 3, more)
	all := append(first, more...)
	wantLog(t, s, "m", all)
	wantHead(t, s, "m", all)
	if got := scan(t, s, "m", 1); len(got) != len(all) {
		t.Fatalf("Scan from 1 gave %d events, want all %d", len(got), len(all))
	}

	// One event at a time, as a live match records them.
	for seq := uint64(6); seq <= 8; seq++ {
		e := MakeEvents("m", seq, all[len(all)-1].Hash, 1)
		mustAppend(t, s, "m", seq-1, e)
		all = append(all, e...)
	}
	wantLog(t, s, "m", all)
	wantHead(t, s, "m", all)
}

func testScanFrom(t *testing.T, s store.Store) {
	evs := MakeEvents("m", 1, events.Hash{}, 10)
	mustAppend(t, s, "m", 0, evs)
	for _, from := range []uint64{0, 1, 2, 4, 9, 10} {
		got := scan(t, s, "m", from)
		start := max(from, 1)
		if want := 10 - int(start) + 1; len(got) != want {
			t.Fatalf("Scan from %d: %d events, want %d", from, len(got), want)
		}
		for i, e := range got {
			if !sameEvent(e, evs[int(start)-1+i]) {
				t.Fatalf("Scan from %d: event %d is seq %d", from, i, e.Seq)
			}
		}
	}
	for _, from := range []uint64{11, 1 << 40, ^uint64(0)} {
		if got := scan(t, s, "m", from); len(got) != 0 {
			t.Fatalf("Scan from %d past the head: %d events, want none", from, len(got))
		}
	}
}

// testScanLarge crosses the chunk sizes a backend may read in (the bbolt
// one reads 16, 64, 256, then 1024 events per transaction).
func testScanLarge(t *testing.T, s store.Store) {
	const n, per = 2600, 650
	var all []events.Event
	for len(all) < n {
		var prev events.Hash
		if len(all) > 0 {
			prev = all[len(all)-1].Hash
		}
		evs := MakeEvents("big", uint64(len(all))+1, prev, per)
		mustAppend(t, s, "big", uint64(len(all)), evs)
		all = append(all, evs...)
	}
	wantLog(t, s, "big", all)
	for _, from := range []uint64{2, 16, 17, 80, 81, 1023, 1024, 1025, 2048, 2049, n} {
		got := scan(t, s, "big", from)
		if len(got) != n-int(from)+1 || got[0].Seq != from || got[len(got)-1].Seq != n {
			t.Fatalf("Scan from %d: %d events", from, len(got))
		}
	}
}

func testScanStopsOnError(t *testing.T, s store.Store) {
	mustAppend(t, s, "m", 0, MakeEvents("m", 1, events.Hash{}, 10))
	stop := errors.New("stop here")
	var calls int
	err := s.Scan(bg, "m", 2, func(e events.Event) error {
		calls++
		if e.Seq == 4 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Scan returned %v, want fn's error", err)
	}
	if calls != 3 {
		t.Fatalf("fn called %d times after failing at the 3rd, want 3", calls)
	}
}

// testScanCallbackMayAppend guards against a backend holding a lock or a
// transaction while fn runs: fn appends to another match.
func testScanCallbackMayAppend(t *testing.T, s store.Store) {
	src := MakeEvents("src", 1, events.Hash{}, 5)
	mustAppend(t, s, "src", 0, src)
	var copied []events.Event
	err := s.Scan(bg, "src", 0, func(e events.Event) error {
		var prev events.Hash
		if len(copied) > 0 {
			prev = copied[len(copied)-1].Hash
		}
		evs := MakeEvents("dst", e.Seq, prev, 1)
		copied = append(copied, evs...)
		return s.Append(bg, "dst", e.Seq-1, evs)
	})
	if err != nil {
		t.Fatalf("Scan with an appending fn: %v", err)
	}
	wantLog(t, s, "dst", copied)
}

func testNotFound(t *testing.T, s store.Store) {
	if _, err := s.Head(bg, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Head of an unknown match: %v, want ErrNotFound", err)
	}
	for _, from := range []uint64{0, 5} {
		err := s.Scan(bg, "nope", from, func(events.Event) error {
			t.Fatal("fn called for an unknown match")
			return nil
		})
		wantErr(t, "Scan of an unknown match", err, store.ErrNotFound)
	}
	ms, err := s.Matches(bg)
	if err != nil || len(ms) != 0 {
		t.Fatalf("Matches of an empty store = %v, %v; want none", ms, err)
	}
	// Another match existing changes nothing.
	mustAppend(t, s, "other", 0, MakeEvents("other", 1, events.Hash{}, 1))
	_, err = s.Head(bg, "nope")
	wantErr(t, "Head of an unknown match", err, store.ErrNotFound)
	_, err = s.Head(bg, "")
	wantErr(t, "Head of the empty id", err, store.ErrNotFound)
}

func testMatches(t *testing.T, s store.Store) {
	ids := []string{"m-b", "m-a", "z", "m-a2", "A"}
	logs := map[string][]events.Event{}
	for i, id := range ids {
		evs := MakeEvents(id, 1, events.Hash{}, i+1)
		mustAppend(t, s, id, 0, evs)
		logs[id] = evs
	}
	// Growing a match keeps its created time.
	more := MakeEvents("m-b", 2, logs["m-b"][0].Hash, 2)
	mustAppend(t, s, "m-b", 1, more)
	logs["m-b"] = append(logs["m-b"], more...)

	ms, err := s.Matches(bg)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := []string{"A", "m-a", "m-a2", "m-b", "z"}
	if len(ms) != len(wantOrder) {
		t.Fatalf("Matches listed %d, want %d", len(ms), len(wantOrder))
	}
	for i, m := range ms {
		if m.ID != wantOrder[i] {
			t.Fatalf("Matches[%d] = %q, want %q (ordered by id)", i, m.ID, wantOrder[i])
		}
		evs := logs[m.ID]
		last := evs[len(evs)-1]
		if m.Head != (store.Head{Seq: last.Seq, Hash: last.Hash}) {
			t.Fatalf("Matches: %q head %d, want %d", m.ID, m.Head.Seq, last.Seq)
		}
		if m.Created != evs[0].Time {
			t.Fatalf("Matches: %q created %d, want event 1's time %d", m.ID, m.Created, evs[0].Time)
		}
	}
}

// testIsolation: neither the caller's slice after Append nor a scanned
// event's payload aliases what the store keeps.
func testIsolation(t *testing.T, s store.Store) {
	evs := MakeEvents("m", 1, events.Hash{}, 2)
	keep := MakeEvents("m", 1, events.Hash{}, 2)
	mustAppend(t, s, "m", 0, evs)
	evs[0].Payload[0] ^= 0xff
	evs[1].Seq = 99
	if err := s.Scan(bg, "m", 0, func(e events.Event) error {
		e.Payload[0] ^= 0xff
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantLog(t, s, "m", keep)
}
