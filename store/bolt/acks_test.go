package bolt_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

// crashImage copies the store's file as it is on disk now, as if the
// process died this instant, and opens the copy.
func crashImage(t *testing.T, s *bolt.Store) *bolt.Store {
	t.Helper()
	b, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "crashed.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ackFirst acks the first n pending entries.
func ackFirst(t *testing.T, o store.Outbox, n int) {
	t.Helper()
	var keys []uint64
	if err := o.Pending(bg, n, func(e store.OutboxEntry) error {
		keys = append(keys, e.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := o.Ack(bg, keys); err != nil {
		t.Fatal(err)
	}
}

func pendingSeqs(t *testing.T, o store.Outbox) []uint64 {
	t.Helper()
	var out []uint64
	if err := o.Pending(bg, 0, func(e store.OutboxEntry) error {
		out = append(out, e.Event.Seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAcksRideAlongWithTheNextAppend: an ack hides its entries at once but
// costs no transaction of its own; the next append's transaction deletes
// them. A crash before that brings them back (the relay recognises them on
// the stream), never loses an unacked one.
func TestAcksRideAlongWithTheNextAppend(t *testing.T) {
	s := openTest(t, bolt.Options{AckDelay: time.Hour}) // no idle flush in this test
	a := storetest.MakeEvents("a", 1, events.Hash{}, 5)
	if err := s.Append(bg, "a", 0, a[:4]); err != nil {
		t.Fatal(err)
	}
	ackFirst(t, s, 3)
	if got := pendingSeqs(t, s); len(got) != 1 || got[0] != 4 {
		t.Fatalf("pending after ack: %v, want [4]", got)
	}
	// Not on disk yet: a crash now republishes 1-3.
	if got := pendingSeqs(t, crashImage(t, s)); len(got) != 4 {
		t.Fatalf("crash before any commit: pending %v, want all 4 back", got)
	}
	// The next append carries the deletion.
	if err := s.Append(bg, "a", 4, a[4:]); err != nil {
		t.Fatal(err)
	}
	if got := pendingSeqs(t, crashImage(t, s)); len(got) != 2 || got[0] != 4 || got[1] != 5 {
		t.Fatalf("crash after the next append: pending %v, want [4 5]", got)
	}
}

// TestAcksAreCommittedWhenIdle: with no append coming, acks are committed
// on their own after AckDelay, and at Close.
func TestAcksAreCommittedWhenIdle(t *testing.T) {
	s := openTest(t, bolt.Options{AckDelay: 20 * time.Millisecond})
	if err := s.Append(bg, "a", 0, storetest.MakeEvents("a", 1, events.Hash{}, 3)); err != nil {
		t.Fatal(err)
	}
	ackFirst(t, s, 2)
	deadline := time.Now().Add(5 * time.Second)
	for len(pendingSeqs(t, crashImage(t, s))) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("acks not committed while idle")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Close commits what is left.
	s2 := openTest(t, bolt.Options{AckDelay: time.Hour})
	if err := s2.Append(bg, "b", 0, storetest.MakeEvents("b", 1, events.Hash{}, 2)); err != nil {
		t.Fatal(err)
	}
	ackFirst(t, s2, 2)
	p2 := s2.Path()
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	re, err := bolt.Open(p2, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if got := pendingSeqs(t, re); len(got) != 0 {
		t.Fatalf("after Close: pending %v, want none", got)
	}
}
