package recorder

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/store/api"
)

// As a match is recorded, the recorder keeps a snapshot of its live state
// each time it passes a multiple of fold.DefaultSnapshotEvery events: a
// state the fold at its sequence agrees with, which a seek then starts
// from.
func TestRecorderKeepsSnapshots(t *testing.T) {
	ctx := context.Background()
	r := newRecorder(t)
	setup := sim.RandomMatch(ed3e.Rules{}, rand.New(rand.NewPCG(5, 3)))
	for i := range setup.Units { // Toughness 10: nobody falls, the match goes on
		for j := range setup.Units[i].Models {
			setup.Units[i].Models[j].T = 10
		}
	}
	res, err := r.Create(ctx, api.CreateRequest{Match: "long", MatchCreated: setup})
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := editions.Lookup("3e")
	ap := &sim.Autoplay{Rules: rules, Dice: sim.NewDice(5), Digital: true}
	for live, _ := r.Live(ctx, "long"); live.Seq < 2*fold.DefaultSnapshotEvery+10 && !live.Ended; live, _ = r.Live(ctx, "long") {
		actor, c, _ := ap.Next(live)
		tok := res.Tokens[api.RoleJudge]
		if actor.Kind == events.ActorPlayer {
			tok = res.Tokens[api.RolePlayer(actor.ID)]
		}
		if _, err := r.Execute(ctx, "long", tok, c); err != nil {
			t.Fatal(err)
		}
	}
	live, _ := r.Live(ctx, "long")
	if live.Seq < 2*fold.DefaultSnapshotEvery {
		t.Fatalf("the match ended at event %d, too soon to have two snapshots", live.Seq)
	}
	st := r.st.(interface {
		NearestSnapshot(context.Context, string, uint64) (uint64, []byte, error)
	})
	var at uint64
	var data []byte
	for start := time.Now(); at < 2*fold.DefaultSnapshotEvery; time.Sleep(10 * time.Millisecond) { // written in the background
		at, data, _ = st.NearestSnapshot(ctx, "long", live.Seq)
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the nearest snapshot to %d is at %d", live.Seq, at)
		}
	}
	snap, err := fold.DecodeSnapshot(data, editions.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := fold.Fold(ctx, r.st, "long", at, editions.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	if sh, _ := snap.Hash(); snap.Seq != at || sh != mustHash(t, want) {
		t.Fatalf("the snapshot at %d is not the fold at %d", at, at)
	}
	if at, _, _ := st.NearestSnapshot(ctx, "long", fold.DefaultSnapshotEvery-1); at != 0 {
		t.Fatalf("a snapshot before event %d: %d", fold.DefaultSnapshotEvery, at)
	}
}

func mustHash(t *testing.T, s interface{ Hash() (events.Hash, error) }) events.Hash {
	t.Helper()
	h, err := s.Hash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
