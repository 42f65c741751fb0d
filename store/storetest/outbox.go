package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Outbox: entries in commit order, removed by Ack, signalled by Notify.

func testOutboxOrder(t *testing.T, s store.Store) {
	o := outbox(t, s)
	if got := pending(t, o, 0); len(got) != 0 {
		t.Fatalf("new store has %d pending entries", len(got))
	}
	a := MakeEvents("a", 1, events.Hash{}, 3)
	b := MakeEvents("b", 1, events.Hash{}, 2)
	// Commit order: a1 a2, b1, a3, b2.
	mustAppend(t, s, "a", 0, a[:2])
	mustAppend(t, s, "b", 0, b[:1])
	mustAppend(t, s, "a", 2, a[2:])
	mustAppend(t, s, "b", 1, b[1:])
	want := []events.Event{a[0], a[1], b[0], a[2], b[1]}

	got := pending(t, o, 0)
	wantEntries(t, got, want)
	wantEntries(t, pending(t, o, 3), want[:3])
	wantEntries(t, pending(t, o, 100), want)

	// Ack the first three (and keys that do not exist).
	keys := []uint64{got[0].Key, got[1].Key, got[2].Key, got[4].Key + 1000, 0}
	if err := o.Ack(bg, keys); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	wantEntries(t, pending(t, o, 0), want[3:])
	if err := o.Ack(bg, keys); err != nil {
		t.Fatalf("Ack again: %v", err)
	}
	if err := o.Ack(bg, nil); err != nil {
		t.Fatalf("Ack of nothing: %v", err)
	}
	if err := o.Ack(bg, []uint64{got[3].Key, got[4].Key}); err != nil {
		t.Fatal(err)
	}
	if rest := pending(t, o, 0); len(rest) != 0 {
		t.Fatalf("%d entries left after acking all", len(rest))
	}

	// Keys keep ascending after the outbox was emptied: never reused.
	c := MakeEvents("c", 1, events.Hash{}, 1)
	mustAppend(t, s, "c", 0, c)
	after := pending(t, o, 0)
	wantEntries(t, after, c)
	if after[0].Key <= got[4].Key {
		t.Fatalf("new entry key %d not above the acked %d", after[0].Key, got[4].Key)
	}
}

// wantEntries checks entries name want, in order, with ascending keys.
func wantEntries(t *testing.T, got []store.OutboxEntry, want []events.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d pending entries, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameEvent(got[i].Event, want[i]) {
			t.Fatalf("pending[%d] is %s/%d, want %s/%d", i, got[i].Event.Match, got[i].Event.Seq, want[i].Match, want[i].Seq)
		}
		if i > 0 && got[i].Key <= got[i-1].Key {
			t.Fatalf("pending keys not ascending: %d then %d", got[i-1].Key, got[i].Key)
		}
	}
}

func testOutboxRejectedAppends(t *testing.T, s store.Store) {
	o := outbox(t, s)
	a := MakeEvents("a", 1, events.Hash{}, 2)
	mustAppend(t, s, "a", 0, a)
	_ = s.Append(bg, "a", 0, a)                                     // conflict
	_ = s.Append(bg, "a", 2, MakeEvents("a", 3, events.Hash{9}, 1)) // invalid
	_ = s.Append(bg, "a", 2, nil)                                   // invalid
	wantEntries(t, pending(t, o, 0), a)
}

func testOutboxPendingCallback(t *testing.T, s store.Store) {
	o := outbox(t, s)
	a := MakeEvents("a", 1, events.Hash{}, 5)
	mustAppend(t, s, "a", 0, a)

	var n int
	err := o.Pending(bg, 0, func(store.OutboxEntry) error {
		if n++; n == 2 {
			return events.ErrStop
		}
		return nil
	})
	if !errors.Is(err, events.ErrStop) || n != 2 {
		t.Fatalf("Pending with a failing fn: %v after %d calls; want fn's error after 2", err, n)
	}

	// A relay acks from inside fn; the store must not hold a lock or a
	// transaction there.
	err = o.Pending(bg, 0, func(e store.OutboxEntry) error { return o.Ack(bg, []uint64{e.Key}) })
	if err != nil {
		t.Fatalf("Pending with an acking fn: %v", err)
	}
	if rest := pending(t, o, 0); len(rest) != 0 {
		t.Fatalf("%d entries left after acking each from fn", len(rest))
	}
}

func testOutboxNotify(t *testing.T, s store.Store) {
	o := outbox(t, s)
	ch := o.Notify()
	if ch == nil {
		t.Fatal("Notify returned nil")
	}
	drain := func() {
		for {
			select {
			case <-ch:
			default:
				return
			}
		}
	}
	wait := func(what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("no Notify signal after %s", what)
		}
	}
	drain()
	a := MakeEvents("a", 1, events.Hash{}, 2)
	mustAppend(t, s, "a", 0, a[:1])
	wait("the first append")
	mustAppend(t, s, "a", 1, a[1:])
	wait("a second append")

	// Many commits, one pending signal at most: the channel never blocks
	// the store.
	b := MakeEvents("b", 1, events.Hash{}, 20)
	for i := range b {
		mustAppend(t, s, "b", uint64(i), b[i:i+1])
	}
	wait("20 appends")
	drain()
	// A refused append commits no entries; a signal is allowed but not
	// required, so only check the store is not wedged.
	_ = s.Append(bg, "b", 0, b[:1])
	mustAppend(t, s, "c", 0, MakeEvents("c", 1, events.Hash{}, 1))
	wait("an append after a refused one")
}

func testOutboxConcurrent(t *testing.T, s store.Store) {
	o := outbox(t, s)
	heads := appendMany(t, s, 16, 10)
	next := map[string]uint64{} // next seq expected per match
	var total uint64
	for _, e := range pending(t, o, 0) {
		m := e.Event.Match
		if e.Event.Seq != next[m]+1 {
			t.Fatalf("outbox lists %s/%d after %s/%d: not commit order", m, e.Event.Seq, m, next[m])
		}
		next[m] = e.Event.Seq
		total++
	}
	var want uint64
	for id, h := range heads {
		if next[id] != h.Seq {
			t.Fatalf("outbox holds %s up to %d, head is %d", id, next[id], h.Seq)
		}
		want += h.Seq
	}
	if total != want {
		t.Fatalf("outbox holds %d entries, want %d", total, want)
	}
}
