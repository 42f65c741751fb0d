package ed11e

import (
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// The three steps of the shooting phase are recorded, in order, every
// time: start with the phase, shoot with the first shot (or the step
// command), end before the phase is left.
func TestShootingPhaseSteps(t *testing.T) {
	g := newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Refused(alice, projector.Command{Type: CmdStep}, projector.CodeWrongPhase)
	n := len(g.Events)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	if ts := types(g, n); !slices.Equal(ts, []events.Type{events.TypePhaseStarted, TypeShootingPhaseStep}) || ed(g.State).Step != StepStart {
		t.Fatalf("events %v, step %q", ts, ed(g.State).Step)
	}
	n = len(g.Events)
	g.Do(alice, shoot("a", "b", Normal))
	if ts := types(g, n); !slices.Equal(ts, []events.Type{TypeShootingPhaseStep, events.TypeShootingDeclared}) || ed(g.State).Step != StepShoot {
		t.Fatalf("events %v, step %q", ts, ed(g.State).Step)
	}
	g.Refused(alice, projector.Command{Type: CmdStep}, projector.CodeWrongStep) // an attack is resolving
	g.Roll(1)
	g.Do(alice, projector.Command{Type: CmdStep})
	if ed(g.State).Step != StepEnd {
		t.Fatalf("step %q", ed(g.State).Step)
	}
	g.Refused(alice, projector.Command{Type: CmdStep}, projector.CodeWrongStep)
	g.Refused(alice, shoot("a", "b", Normal), projector.CodeWrongStep)
	n = len(g.Events)
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	if ts := types(g, n); !slices.Equal(ts, []events.Type{events.TypeTurnStarted}) || ed(g.State).Step != "" {
		t.Fatalf("events %v", ts)
	}
	// Bob goes to shooting and straight on to the next turn: the shoot
	// and end steps are recorded before the turn changes.
	g.Do(bob, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	n = len(g.Events)
	g.Do(bob, projector.Command{Type: projector.CmdNextTurn})
	want := []events.Type{TypeShootingPhaseStep, TypeShootingPhaseStep, events.TypeTurnStarted}
	if ts := types(g, n); !slices.Equal(ts, want) {
		t.Fatalf("events %v, want %v", ts, want)
	}
	same(t, g)
}

// Eligible to shoot: on the battlefield and not yet selected this phase.
func TestShootingEligibility(t *testing.T) {
	g := newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("c", "alice", 1, 12, gun("bolter", 3, 4)),
		squad("b", "bob", 1, 20))
	g.Refused(alice, shoot("a", "b", Normal), projector.CodeWrongPlayer)
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Refused(alice, shoot("a", "b", Normal), projector.CodeWrongPhase)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Refused(bob, shoot("b", "a", Normal), projector.CodeWrongPlayer)
	g.Refused(alice, shoot("a", "c", Normal), projector.CodeBadCommand)
	g.Refused(alice, shoot("zz", "b", Normal), projector.CodeUnknownUnit)
	g.Refused(alice, shoot("a", "zz", Normal), projector.CodeUnknownUnit)
	g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "a", Target: "b", Kind: Normal, Weapons: map[string]string{"a-1": "lascannon"}}, projector.CodeUnknownWeapon)
	g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "a", Target: "b", Kind: Normal, Weapons: map[string]string{"a-9": "bolter"}}, projector.CodeUnknownModel)
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(6)
	g.Roll(6)
	g.Roll(1) // b-1 destroyed
	g.Refused(alice, shoot("a", "b", Normal), projector.CodeAlreadyFired)
	g.Refused(alice, shoot("c", "b", Normal), projector.CodeUnknownUnit) // target gone
	// Next turn of alice: selectable again.
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(bob, projector.Command{Type: projector.CmdNextTurn})
	if g.State.Unit("a").Fired || len(ed(g.State).Selected) != 0 {
		t.Fatal("selection must not outlive the phase")
	}
	same(t, g)
}

// After shooting, a unit cannot start an action until the phase ends; a
// unit that has not shot can.
func TestNoActionAfterShooting(t *testing.T) {
	g := newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("c", "alice", 1, 12), squad("b", "bob", 1, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: CmdAction, Unit: "c", Kind: "secure"}) // movement phase: fine
	g.Refused(alice, projector.Command{Type: CmdAction, Unit: "a"}, projector.CodeBadCommand)
	g.Refused(bob, projector.Command{Type: CmdAction, Unit: "b", Kind: "x"}, projector.CodeWrongPlayer)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(alice, shoot("a", "b", Normal))
	g.Refused(alice, projector.Command{Type: CmdAction, Unit: "c", Kind: "cleanse"}, projector.CodeWrongStep) // attack resolving
	g.Roll(1)
	refusedWith(t, g, projector.Command{Type: CmdAction, Unit: "a", Kind: "cleanse"}, projector.CodeNotEligible,
		"shot this phase", "not eligible to start an action")
	g.Do(alice, projector.Command{Type: CmdAction, Unit: "c", Kind: "cleanse"})
	g.Do(alice, projector.Command{Type: CmdStep}) // end of the phase: still refused
	refusedWith(t, g, projector.Command{Type: CmdAction, Unit: "a", Kind: "cleanse"}, projector.CodeNotEligible, "until the end of the shooting phase")
	if acts := ed(g.State).Actions; len(acts) != 2 || acts[1].Unit != "c" || acts[1].Action != "cleanse" || acts[1].Phase != projector.PhaseShooting {
		t.Fatalf("actions %+v", acts)
	}
	// The phase over (alice's next turn), a may start one.
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(bob, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: CmdAction, Unit: "a", Kind: "cleanse"})
	same(t, g)
}

// Seed 003, 10.04: "Unengaged and did not make an advance move this
// turn" — a unit that declared an advance and rolled, but never moved, has
// made no advance move: normal shooting is open to it, assault shooting
// (10.05: "made an advance move this turn") is not.
func TestAdvanceRollWithoutAMoveIsNoAdvance(t *testing.T) {
	a := squad("a", "alice", 1, 10, gun("bolter", 3, 4, "ASSAULT"))
	g := newGame(t, a, squad("b", "bob", 1, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: CmdAdvance, Unit: "a"})
	g.Roll(3)
	g.Refused(alice, projector.Command{Type: CmdAdvance, Unit: "a"}, projector.CodeNotEligible) // declared once
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	refusedWith(t, g, shoot("a", "b", Assault), projector.CodeNotEligible)
	g.Do(alice, shoot("a", "b", Normal))
	same(t, g)
}

// An advance is declared, rolled (a recorded roll), and raises the move
// allowance by the roll; advance moves need the declaration.
func TestAdvance(t *testing.T) {
	g := newGame(t, squad("a", "alice", 2, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 40))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	mv := move("a", "a-1", 10, 18.5)
	mv.Advance = true
	g.Refused(alice, mv, projector.CodeNotEligible) // no advance declared
	g.Do(alice, projector.Command{Type: CmdAdvance, Unit: "a"})
	pending(t, g, projector.WaitRoll, "alice", PurposeAdvance, 1, 0)
	g.Refused(alice, move("a", "a-1", 10, 12), projector.CodeWrongStep) // roll first
	g.Refused(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting}, projector.CodeWrongStep)
	g.Roll(2)
	if u := g.State.Unit("a"); u.Advanced || u.Moved {
		t.Fatalf("a roll is not a move: advanced %v moved %v", u.Advanced, u.Moved)
	}
	g.Refused(alice, move("a", "a-1", 10, 18.5), projector.CodeMoveTooFar) // 8.5" > 6 + 2
	g.Do(alice, move("a", "a-1", 10, 18))                                  // 8"
	if _, mm := lastMove(t, g); !mm.Advance || !g.State.Unit("a").Advanced {
		t.Fatal("moves of an advancing unit are advance moves, and it has advanced")
	}
	g.Refused(alice, projector.Command{Type: CmdAdvance, Unit: "a"}, projector.CodeNotEligible) // once
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Refused(alice, projector.Command{Type: CmdAdvance, Unit: "a"}, projector.CodeWrongPhase)
	same(t, g)

	// A unit that moved cannot then advance; an engaged unit cannot advance.
	g = newGame(t, squad("a", "alice", 1, 10), squad("e", "alice", 1, 30), squad("b", "bob", 1, 31.5))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, move("a", "a-1", 11, 10))
	g.Refused(alice, projector.Command{Type: CmdAdvance, Unit: "a"}, projector.CodeNotEligible)
	g.Refused(alice, projector.Command{Type: CmdAdvance, Unit: "e"}, projector.CodeNotEligible)
}

// lastMove decodes the last model.moved event.
func lastMove(t *testing.T, g *projtest.Game) (events.Event, *events.ModelMoved) {
	t.Helper()
	for i := len(g.Events) - 1; i >= 0; i-- {
		if g.Events[i].Type == events.TypeModelMoved {
			p, err := projector.Vocabulary(g.Rules).Decode(g.Events[i])
			if err != nil {
				t.Fatal(err)
			}
			return g.Events[i], p.(*events.ModelMoved)
		}
	}
	t.Fatal("no move")
	return events.Event{}, nil
}

// Engagement is derived from the table: within 1" of an enemy model.
func TestEngagementFollowsTheTable(t *testing.T) {
	g := newGame(t, squad("a", "alice", 1, 10, gun("bolter", 3, 4)), squad("b", "bob", 1, 11.9), squad("c", "bob", 1, 30))
	// 1.9" between centres, 0.98" of bases: 0.92" apart, engaged.
	if a, b := g.State.Unit("a").Engaged, g.State.Unit("b").Engaged; !slices.Equal(a, []string{"b"}) || !slices.Equal(b, []string{"a"}) {
		t.Fatalf("engaged %v %v", a, b)
	}
	if len(g.State.Unit("c").Engaged) != 0 {
		t.Fatal("c is far away")
	}
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, move("a", "a-1", 8, 10))
	if len(g.State.Unit("a").Engaged) != 0 || len(g.State.Unit("b").Engaged) != 0 {
		t.Fatal("moving away ends the engagement")
	}
	g.Do(alice, move("a", "a-1", 10, 10))
	if !engagedWith(g.State.Unit("a"), "b") {
		t.Fatal("moving back engages again")
	}
	// Destroying the enemy ends it too.
	beast := squad("m", "alice", 1, 10, gun("cannon", 3, 8))
	beast.Keywords = []string{"VEHICLE"}
	g = newGame(t, beast, squad("b", "bob", 1, 11.5))
	toShooting(g)
	g.Do(alice, shoot("m", "b", CloseQuarters))
	g.Roll(6)
	g.Roll(6)
	g.Roll(1)
	if len(g.State.Unit("m").Engaged) != 0 {
		t.Fatal("no enemy left to be engaged with")
	}
	same(t, g)
}
