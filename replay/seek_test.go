package replay_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// playedMatch records an autoplayed 3e match under id in st and returns
// the state after every event (index = seq).
func playedMatch(t testing.TB, st store.Store, id string, seed uint64, turns int) []events.Hash {
	t.Helper()
	g := projtest.New(t, ed3e.Rules{}, sim.RandomMatch(ed3e.Rules{}, rand.New(rand.NewPCG(seed, 9))))
	ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(seed), MaxTurns: turns}
	for {
		actor, c, done := ap.Next(g.State)
		if done {
			break
		}
		g.Do(actor, c)
	}
	evs := projtest.Relabel(id, g.Events)
	if err := st.Append(context.Background(), id, 0, evs); err != nil {
		t.Fatal(err)
	}
	// The reference: a fold from event 1 to every sequence.
	hashes := make([]events.Hash, len(evs)+1)
	f := fold.NewFolder(id, editions.Lookup)
	for _, e := range evs {
		if err := f.Apply(e); err != nil {
			t.Fatal(err)
		}
		hashes[e.Seq], _ = f.State.Hash()
	}
	return hashes
}

func openBolt(t testing.TB) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "events.db"), bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Seek at random sequences of matches equals a fold from event 1, with
// snapshots being written and reused as it goes.
func TestSeekEqualsFold(t *testing.T) {
	st := openBolt(t)
	ctx := context.Background()
	// With the decoded states kept between seeks, as the recorder's are.
	k := &fold.Seeker{Log: st, Lookup: editions.Lookup, Every: 16, States: &fold.States{Max: 20}}
	r := rand.New(rand.NewPCG(1, 2))
	for m := 0; m < 4; m++ {
		id := fmt.Sprintf("seek%d", m)
		want := playedMatch(t, st, id, uint64(m+1), 6)
		n := uint64(len(want) - 1)
		for i := 0; i < 150; i++ {
			seq := 1 + r.Uint64N(n)
			s, err := k.StateAt(ctx, id, seq)
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := s.Hash(); h != want[seq] {
				t.Fatalf("%s: seek to %d differs from a fold from event 1", id, seq)
			}
		}
		if at, _, err := st.NearestSnapshot(ctx, id, n); err != nil || at == 0 {
			t.Fatalf("no snapshot was kept: %v", err)
		}
		sums, err := k.SnapshotSums(ctx, id)
		if err != nil || len(sums) == 0 {
			t.Fatalf("snapshot sums: %v %v", sums, err)
		}
		for seq, sum := range sums {
			if sum != want[seq] {
				t.Fatalf("%s: the snapshot at %d lists another state than the fold's", id, seq)
			}
		}
		if _, err := k.StateAt(ctx, id, n+1); !errors.Is(err, fold.ErrBeyondEnd) {
			t.Fatalf("seek past the end: %v", err)
		}
	}
}

// A damaged, stale or forged snapshot is detected and ignored, and the
// answer is still right.
func TestBadSnapshotsAreIgnored(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(s *projector.State, b []byte) []byte{
		"damaged": func(_ *projector.State, b []byte) []byte {
			c := append([]byte(nil), b...)
			c[len(c)/2] ^= 0xff
			return c
		},
		"stale version": func(s *projector.State, _ []byte) []byte {
			b, _ := events.EncodeValue(map[string]any{"v": projector.StateVersion + 1, "e": s.Edition, "s": s.Seq})
			return b
		},
		"not on the log": func(s *projector.State, _ []byte) []byte {
			c := s.Clone()
			c.Head[0] ^= 1
			b, _ := fold.EncodeSnapshot(c)
			return b
		},
		"forged but consistent": func(s *projector.State, _ []byte) []byte {
			c := s.Clone()
			c.Units[0].Models[0].Removed = !c.Units[0].Models[0].Removed
			b, _ := fold.EncodeSnapshot(c)
			return b
		},
	}
	for name, forge := range cases {
		t.Run(name, func(t *testing.T) {
			st := openBolt(t)
			want := playedMatch(t, st, "bad", 5, 4)
			at := uint64(len(want)-1) / 2
			k := &fold.Seeker{Log: st, Lookup: editions.Lookup, Every: 1 << 30, States: &fold.States{}}
			good, err := k.StateAt(ctx, "bad", at)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := fold.EncodeSnapshot(good)
			if err := st.PutSnapshots(ctx, "bad", map[uint64][]byte{at: forge(good, b)}); err != nil {
				t.Fatal(err)
			}
			sums, err := k.SnapshotSums(ctx, "bad")
			if err != nil || len(sums) != 1 {
				t.Fatalf("the cache lists %v (%v), want the snapshot at %d", sums, err, at)
			}
			if sums[at] == want[at] {
				t.Fatal("the listed sum of a bad snapshot is the state's hash")
			}
			if name == "forged but consistent" {
				// Only a fresh fold can tell: the audit compares the sums
				// with its own and has those that differ discarded.
				if err := k.Discard(ctx, "bad", []uint64{at}); err != nil {
					t.Fatal(err)
				}
			}
			s, err := k.StateAt(ctx, "bad", at+1)
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := s.Hash(); h != want[at+1] {
				t.Fatal("a bad snapshot changed the answer")
			}
			if got, _, err := st.NearestSnapshot(ctx, "bad", at); err == nil && got == at {
				t.Fatal("the bad snapshot was kept")
			}
		})
	}
}

// Seeks across rulings: a match whose early roll is voided mid-match, and
// later a roll made after that, with play going on as ruled and snapshots
// before, between and after the rulings. Every seek equals a fold from
// event 1, whichever snapshot it starts from (one from before a ruling
// must pick it up from the log, one from after it must carry it on).
func TestSeekAcrossRulings(t *testing.T) {
	g := projtest.New(t, ed3e.Rules{}, sim.RandomMatch(ed3e.Rules{}, rand.New(rand.NewPCG(5, 9))))
	ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(5), MaxTurns: 5}
	play := func(n int) {
		for len(g.Events) < n {
			actor, c, done := ap.Next(g.State)
			if done {
				return
			}
			g.Do(actor, c)
		}
	}
	play(40)
	g.Void(g.FirstRoll())
	ruling := g.State.Seq
	play(100)
	// A second ruling, on a roll made after the first: a fold resumed from
	// a snapshot between the two must refold under both.
	later := uint64(0)
	for _, e := range g.Events[ruling:] {
		if e.Type == events.TypeDiceRolled {
			later = e.Seq
			break
		}
	}
	g.Void(later)
	play(1000)
	st := openBolt(t)
	ctx := context.Background()
	evs := projtest.Relabel("ruled", g.Events)
	if err := st.Append(ctx, "ruled", 0, evs); err != nil {
		t.Fatal(err)
	}
	want := make([]events.Hash, len(evs)+1)
	f := fold.NewFolder("ruled", editions.Lookup)
	for _, e := range evs {
		if err := f.Apply(e); err != nil {
			t.Fatal(err)
		}
		want[e.Seq], _ = f.State.Hash()
	}
	if !f.Ruled() || uint64(len(evs)) < ruling+40 {
		t.Fatalf("the match has %d events, ruling at %d", len(evs), ruling)
	}
	k := &fold.Seeker{Log: st, Lookup: editions.Lookup, Every: 16}
	// Forwards, so each seek starts from the snapshots the last one kept.
	for seq := uint64(1); seq <= uint64(len(evs)); seq++ {
		s, err := k.StateAt(ctx, "ruled", seq)
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := s.Hash(); h != want[seq] {
			t.Fatalf("seek to %d (ruling at %d) differs from a fold from event 1", seq, ruling)
		}
	}
}

// A branch seeks through its ancestors' snapshots: its state after an
// inherited event is the parent's (for the branch), so a branch made at
// the end of a long match seeks as fast as the match.
func TestBranchSeeksThroughItsParentsSnapshots(t *testing.T) {
	ctx := context.Background()
	st := &countingStore{Store: openBolt(t)}
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	created, _, err := generate.Long(ctx, generate.Direct{Recorder: rec}, ed3e.Rules{}, "long", 1000, 6)
	if err != nil {
		t.Fatal(err)
	}
	k := &fold.Seeker{Log: st, Lookup: editions.Lookup, Every: 16}
	if _, err := k.StateAt(ctx, "long", 0); err != nil { // the parent's snapshots
		t.Fatal(err)
	}
	if _, err := rec.Branch(ctx, api.BranchRequest{Parent: "long", At: 900, Match: "kid", Token: created.Tokens[api.RoleJudge]}); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{890, 901} {
		st.read = 0
		s, err := k.StateAt(ctx, "kid", seq)
		if err != nil {
			t.Fatal(err)
		}
		// The parent's nearest snapshot is at most 128 events back: the
		// recorder keeps one each 128 events as it records (the parent's
		// seek above starts from the newest and keeps every 16 after it).
		if st.read > int(fold.DefaultSnapshotEvery)+20 {
			t.Fatalf("seeking the branch to %d read %d events", seq, st.read)
		}
		want, _, err := fold.Fold(ctx, st, "kid", seq, editions.Lookup)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Hash()
		if wh, _ := want.Hash(); s.Match != "kid" || got != wh {
			t.Fatalf("the branch's state at %d differs from a fold from event 1", seq)
		}
	}
}
