// Package storetest is the conformance suite for store.Store backends: one
// Run that holds every implementation to the edge cases documented in
// package store, plus helpers for building valid event chains that other
// packages' tests reuse.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Clock is the fixed time base of MakeEvents: event seq is stamped
// Clock + seq seconds, so runs are reproducible and times increase.
var Clock = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

// MakeEvents returns n valid events of match numbered from, from+1, ...,
// the first chained to prev (the zero Hash when from is 1) and each to the
// one before. Payloads are events.TurnStarted. It panics only if the codec
// cannot encode a TurnStarted, which is a bug in package events.
func MakeEvents(match string, from uint64, prev events.Hash, n int) []events.Event {
	return makeEvents(match, from, prev, n, "p1")
}

// makeEvents is MakeEvents with a chosen player, so concurrent writers in
// the suite produce distinguishable events for the same seqs.
func makeEvents(match string, from uint64, prev events.Hash, n int, player string) []events.Event {
	out := make([]events.Event, n)
	for i := range out {
		seq := from + uint64(i)
		e, err := events.New(match, seq, prev, Clock+int64(seq)*int64(time.Second),
			events.Actor{Kind: events.ActorPlayer, ID: player},
			events.TurnStarted{Turn: int(seq), Player: player})
		if err != nil {
			panic(fmt.Sprintf("storetest: events.New: %v", err))
		}
		out[i] = e
		prev = e.Hash
	}
	return out
}

// Run runs the conformance suite. open must return a new, empty store for
// each call; it should register its own cleanup (Close, and any checks of
// what the store left behind). The suite closes stores itself only in the
// subtest about closing, so Close must tolerate a second call.
//
// The Outbox subtests run when the store implements store.Outbox and are
// skipped otherwise.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"AppendScanHead", testAppendScanHead},
		{"ScanFrom", testScanFrom},
		{"ScanLarge", testScanLarge},
		{"ScanStopsOnError", testScanStopsOnError},
		{"ScanCallbackMayAppend", testScanCallbackMayAppend},
		{"NotFound", testNotFound},
		{"Matches", testMatches},
		{"Isolation", testIsolation},
		{"Conflict", testConflict},
		{"Invalid", testInvalid},
		{"CanceledContext", testCanceledContext},
		{"Closed", testClosed},
		{"ConcurrentSameExpected", testConcurrentSameExpected},
		{"ConcurrentManyMatches", testConcurrentManyMatches},
		{"OutboxOrder", testOutboxOrder},
		{"OutboxRejectedAppends", testOutboxRejectedAppends},
		{"OutboxPendingCallback", testOutboxPendingCallback},
		{"OutboxNotify", testOutboxNotify},
		{"OutboxConcurrent", testOutboxConcurrent},
		{"Secrets", testSecrets},
		{"Requests", testRequests},
		{"Snapshots", testSnapshots},
		{"RawScan", testRawScan},
		{"Branch", testBranch},
		{"BranchOfBranch", testBranchOfBranch},
		{"IndexEntries", testIndexEntries},
		{"IndexListing", testIndexListing},
		{"IndexBranch", testIndexBranch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// ---- helpers ----

var bg = context.Background()

func mustAppend(t *testing.T, s store.Store, match string, expected uint64, evs []events.Event) {
	t.Helper()
	if err := s.Append(bg, match, expected, evs); err != nil {
		t.Fatalf("Append(%q, %d, %d events): %v", match, expected, len(evs), err)
	}
}

func scan(t *testing.T, s store.Store, match string, from uint64) []events.Event {
	t.Helper()
	var out []events.Event
	if err := s.Scan(bg, match, from, func(e events.Event) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatalf("Scan(%q, %d): %v", match, from, err)
	}
	return out
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

func sameEvent(a, b events.Event) bool {
	return a.Match == b.Match && a.Seq == b.Seq && a.Type == b.Type && a.Version == b.Version &&
		a.Time == b.Time && a.Actor == b.Actor && bytes.Equal(a.Payload, b.Payload) &&
		a.PrevHash == b.PrevHash && a.Hash == b.Hash
}

// wantLog checks that match holds exactly want, in order.
func wantLog(t *testing.T, s store.Store, match string, want []events.Event) {
	t.Helper()
	got := scan(t, s, match, 0)
	if len(got) != len(want) {
		t.Fatalf("match %q: scanned %d events, want %d", match, len(got), len(want))
	}
	for i := range want {
		if !sameEvent(got[i], want[i]) {
			t.Fatalf("match %q: event %d is %+v, want %+v", match, i+1, got[i], want[i])
		}
	}
}

// wantHead checks Head against the last of evs.
func wantHead(t *testing.T, s store.Store, match string, evs []events.Event) {
	t.Helper()
	h, err := s.Head(bg, match)
	if err != nil {
		t.Fatalf("Head(%q): %v", match, err)
	}
	last := evs[len(evs)-1]
	if want := (store.Head{Seq: last.Seq, Hash: last.Hash}); h != want {
		t.Fatalf("Head(%q) = %d/%s, want %d/%s", match, h.Seq, h.Hash, want.Seq, want.Hash)
	}
}

// verifyChain checks that match is numbered 1..n and hash-chained, and
// returns n and the last hash.
func verifyChain(t *testing.T, s store.Store, match string) store.Head {
	t.Helper()
	var h store.Head
	err := s.Scan(bg, match, 0, func(e events.Event) error {
		if e.Seq != h.Seq+1 {
			return fmt.Errorf("event %d follows %d", e.Seq, h.Seq)
		}
		if err := events.Verify(e, h.Hash); err != nil {
			return err
		}
		h = store.Head{Seq: e.Seq, Hash: e.Hash}
		return nil
	})
	if err != nil {
		t.Fatalf("match %q: %v", match, err)
	}
	return h
}

func outbox(t *testing.T, s store.Store) store.Outbox {
	t.Helper()
	o, ok := s.(store.Outbox)
	if !ok {
		t.Skip("store does not implement store.Outbox")
	}
	return o
}

func pending(t *testing.T, o store.Outbox, limit int) []store.OutboxEntry {
	t.Helper()
	var out []store.OutboxEntry
	if err := o.Pending(bg, limit, func(e store.OutboxEntry) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatalf("Pending(%d): %v", limit, err)
	}
	return out
}
