package ed6e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

const touch = 10 + 25.4/25.4 - 0.016 // x of a 25mm base touching one at x=10 (0.984" apart)

func strike(unit string) projector.Command { return projector.Command{Type: CmdStrike, Unit: unit} }

// engaged: alice's tac charges bob's boyz, whose models already touch
// them, so any charge roll reaches; returns at the fight's start (combat
// chosen) unless fight is false.
func engaged(t *testing.T, tac, orks events.UnitSpec, fight bool) *projtest.Game {
	return engagedIn(newGame(t, tac, orks), tac, orks, fight)
}

// engagedIn is engaged in the game g made of tac and orks.
func engagedIn(g *projtest.Game, tac, orks events.UnitSpec, fight bool) *projtest.Game {
	toAssault(g)
	g.Do(alice, charge(tac.ID, orks.ID))
	g.Roll(1, 1)
	first := ed(g.State).Charge.First
	_, m := g.State.FindModel(first)
	g.Do(alice, move(tac.ID, first, m.X, m.Y))
	if fight {
		g.Do(alice, projector.Command{Type: CmdFight, Unit: tac.ID})
	}
	return g
}

// melee: a Captain (I5 WS5 A2 W2) and two marines (I4) at x=10 in
// contact with, from y=10 down, an Ork Boy, the Nob (I4 A3, power klaw S8
// AP2) and an Ork Boy (I2); boyz-4 (I2) supports from 0.5" behind, within
// 2" of boyz-1; boyz-5 stands 5" away and must pile in.
func melee() (events.UnitSpec, events.UnitSpec) {
	tac := marines("tac", 3, 10)
	tac.Models[0].Name, tac.Models[0].I, tac.Models[0].WS, tac.Models[0].A, tac.Models[0].W = "Captain", 5, 5, 2, 2
	klaw := events.WeaponSpec{ID: "klaw", Name: "power klaw", Type: Melee, S: 8, AP: 2}
	b := boyz("boyz", 5, touch, klaw)
	for i := range b.Models {
		b.Models[i].Weapons = nil
	}
	nob := &b.Models[1]
	nob.Name, nob.I, nob.A, nob.Weapons = "Nob", 4, 3, []string{"klaw"}
	b.Models[3].X, b.Models[3].Y = 12.5, 12.4
	b.Models[4].X, b.Models[4].Y = 16, 10
	return tac, b
}

// Initiative steps from highest to lowest; a unit strikes only at its
// models' step; blows at one step are simultaneous; casualties are removed
// before the next step; pile-in comes before the blows.
func TestFightByInitiativeSteps(t *testing.T) {
	tac, b := melee()
	g := engaged(t, tac, b, false)
	g.Refused(alice, strike("tac"), projector.CodeWrongStep) // no combat chosen yet
	g.Refused(alice, projector.Command{Type: projector.CmdNextTurn}, projector.CodeWrongStep)
	g.Do(alice, projector.Command{Type: CmdFight, Unit: "boyz"})
	cb := ed(g.State).Combat
	if !slices.Equal(cb.Steps, []int{5, 4, 2}) || !slices.Equal(cb.Units, []string{"tac", "boyz"}) || ed(g.State).Subphase != SubFight {
		t.Fatalf("combat %+v", cb)
	}
	g.Refused(alice, charge("tac", "boyz"), projector.CodeWrongPhase)

	// Initiative 5: only the Captain.
	pending(t, g, WaitStrike, "alice")
	r := g.Refused(bob, strike("boyz"), CodeInitiativeOrder)
	if !strings.Contains(r.Reason, "Initiative 5") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Refused(bob, move("boyz", "boyz-5", 13, 10), projector.CodeWrongStep) // piles in at I2
	g.Do(alice, strike("tac"))
	a := g.State.Attack
	if a.Type != projector.AttackMelee || len(a.Shooters) != 1 || a.Shots != 3 || g.State.Pending.Need != WSHitHigher {
		t.Fatalf("Captain's blows (A2, +1 for the charge): %+v, pending %+v", a, g.State.Pending)
	}
	g.Roll(3, 1, 1)
	g.Roll(4)
	g.Roll(6) // saved

	// Initiative 4: the marines, then the Nob, who strikes though killed.
	pending(t, g, WaitStrike, "alice")
	r = g.Refused(bob, strike("boyz"), CodeInitiativeOrder)
	if !strings.Contains(r.Reason, "strikes first") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Do(alice, strike("tac"))
	if p := g.State.Pending; p.Dice != 4 || p.Need != WSHitNotHalf {
		t.Fatalf("marines' blows (A1, +1 for the charge): %+v", p)
	}
	g.Roll(4, 4, 1, 1)
	g.Roll(4, 4)
	g.Roll(1, 1)
	if got := alive(g, "boyz"); !slices.Equal(got, []string{"boyz-1", "boyz-4", "boyz-5"}) {
		t.Fatalf("the Nob and boyz-3 (closest) should be removed: %v", got)
	}
	pending(t, g, WaitStrike, "bob")
	g.Do(bob, strike("boyz"))
	if a := g.State.Attack; len(a.Shooters) != 1 || a.Shooters[0].Model != "boyz-2" || a.Shooters[0].S != 8 || a.Shots != 3 {
		t.Fatalf("the Nob strikes at its step though removed: %+v", a)
	}
	g.Roll(4, 4, 1)
	g.Roll(2, 2) // AP2 beats Sv3: no save
	if got := alive(g, "tac"); !slices.Equal(got, []string{"tac-1", "tac-3"}) || g.State.Unit("tac").Model("tac-1").WoundsLeft != 1 {
		t.Fatalf("tac-2 then the Captain take the klaw's wounds: %v", got)
	}

	// Initiative 2: boyz-5 piles in; boyz-1, boyz-4 (support) and boyz-5 strike.
	pending(t, g, WaitStrike, "bob")
	g.Refused(alice, strike("tac"), CodeInitiativeOrder)
	g.Refused(bob, move("boyz", "boyz-5", 12, 10), projector.CodeMoveTooFar)
	g.Refused(bob, move("boyz", "boyz-5", 16, 13), projector.CodeNotEligible)    // away from the enemy
	g.Refused(bob, move("boyz", "boyz-1", touch, 10.5), projector.CodeWrongStep) // in base contact
	g.Do(bob, move("boyz", "boyz-5", 13, 10))
	g.Do(bob, strike("boyz"))
	if a := g.State.Attack; len(a.Shooters) != 3 || a.Shots != 6 || g.State.Pending.Need != WSHitNotHalf {
		t.Fatalf("boyz' blows: %+v pending %+v", a.Shooters, g.State.Pending)
	}
	g.Refused(bob, move("boyz", "boyz-4", 12, 12.4), projector.CodeWrongStep) // after the blows
	g.Roll(4, 4, 4, 1, 1, 1)
	g.Roll(5, 5, 1) // S3 vs T4: 5+
	g.Roll(3, 1)    // a batch of two 3+ saves: one fails, on the Captain
	if got := alive(g, "tac"); !slices.Equal(got, []string{"tac-3"}) {
		t.Fatalf("alive %v", got)
	}

	// Combat result: alice 2, bob 3 unsaved wounds; alice's squad tests on
	// Ld 8 − 1 = 7 and passes; both sides may then pile in.
	cb = ed(g.State).Combat
	if cb.Winner != "bob" || cb.Loser != "alice" || cb.Diff != 1 || cb.Caused[0].Wounds != 2 || cb.Caused[1].Wounds != 3 {
		t.Fatalf("combat result %+v", cb)
	}
	p := pending(t, g, projector.WaitRoll, "alice")
	if p.Purpose != purposeMorale || p.Dice != 2 || cb.Tests[0].Need != 7 {
		t.Fatalf("morale %+v, tests %+v", p, cb.Tests)
	}
	g.Roll(3, 4)
	if !cb.Tests[0].Passed || cb.Stage != stageMoves || !locked(g.State, g.State.Unit("tac")) {
		t.Fatalf("a 7 passes: %+v", ed(g.State).Combat)
	}
	pending(t, g, projector.WaitDeclare, "alice")
	g.Do(bob, move("boyz", "boyz-4", 11, 12.4))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	same(t, g)
}

// moraleFight: two marines kill two of three Orks at I4; the last Ork
// piles in and misses at I2: bob loses 2–0 and tests on Ld 7 − 2 = 5.
func moraleFight(t *testing.T) *projtest.Game {
	tac, orks := marines("tac", 2, 10), boyz("boyz", 3, touch)
	return moraleFightIn(t, withEdges(setup(tac, orks), edgeEast, edgeWest))
}

// moraleFightIn is moraleFight in a match of setup su (its first units two
// marines and three Orks).
func moraleFightIn(t *testing.T, su events.MatchCreated) *projtest.Game {
	tac, orks := su.Units[0], su.Units[1]
	g := engagedIn(newGameFrom(t, su), tac, orks, true)
	g.Do(alice, strike("tac"))
	g.Roll(4, 4, 1, 1) // A1 +1 for the charge
	g.Roll(4, 4)
	g.Roll(1, 1)
	g.Do(bob, move("boyz", "boyz-3", touch, 11.2))
	g.Do(bob, strike("boyz"))
	g.Roll(1, 1)
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeMorale || ed(g.State).Combat.Tests[0].Need != 5 || !strings.Contains(p.Text, "5 or less") {
		t.Fatalf("morale %+v", p)
	}
	return g
}

// Morale: 2D6 at most Ld minus the combat result passes.
func TestMoraleTest(t *testing.T) {
	g := moraleFight(t)
	g.Roll(2, 3)
	if cb := ed(g.State).Combat; !cb.Tests[0].Passed || cb.Stage != stageMoves {
		t.Fatalf("5 passes: %+v", cb)
	}
	g = moraleFight(t)
	g.Roll(3, 3)
	cb := ed(g.State).Combat
	if cb.Tests[0].Passed || cb.Stage != stageSweep {
		t.Fatalf("6 fails: %+v", cb)
	}
}

// A failed test: the winner's D6 + I4 against the loser's D6 + I2; equal
// or better catches the loser, which is destroyed; the winner, unlocked,
// consolidates D6".
func TestSweepingAdvanceAndConsolidation(t *testing.T) {
	g := moraleFight(t)
	g.Roll(6, 6)
	pending(t, g, projector.WaitRoll, "alice")
	g.Roll(2) // 2 + 4
	pending(t, g, projector.WaitRoll, "bob")
	g.Roll(4) // 4 + 2: caught
	cb := ed(g.State).Combat
	if !cb.Tests[0].Caught || !g.State.Unit("boyz").Destroyed() || locked(g.State, g.State.Unit("tac")) {
		t.Fatalf("caught: %+v", cb.Tests[0])
	}
	p := pending(t, g, projector.WaitRoll, "alice")
	if p.Purpose != purposeConsolidate {
		t.Fatalf("consolidation roll: %+v", p)
	}
	g.Roll(2) // D6 = 2
	if cb.Consolidate[0].Distance != 2 || cb.Stage != stageMoves {
		t.Fatalf("consolidate %+v", cb.Consolidate)
	}
	g.Refused(alice, move("tac", "tac-1", 12.5, 10), projector.CodeMoveTooFar)
	g.Do(alice, move("tac", "tac-1", 12, 10))
	same(t, g)

	// Escaped: 1 + 4 against 4 + 2; the Orks fall back, unlocked.
	g = moraleFight(t)
	g.Roll(6, 6)
	g.Roll(1)
	g.Roll(4)
	cb = ed(g.State).Combat
	if !cb.Tests[0].Fled || g.State.Unit("boyz").Destroyed() || locked(g.State, g.State.Unit("boyz")) {
		t.Fatalf("fled: %+v", cb.Tests[0])
	}
	if len(cb.Consolidate) != 1 || cb.Consolidate[0].Unit != "tac" {
		t.Fatalf("only the winner consolidates, not the unit that fell back: %+v", cb.Consolidate)
	}
	same(t, g)
}

// Every combat is fought before the turn ends; a combat is fought once.
func TestEveryCombatIsFoughtOnce(t *testing.T) {
	g := engaged(t, marines("tac", 1, 10), boyz("boyz", 1, touch), false)
	r := g.Refused(alice, projector.Command{Type: projector.CmdNextTurn}, projector.CodeWrongStep)
	if !strings.Contains(r.Reason, "not been fought") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Do(alice, projector.Command{Type: CmdFight, Unit: "tac"})
	g.Do(alice, strike("tac"))
	g.Roll(1, 1)
	g.Do(bob, strike("boyz"))
	g.Roll(1, 1) // a draw: 0–0, nobody tests
	if cb := ed(g.State).Combat; cb.Winner != "" || len(cb.Tests) != 0 || cb.Stage != stageMoves {
		t.Fatalf("draw %+v", cb)
	}
	g.Refused(alice, projector.Command{Type: CmdFight, Unit: "tac"}, projector.CodeNotEligible)
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	// Bob's turn: the combat goes on; locked units do not move or shoot.
	g.Refused(bob, move("boyz", "boyz-1", 12, 10), projector.CodeNotEligible)
	g.Do(bob, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	g.Refused(bob, projector.Command{Type: projector.CmdNextTurn}, projector.CodeWrongStep)
	g.Do(bob, projector.Command{Type: CmdFight, Unit: "boyz"})
	pending(t, g, WaitStrike, "alice") // I4 first, though it is bob's turn
	same(t, g)
}

// A unit wiped out at a step still strikes at it (blows are simultaneous);
// a combat whose enemy is gone skips the later steps and its winner
// consolidates.
func TestWipedOutUnitStillStrikesAtItsStep(t *testing.T) {
	nob := boyz("nobz", 1, touch)
	nob.Models[0].I, nob.Models[0].Sv = 4, 0
	g := engaged(t, marines("tac", 2, 10), nob, true)
	g.Do(alice, strike("tac"))
	g.Roll(6, 6, 1, 1)
	g.Roll(6, 6) // no save: the Nob falls, the second wound is lost
	if !g.State.Unit("nobz").Destroyed() {
		t.Fatal("the Nob should be dead")
	}
	pending(t, g, WaitStrike, "bob")
	g.Do(bob, strike("nobz"))
	if a := g.State.Attack; a.Firer != "nobz" || a.Shots != 2 {
		t.Fatalf("the dead Nob's blows: %+v", a)
	}
	g.Roll(4, 1)
	g.Roll(6)
	g.Roll(1) // tac-1 falls
	cb := ed(g.State).Combat
	if cb.Caused[0].Wounds != 1 || cb.Caused[1].Wounds != 1 || cb.Winner != "" {
		t.Fatalf("a 1–1 draw: %+v", cb.Caused)
	}
	if p := pending(t, g, projector.WaitRoll, "alice"); p.Purpose != purposeConsolidate {
		t.Fatalf("tac, no longer locked, consolidates: %+v", p)
	}
	same(t, g)

	// Wiped out at I4, the Orks (I2) never strike.
	g = engaged(t, marines("tac", 2, 10), boyz("boyz", 1, touch), true)
	g.Do(alice, strike("tac"))
	g.Roll(6, 6, 1, 1)
	g.Roll(6, 6)
	g.Roll(1, 1)
	cb = ed(g.State).Combat
	if cb.Winner != "alice" || len(cb.Tests) != 0 || cb.Stage != stageConsolidate {
		t.Fatalf("combat %+v", cb)
	}
}

// Model ids are unique only within a unit: two sides may both have "m1".
func TestSameModelIdsOnBothSides(t *testing.T) {
	tac, orks := marines("tac", 2, 10), boyz("boyz", 2, touch)
	for i := range tac.Models {
		tac.Models[i].ID, orks.Models[i].ID = fmt.Sprintf("m%d", i+1), fmt.Sprintf("m%d", i+1)
	}
	// The recorder refuses a setup whose model ids repeat across units; the
	// fold of one (recorded before) still tells the two m1 apart.
	g := engagedIn(projtest.Recorded(t, Rules{}, setup(tac, orks)), tac, orks, true)
	g.Do(alice, strike("tac"))
	g.Roll(4, 4)
	g.Roll(4, 1)
	g.Roll(1) // the Ork m1 falls
	if got := alive(g, "boyz"); !slices.Equal(got, []string{"m2"}) {
		t.Fatalf("boyz %v", got)
	}
	g.Do(bob, strike("boyz"))
	if a := g.State.Attack; len(a.Shooters) != 1 || a.Shooters[0].Model != "m2" {
		t.Fatalf("only the living Ork strikes: %+v", a.Shooters)
	}
	same(t, g)
}

// The consolidation move: D6" from revision 2 (the rulebook's, where the
// source names the step without numbers), a D3" rolled as one D6 halved,
// rounding up (rules.Expr, as every edition's D3), before.
func TestConsolidationDistance(t *testing.T) {
	for _, c := range []struct {
		rules int
		want  []int // by face
	}{{revisionRound3, []int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}}, {revisionRound2, []int{1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}}} {
		e := consolidation(&projector.State{Rules: c.rules})
		if e.Dice() != 1 {
			t.Fatalf("revision %d: %s rolls %d dice", c.rules, e, e.Dice())
		}
		for face := 1; face <= 6; face++ {
			if e.Eval([]int{face}) != c.want[face] {
				t.Errorf("revision %d: a %d gives %d\", want %d\"", c.rules, face, e.Eval([]int{face}), c.want[face])
			}
		}
	}
}
