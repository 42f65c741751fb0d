package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// The optional abilities: each subtest is skipped for a store without it.

func testSecrets(t *testing.T, s store.Store) {
	sec, ok := s.(store.Secrets)
	if !ok {
		t.Skip("no store.Secrets")
	}
	ctx := context.Background()
	if _, err := sec.Secret(ctx, "m", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing secret: %v", err)
	}
	secret := []byte("0123456789abcdef0123456789abcdef")
	if err := sec.PutSecret(ctx, "m", 0, secret); err != nil {
		t.Fatal(err)
	}
	secret[0] = 'X' // the store kept its own copy
	got, err := sec.Secret(ctx, "m", 0)
	if err != nil || string(got) != "0123456789abcdef0123456789abcdef" {
		t.Fatalf("secret %q, %v", got, err)
	}
	if _, err := sec.Secret(ctx, "m", 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("other epoch: %v", err)
	}
	if _, err := sec.Secret(ctx, "other", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("other match: %v", err)
	}
}

func testSnapshots(t *testing.T, s store.Store) {
	sn, ok := s.(store.Snapshots)
	if !ok {
		t.Skip("no store.Snapshots")
	}
	ctx := context.Background()
	if _, _, err := sn.NearestSnapshot(ctx, "m", 100); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("no snapshot: %v", err)
	}
	err := sn.PutSnapshots(ctx, "m", map[uint64][]byte{10: []byte("ten"), 20: []byte("twenty")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at, wantAt uint64
		want       string
	}{{10, 10, "ten"}, {15, 10, "ten"}, {20, 20, "twenty"}, {1000, 20, "twenty"}} {
		at, got, err := sn.NearestSnapshot(ctx, "m", c.at)
		if err != nil || string(got) != c.want || at != c.wantAt {
			t.Fatalf("nearest to %d: %q at %d, %v", c.at, got, at, err)
		}
	}
	if _, _, err := sn.NearestSnapshot(ctx, "m", 9); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("before the first snapshot: %v", err)
	}
	if err := sn.DeleteSnapshot(ctx, "m", 20); err != nil {
		t.Fatal(err)
	}
	if at, _, _ := sn.NearestSnapshot(ctx, "m", 1000); at != 10 {
		t.Fatalf("after delete: %d", at)
	}
}

func testRawScan(t *testing.T, s store.Store) {
	raw, ok := s.(store.RawScanner)
	if !ok {
		t.Skip("no store.RawScanner")
	}
	ctx := context.Background()
	evs := MakeEvents("m", 1, events.Hash{}, 5)
	mustAppend(t, s, "m", 0, evs)
	var keys []uint64
	err := raw.ScanRaw(ctx, "m", 0, func(k uint64, b []byte) error {
		keys = append(keys, k)
		if !bytes.Equal(b, events.Marshal(evs[k-1])) {
			t.Fatalf("record %d is not the marshalled event", k)
		}
		return nil
	})
	if err != nil || len(keys) != 5 {
		t.Fatalf("raw scan: %v %v", keys, err)
	}
	var tail []uint64
	if err := raw.ScanRaw(ctx, "m", 4, func(k uint64, _ []byte) error { tail = append(tail, k); return nil }); err != nil || len(tail) != 2 || tail[0] != 4 {
		t.Fatalf("raw scan from 4: %v %v", tail, err)
	}
	if err := raw.ScanRaw(ctx, "nope", 0, func(uint64, []byte) error { return nil }); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown match: %v", err)
	}
}

// branchEvents makes n events of branch id continuing parent's event at.
func branchEvents(t *testing.T, s store.Store, parent, id string, at uint64, n int) []events.Event {
	t.Helper()
	prev := scan(t, s, parent, at)[0].Hash
	return makeEvents(id, at+1, prev, n, "brancher")
}

func testBranch(t *testing.T, s store.Store) {
	br, ok := s.(store.Brancher)
	if !ok {
		t.Skip("no store.Brancher")
	}
	ctx := context.Background()
	parent := MakeEvents("p", 1, events.Hash{}, 10)
	mustAppend(t, s, "p", 0, parent)
	own := branchEvents(t, s, "p", "b", 4, 2)
	// Refusals write nothing.
	if err := br.Branch(ctx, "b", "nope", 4, own); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown parent: %v", err)
	}
	if err := br.Branch(ctx, "b", "p", 11, branchEvents(t, s, "p", "b", 10, 1)[:0]); err == nil {
		t.Fatal("empty branch events accepted")
	}
	bad := makeEvents("b", 5, events.Hash{1}, 1, "x")
	if err := br.Branch(ctx, "b", "p", 4, bad); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("branch not linked to the fork: %v", err)
	}
	if _, err := s.Head(ctx, "b"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("a refused branch exists")
	}
	if err := br.Branch(ctx, "b", "p", 4, own); err != nil {
		t.Fatal(err)
	}
	if err := br.Branch(ctx, "b", "p", 4, own); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second branch with the same id: %v", err)
	}
	got := scan(t, s, "b", 1)
	if len(got) != 6 {
		t.Fatalf("branch has %d events, want 4 inherited + 2 own", len(got))
	}
	for i := 0; i < 4; i++ {
		if got[i].Hash != parent[i].Hash || got[i].Match != "p" {
			t.Fatalf("inherited event %d is not the parent's", i+1)
		}
	}
	if got[4].Hash != own[0].Hash || got[5].Match != "b" {
		t.Fatal("own events wrong")
	}
	if from3 := scan(t, s, "b", 3); len(from3) != 4 || from3[0].Seq != 3 {
		t.Fatalf("scan from 3: %d events", len(from3))
	}
	if from6 := scan(t, s, "b", 6); len(from6) != 1 || from6[0].Seq != 6 {
		t.Fatalf("scan from 6: %d events", len(from6))
	}
	// The branch continues; the parent is untouched.
	mustAppend(t, s, "b", 6, makeEvents("b", 7, own[1].Hash, 1, "x"))
	if h, _ := s.Head(ctx, "p"); h.Seq != 10 || h.Hash != parent[9].Hash {
		t.Fatal("parent changed")
	}
	if err := s.Append(ctx, "b", 4, makeEvents("b", 5, parent[3].Hash, 1, "y")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("append at the fork of a branch with events: %v", err)
	}
	lin, err := br.Lineage(ctx, "b")
	if err != nil || len(lin) != 2 || lin[0] != (events.BranchPoint{Match: "p", Upto: 4}) || lin[1] != (events.BranchPoint{Match: "b"}) {
		t.Fatalf("lineage %+v %v", lin, err)
	}
	ms, _ := s.Matches(ctx)
	found := false
	for _, m := range ms {
		if m.ID == "b" {
			found = m.Parent == "p" && m.At == 4 && m.Head.Seq == 7
		}
	}
	if !found {
		t.Fatalf("branch not listed with its parent: %+v", ms)
	}
}

func testBranchOfBranch(t *testing.T, s store.Store) {
	br, ok := s.(store.Brancher)
	if !ok {
		t.Skip("no store.Brancher")
	}
	ctx := context.Background()
	mustAppend(t, s, "a", 0, MakeEvents("a", 1, events.Hash{}, 10))
	if err := br.Branch(ctx, "b", "a", 3, branchEvents(t, s, "a", "b", 3, 5)); err != nil {
		t.Fatal(err)
	}
	if err := br.Branch(ctx, "c", "b", 6, branchEvents(t, s, "b", "c", 6, 2)); err != nil {
		t.Fatal(err)
	}
	got := scan(t, s, "c", 1)
	want := []string{"a", "a", "a", "b", "b", "b", "c", "c"}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	var prev events.Hash
	for i, e := range got {
		if e.Match != want[i] || e.Seq != uint64(i+1) {
			t.Fatalf("event %d: match %s seq %d", i+1, e.Match, e.Seq)
		}
		if err := events.Verify(e, prev); err != nil {
			t.Fatalf("chain through the branches: %v", err)
		}
		prev = e.Hash
	}
	lin, _ := br.Lineage(ctx, "c")
	if len(lin) != 3 || lin[0].Upto != 3 || lin[1].Upto != 6 || lin[2].Match != "c" {
		t.Fatalf("lineage %+v", lin)
	}
	if raw, ok := s.(store.RawScanner); ok {
		n := 0
		_ = raw.ScanRaw(ctx, "c", 0, func(k uint64, _ []byte) error { n++; return nil })
		if n != 8 {
			t.Fatalf("raw scan of a branch: %d records", n)
		}
	}
}

// testRequests: the request index is written with its events or not at
// all, a key already indexed writes nothing, and the index is per match.
func testRequests(t *testing.T, s store.Store) {
	rq, ok := s.(store.Requests)
	if !ok {
		t.Skip("no store.Requests")
	}
	ctx := context.Background()
	key := []byte("player:p1\x00nonce-0123456789")
	if _, err := rq.Request(ctx, "m", key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing request: %v", err)
	}
	evs := MakeEvents("m", 1, events.Hash{}, 3)
	want := store.Request{Statement: [32]byte{1, 2, 3}, First: 1, Last: 2}
	if err := rq.AppendRequest(ctx, "m", 0, evs[:2], key, want); err != nil {
		t.Fatal(err)
	}
	got, err := rq.Request(ctx, "m", key)
	if err != nil || got != want {
		t.Fatalf("request %+v, %v; want %+v", got, err, want)
	}
	// The same key again: ErrDuplicate, nothing written (the duplicate is
	// found before the head is checked, so even a fresh expected seq fails).
	if err := rq.AppendRequest(ctx, "m", 2, evs[2:], key, store.Request{First: 3, Last: 3}); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("duplicate key: %v", err)
	}
	if h, _ := s.Head(ctx, "m"); h.Seq != 2 {
		t.Fatalf("a duplicate request wrote events: head %d", h.Seq)
	}
	// A stale append writes no index entry.
	other := []byte("judge\x00other-nonce-0000")
	if err := rq.AppendRequest(ctx, "m", 1, evs[1:2], other, store.Request{First: 2, Last: 2}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale append: %v", err)
	}
	if _, err := rq.Request(ctx, "m", other); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused append left an index entry: %v", err)
	}
	if _, err := rq.Request(ctx, "n", key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the index is per match: %v", err)
	}
	if err := rq.AppendRequest(ctx, "m", 2, evs[2:], nil, store.Request{}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("empty key: %v", err)
	}
}
