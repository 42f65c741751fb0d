package replay_test

import (
	"context"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

func load(t *testing.T, st store.Store) []events.Event {
	t.Helper()
	var evs []events.Event
	if err := st.Scan(context.Background(), "audit1", 1, func(e events.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return evs
}

func foldAs(t *testing.T, evs []events.Event, mode fold.Mode) *projector.State {
	t.Helper()
	f := fold.NewFolder("audit1", editions.Lookup)
	f.Mode = mode
	for _, e := range evs {
		if err := f.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	return f.State
}

// Void and amend change the match as ruled; the match as played and every
// stored event stay as they were.
func TestRulingsFoldAsRuledAndAsPlayed(t *testing.T) {
	for _, decision := range []string{events.RulingVoid, events.RulingAmend} {
		t.Run(decision, func(t *testing.T) {
			path, hitRoll, tokens := recordedWithTokens(t)
			st, err := bolt.Open(path, bolt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			before := load(t, st)
			played0, _ := foldAs(t, before, fold.AsPlayed).Hash()
			rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
			ctx := context.Background()
			out, err := rec.Execute(ctx, "audit1", tokens[api.RolePlayer("bob")],
				projector.Command{Type: projector.CmdDispute, Event: hitRoll, Reason: "cocked dice"})
			if err != nil {
				t.Fatal(err)
			}
			c := projector.Command{Type: projector.CmdRule, Dispute: out.Events[0].Seq, Decision: decision}
			if decision == events.RulingAmend {
				c.Values = make([]int, 6) // the first roll was 6 dice (3 models × 2 shots)
				for i := range c.Values {
					c.Values[i] = 1
				}
			}
			if _, err := rec.Execute(ctx, "audit1", tokens[api.RolePlayer("bob")], c); err == nil {
				t.Fatal("a player ruled")
			}
			if _, err := rec.Execute(ctx, "audit1", tokens[api.RoleJudge], c); err != nil {
				t.Fatal(err)
			}
			after := load(t, st)
			for i := range before {
				if after[i].Hash != before[i].Hash {
					t.Fatalf("event %d changed", before[i].Seq)
				}
			}
			ruled := foldAs(t, after, fold.AsRuled)
			played := foldAs(t, after, fold.AsPlayed)
			// As played: the same board as before, plus the dispute record.
			if len(played.Skipped) != 0 || len(played.Disputes) != 1 {
				t.Fatalf("as played: skipped %v disputes %v", played.Skipped, played.Disputes)
			}
			if alive := len(played.Unit("boyz").AliveModels()); alive != len(foldAs(t, before, fold.AsPlayed).Unit("boyz").AliveModels()) {
				t.Fatalf("as played, the board changed: %d boyz", alive)
			}
			// As ruled: every hit of the first roll is gone (all 1s, or voided),
			// so no boy was lost, and later rolls of that attack no longer count.
			if alive := len(ruled.Unit("boyz").AliveModels()); alive != 3 {
				t.Fatalf("as ruled, %d boyz alive, want 3", alive)
			}
			if len(ruled.Skipped) == 0 {
				t.Fatal("events that no longer fold as ruled are not listed")
			}
			h1, _ := ruled.Hash()
			h2, _ := played.Hash()
			if h1 == h2 || played0 == (events.Hash{}) {
				t.Fatal("as ruled equals as played")
			}
			// The recorder's live state is the match as ruled.
			live, err := rec.State(ctx, "audit1", 0)
			if err != nil {
				t.Fatal(err)
			}
			if lh, _ := live.Hash(); lh != h1 {
				t.Fatal("the recorder's state is not the match as ruled")
			}
		})
	}
}
