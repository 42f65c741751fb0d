package replay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// A branch at SEQ continued with new events leaves the parent untouched;
// its events 1..SEQ are the parent's; its audit passes (the parent's dice
// and its own); and a branch of a branch too.
func TestBranches(t *testing.T) {
	path, hitRoll, tokens := recordedWithTokens(t)
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	parentBefore := load(t, st)
	at := hitRoll - 1 // just before the first hit roll: the attack is declared
	b1, err := rec.Branch(ctx, api.BranchRequest{Parent: "audit1", At: at, Match: "what-if-1", Name: "again", Token: tokens[api.RoleJudge]})
	if err != nil {
		t.Fatal(err)
	}
	// Play the branch on: roll the attack again with its own digital dice, then end it.
	play := func(id string, tokens map[string]string) {
		t.Helper()
		for i := 0; i < 10; i++ {
			s, err := rec.State(ctx, id, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s.Attack == nil {
				break
			}
			tok := tokens[api.RolePlayer(s.Pending.Player)]
			c := projector.Command{Type: projector.CmdRoll, Digital: true}
			seedAll(t, rec, id, tokens)
			if s.Pending.Kind == projector.WaitCasualties {
				c = projector.Command{Type: projector.CmdCasualties, Models: s.Attack.Eligible[:s.Pending.Count]}
			}
			if _, err := rec.Execute(ctx, id, tok, c); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
		}
		if _, err := rec.Execute(ctx, id, tokens[api.RoleJudge], projector.Command{Type: projector.CmdEnd}); err != nil {
			t.Fatal(err)
		}
	}
	play("what-if-1", b1.Tokens)

	// The parent is untouched.
	parentAfter := load(t, st)
	if len(parentAfter) != len(parentBefore) || parentAfter[len(parentAfter)-1].Hash != parentBefore[len(parentBefore)-1].Hash {
		t.Fatal("branching changed the parent")
	}
	var branch []events.Event
	_ = st.Scan(ctx, "what-if-1", 1, func(e events.Event) error { branch = append(branch, e); return nil })
	for i := uint64(0); i < at; i++ {
		if branch[i].Hash != parentBefore[i].Hash {
			t.Fatalf("branch event %d is not the parent's", i+1)
		}
	}
	if branch[at].Type != events.TypeBranchCreated || branch[at].Match != "what-if-1" {
		t.Fatalf("event %d of the branch is %s of %s", at+1, branch[at].Type, branch[at].Match)
	}
	s, err := rec.State(ctx, "what-if-1", 0)
	if err != nil || s.Branch == nil || s.Branch.Parent != "audit1" || s.Match != "what-if-1" || !s.Ended {
		t.Fatalf("branch state %+v %v", s.Branch, err)
	}
	rep, err := replay.AuditStore(ctx, st, "what-if-1", editions.Lookup, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Checks.Dice.Checked == 0 || len(rep.PendingReveal) != 0 {
		t.Fatalf("branch audit: ok=%v chain=%v dice=%+v refold=%v", rep.OK, rep.Problems, rep.Checks.Dice, rep.Problems)
	}
	// A parent's old tokens do not play the branch.
	if _, err := rec.Execute(ctx, "what-if-1", b1.Tokens["player:bob"]+"x", projector.Command{Type: projector.CmdDispute, Event: 1, Reason: "x"}); err == nil {
		t.Fatal("a wrong token was accepted")
	}

	// A branch of the branch, forked inside the branch's own events.
	b2, err := rec.Branch(ctx, api.BranchRequest{Parent: "what-if-1", At: at + 3, Match: "what-if-2", Token: b1.Tokens[api.RolePlayer("bob")]})
	if err != nil {
		t.Fatal(err)
	}
	play("what-if-2", b2.Tokens)
	rep2, err := replay.AuditStore(ctx, st, "what-if-2", editions.Lookup, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep2.OK || len(rep2.PendingReveal) != 0 {
		t.Fatalf("branch of branch audit: chain=%v dice=%+v refold=%v", rep2.Problems, rep2.Checks.Dice, rep2.Problems)
	}
	if err := st.Check(); err != nil {
		t.Fatalf("store check with branches: %v", err)
	}
	// A fork past the parent.s last event is refused.
	if _, err := rec.Branch(ctx, api.BranchRequest{Parent: "audit1", At: 1000, Token: tokens[api.RoleJudge]}); err == nil {
		t.Fatal("branch past the parent's end accepted")
	}
}

func TestDiffShowsWhereLinesPart(t *testing.T) {
	path, hitRoll, tokens := recordedWithTokens(t)
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	b, err := rec.Branch(ctx, api.BranchRequest{Parent: "audit1", At: hitRoll - 1, Match: "b", Token: tokens[api.RolePlayer("alice")]})
	if err != nil {
		t.Fatal(err)
	}
	// In the branch, every hit misses: nobody is lost.
	if _, err := rec.Execute(ctx, "b", b.Tokens["player:alice"], projector.Command{Type: projector.CmdRoll, Values: []int{1, 1, 1, 1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	d, err := replay.DiffMatches(ctx, st, "audit1", "b", editions.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	if d.Common != hitRoll-1 {
		t.Fatalf("lines part after %d, want %d", d.Common, hitRoll-1)
	}
	parent, _, _ := fold.Fold(ctx, st, "audit1", 0, editions.Lookup)
	lost := parent.TallyOf("bob").ModelsLost
	var bob api.SideDiff
	for _, sd := range d.Sides {
		if sd.Player == "bob" {
			bob = sd
		}
	}
	if bob.ModelsLostA != lost || bob.ModelsLostB != 0 {
		t.Fatalf("bob lost %d as played and %d in the branch: %+v", lost, 0, bob)
	}
	if lost > 0 && (len(d.Units) != 1 || d.Units[0].Unit != "boyz" || len(d.Units[0].OnlyB) != lost) {
		t.Fatalf("unit diff %+v", d.Units)
	}
}

// A branch forks after a whole command: at an event a command recorded
// with more after it (an 11e phase change and its shooting step), it is
// refused, naming the command's last event, and nothing is created; at
// that last event it is made, and audits CLEAN. (A branch cut inside a
// command held part of one, which its audit re-decided whole: redecided.)
func TestBranchForksAfterAWholeCommand(t *testing.T) {
	ctx := context.Background()
	st := openBolt(t)
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	opts := generate.Options{Edition: "11e", Seed: 3, Players: generate.DefaultPlayers}
	created, err := rec.Create(ctx, generate.Setup(mustRules("11e"), opts, 0))
	if err != nil {
		t.Fatal(err)
	}
	id, tokens := created.Match, created.Tokens
	s, _ := rec.Live(ctx, id)
	a := tokens[api.RolePlayer(s.First)]
	for _, c := range []projector.Command{{Type: projector.CmdNextTurn}, {Type: projector.CmdPhase, Phase: projector.PhaseShooting}} {
		if _, err := rec.Execute(ctx, id, a, c); err != nil {
			t.Fatal(err)
		}
	}
	var evs []events.Event
	if err := st.Scan(ctx, id, 1, func(e events.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if prev := evs[len(evs)-2]; !prev.Auth.Same(last.Auth) {
		t.Fatalf("the phase command recorded one event (%s), not two", last.Type)
	}
	_, err = rec.Branch(ctx, api.BranchRequest{Parent: id, At: last.Seq - 1, Match: "cut", Token: tokens[api.RoleJudge]})
	if api.CodeOf(err) != projector.CodeBadRequest || !strings.Contains(err.Error(), fmt.Sprintf("branch at %d", last.Seq)) {
		t.Fatalf("a branch inside a command: %v", err)
	}
	if _, err := st.Head(ctx, "cut"); err == nil {
		t.Fatal("the refused branch was created")
	}
	if _, err := rec.Branch(ctx, api.BranchRequest{Parent: id, At: last.Seq, Match: "whole", Token: tokens[api.RoleJudge]}); err != nil {
		t.Fatal(err)
	}
	live, _ := rec.Live(ctx, "whole")
	lh, _ := live.Hash()
	if rep, err := replay.AuditStore(ctx, st, "whole", editions.Lookup, &lh); err != nil || !rep.OK {
		t.Fatalf("the branch's audit: %v %v", err, rep.Problems)
	}
}
