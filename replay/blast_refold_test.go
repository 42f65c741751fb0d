package replay_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/recorder"
)

// Issue 22's script: the setup of examples/6e-grot-wood-assault.yaml,
// dev-2 moved to (9, 41.2), then dev-1 alone fires its frag missile (a
// blast) at the Nob Mob, and the rolls the attack asks for. The audit
// after every command, on a real bbolt store, is CLEAN, its fresh re-fold
// equal to the recorder's live state. Before the fix it said
// state_differs from the shot on: the attack waits for its marker with no
// dice step yet (nil steps), and the live state, read through a clone
// that made them an empty list, hashed differently from every re-fold.
func TestBlastShotRefoldsAsRecorded(t *testing.T) {
	ctx := context.Background()
	sc, err := script.Read(filepath.Join("..", "examples", "6e-grot-wood-assault.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	st := openBolt(t)
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	created, err := rec.Create(ctx, api.CreateRequest{Match: "blast", MatchCreated: sc.Match.Created()})
	if err != nil {
		t.Fatal(err)
	}
	xy := func(v float64) *float64 { return &v }
	alice, bob := api.RolePlayer("alice"), api.RolePlayer("bob")
	steps := []struct {
		role string
		cmd  projector.Command
	}{
		{alice, projector.Command{Type: projector.CmdNextTurn}},
		{alice, projector.Command{Type: projector.CmdMove, Unit: "dev", Model: "dev-2", X: xy(9), Y: xy(41.2)}},
		{alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting}},
		{alice, projector.Command{Type: projector.CmdShoot, Unit: "dev", Target: "nobz", Weapons: map[string]string{"dev-1": "frag-missile"}}},
		// The rolls asked: the blast centred on Grukk, a scatter of 2"
		// that still covers him, the wound, no Look Out, Sir, the save.
		{alice, projector.Command{Type: "place", X: xy(30), Y: xy(11)}},
		{alice, projector.Command{Type: projector.CmdRoll, Values: []int{3, 1, 3, 3}}},
		{alice, projector.Command{Type: projector.CmdRoll, Values: []int{5}}},
		{bob, projector.Command{Type: projector.CmdDecline}},
		{bob, projector.Command{Type: projector.CmdRoll, Values: []int{2}}},
	}
	for i, s := range steps {
		if _, err := rec.Execute(ctx, "blast", created.Tokens[s.role], s.cmd); err != nil {
			t.Fatalf("step %d (%s by %s): %v", i+1, s.cmd.Type, s.role, err)
		}
		live, err := rec.Live(ctx, "blast")
		if err != nil {
			t.Fatal(err)
		}
		lh, _ := live.Hash()
		rep, err := replay.AuditStore(ctx, st, "blast", editions.Lookup, &lh)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK || !rep.Checks.Refold.Compared {
			t.Fatalf("after step %d (%s): audit %s: %v", i+1, s.cmd.Type, rep.Verdict, rep.Problems)
		}
	}
	s, _ := rec.Live(ctx, "blast")
	if s.Attack != nil || s.LastAttack == nil || s.LastAttack.Hits != 1 || s.LastAttack.Unsaved != 1 {
		t.Fatalf("the shot did not end as scripted: attack %+v, last %+v", s.Attack, s.LastAttack)
	}
}
