package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Appends that must be refused, and must leave nothing behind.

// wantUnchanged checks that match still holds exactly before (nil: the
// match must not exist).
func wantUnchanged(t *testing.T, s store.Store, match string, before []events.Event) {
	t.Helper()
	if before == nil {
		_, err := s.Head(bg, match)
		wantErr(t, "a refused append created match "+match, err, store.ErrNotFound)
		return
	}
	wantLog(t, s, match, before)
	wantHead(t, s, match, before)
}

func testConflict(t *testing.T, s store.Store) {
	base := MakeEvents("m", 1, events.Hash{}, 3)
	mustAppend(t, s, "m", 0, base)
	next := func(expected uint64) []events.Event {
		// Valid in every way except that expected is not the head: the
		// chain links to event expected (or starts fresh at 0).
		var prev events.Hash
		if expected > 0 && expected <= 3 {
			prev = base[expected-1].Hash
		}
		return MakeEvents("m", expected+1, prev, 2)
	}
	for _, expected := range []uint64{0, 1, 2, 4, 10} {
		err := s.Append(bg, "m", expected, next(expected))
		wantErr(t, "Append with a stale or future expected seq", err, store.ErrConflict)
		wantUnchanged(t, s, "m", base)
	}
	// A new match's head is 0: any other expected is a conflict, not
	// ErrNotFound, and creates nothing.
	err := s.Append(bg, "new", 2, MakeEvents("new", 3, events.Hash{}, 1))
	wantErr(t, "Append to a new match with expected 2", err, store.ErrConflict)
	wantUnchanged(t, s, "new", nil)
}

func testInvalid(t *testing.T, s store.Store) {
	base := MakeEvents("m", 1, events.Hash{}, 3)
	mustAppend(t, s, "m", 0, base)
	head := base[2].Hash
	good := func() []events.Event { return MakeEvents("m", 4, head, 3) }

	cases := []struct {
		name  string
		match string
		evs   func() []events.Event
	}{
		{"nil", "m", func() []events.Event { return nil }},
		{"empty", "m", func() []events.Event { return []events.Event{} }},
		{"wrong match", "m", func() []events.Event {
			evs := good()
			evs[1] = MakeEvents("other", 5, evs[0].Hash, 1)[0]
			return evs
		}},
		{"all of another match", "m", func() []events.Event { return MakeEvents("other", 4, head, 2) }},
		{"gap", "m", func() []events.Event {
			evs := good()
			return append(evs[:1], MakeEvents("m", 6, evs[0].Hash, 1)...)
		}},
		{"first seq not expected+1", "m", func() []events.Event { return MakeEvents("m", 5, head, 2) }},
		{"repeated seq", "m", func() []events.Event {
			evs := good()
			return append(evs[:1], MakeEvents("m", 4, evs[0].Hash, 1)...)
		}},
		{"broken hash link", "m", func() []events.Event {
			evs := good()
			evs[2] = MakeEvents("m", 6, events.Hash{1}, 1)[0]
			return evs
		}},
		{"first not linked to head", "m", func() []events.Event { return MakeEvents("m", 4, base[1].Hash, 2) }},
		{"bad hash", "m", func() []events.Event {
			evs := good()
			evs[1].Payload = append([]byte(nil), evs[1].Payload...)
			evs[1].Payload[len(evs[1].Payload)-1] ^= 1 // content changed, hash not
			return evs
		}},
		{"forged hash", "m", func() []events.Event {
			evs := good()
			evs[2].Hash[0] ^= 1
			return evs
		}},
	}
	for _, tc := range cases {
		err := s.Append(bg, tc.match, 3, tc.evs())
		wantErr(t, "Append "+tc.name, err, store.ErrInvalid)
		wantUnchanged(t, s, "m", base)
		wantUnchanged(t, s, "other", nil)
	}

	// A new match must start from the zero hash.
	err := s.Append(bg, "fresh", 0, MakeEvents("fresh", 1, events.Hash{7}, 2))
	wantErr(t, "Append of event 1 not chained to the zero hash", err, store.ErrInvalid)
	wantUnchanged(t, s, "fresh", nil)

	// The empty id names no match.
	err = s.Append(bg, "", 0, MakeEvents("", 1, events.Hash{}, 1))
	wantErr(t, "Append to the empty match id", err, store.ErrInvalid)

	// The store still works.
	mustAppend(t, s, "m", 3, good())
}

func testCanceledContext(t *testing.T, s store.Store) {
	mustAppend(t, s, "m", 0, MakeEvents("m", 1, events.Hash{}, 1))
	ctx, cancel := context.WithCancel(bg)
	cancel()
	err := s.Append(ctx, "m", 1, MakeEvents("m", 2, MakeEvents("m", 1, events.Hash{}, 1)[0].Hash, 1))
	wantErr(t, "Append with a canceled context", err, context.Canceled)
	err = s.Append(ctx, "n", 0, MakeEvents("n", 1, events.Hash{}, 1))
	wantErr(t, "Append with a canceled context", err, context.Canceled)
	wantUnchanged(t, s, "n", nil)
	if h, err := s.Head(bg, "m"); err != nil || h.Seq != 1 {
		t.Fatalf("after a canceled Append: head %d, %v; want 1", h.Seq, err)
	}
	err = s.Scan(ctx, "m", 0, func(events.Event) error { return nil })
	wantErr(t, "Scan with a canceled context", err, context.Canceled)
}

func testClosed(t *testing.T, s store.Store) {
	mustAppend(t, s, "m", 0, MakeEvents("m", 1, events.Hash{}, 1))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	err := s.Append(bg, "m", 1, MakeEvents("m", 2, events.Hash{}, 1))
	wantErr(t, "Append after Close", err, store.ErrClosed)
	err = s.Scan(bg, "m", 0, func(events.Event) error { return nil })
	wantErr(t, "Scan after Close", err, store.ErrClosed)
	_, err = s.Head(bg, "m")
	wantErr(t, "Head after Close", err, store.ErrClosed)
	_, err = s.Matches(bg)
	wantErr(t, "Matches after Close", err, store.ErrClosed)
	if o, ok := s.(store.Outbox); ok {
		err = o.Pending(bg, 0, func(store.OutboxEntry) error { return nil })
		wantErr(t, "Pending after Close", err, store.ErrClosed)
		err = o.Ack(bg, []uint64{1})
		wantErr(t, "Ack after Close", err, store.ErrClosed)
	}
	if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}
