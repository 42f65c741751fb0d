package projector_test

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/script"
)

func TestSuggest(t *testing.T) {
	cands := []string{"tac", "dev", "boyz", "boy-10", "boy-1", "heavy-bolter"}
	for key, want := range map[string]string{
		"tac2": "tac", "Boyz": "boyz", "boy1": "boy-1", "boy-11": "boy-1", "heavy_bolter": "heavy-bolter",
		"heavybolt": "heavy-bolter", "zzz": "", "tac": "",
	} {
		if got := projector.Suggest(key, cands); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", key, got, want)
		}
	}
}

// boltguns is the 3e example set up in memory, with no step played.
func boltguns(t *testing.T) *projtest.Game {
	sc, err := script.Read("../examples/3e-boltguns-vs-boyz.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return projtest.New(t, ed3e.Rules{}, sc.Match.Created())
}

func TestRefusalsSayWhatIsMeant(t *testing.T) {
	alice, bob := projtest.Player("alice"), projtest.Player("bob")
	judge := events.Actor{Kind: events.ActorJudge, ID: "judge"}
	g := boltguns(t)

	// Before turn 1 the refusal names who starts, not an empty player.
	r := g.Refused(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting}, projector.CodeWrongPlayer)
	if !strings.Contains(r.Reason, "Alice starts turn 1") || strings.Contains(r.Reason, "'s turn") {
		t.Errorf("before turn 1: %q", r.Reason)
	}
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})

	// Typos in unit, model and weapon ids get a suggestion.
	for _, tc := range []struct {
		c    projector.Command
		code projector.Code
		hint string
	}{
		{projector.Command{Type: projector.CmdShoot, Unit: "tac2", Target: "boyz"}, projector.CodeUnknownUnit, `did you mean unit "tac"`},
		{projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boys"}, projector.CodeUnknownUnit, `did you mean unit "boyz"`},
		{projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-hbb": "heavy-bolter"}}, projector.CodeUnknownModel, `did you mean model "tac-hb"`},
		{projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-hb": "heavy-boltr"}}, projector.CodeUnknownWeapon, `did you mean weapon "heavy-bolter"`},
	} {
		if r := g.Refused(alice, tc.c, tc.code); !strings.Contains(r.Reason, tc.hint) {
			t.Errorf("%+v: %q lacks %q", tc.c, r.Reason, tc.hint)
		}
	}

	// An unknown command lists what the edition takes.
	r = g.Refused(alice, projector.Command{Type: "shot"}, projector.CodeUnknownCommand)
	for _, want := range []string{"shoot", "casualties", "next-turn", "rule"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("unknown command: %q lacks %q", r.Reason, want)
		}
	}

	// Only the judge rules or reveals: a player gets not_judge.
	g.Do(bob, projector.Command{Type: projector.CmdDispute, Event: 3, Reason: "too early"})
	g.Refused(bob, projector.Command{Type: projector.CmdRule, Dispute: g.State.Seq, Decision: events.RulingUphold}, projector.CodeNotJudge)
	g.Refused(alice, projector.Command{Type: projector.CmdReveal}, projector.CodeNotJudge)
	g.Do(judge, projector.Command{Type: projector.CmdRule, Dispute: g.State.Seq, Decision: events.RulingUphold})
}
