package ed6e

import (
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// Seed 000: «Si une unité comprend des figurines qui déterminent
// différemment leur distance de charge, toute l'unité chargera au rythme
// de la figurine la plus lente.» A model with the keyword "CHARGE D6"
// charges on one die: its unit rolls 2D6 (its other models' dice) and
// charges what the first die alone gives.
func TestChargeAtTheRateOfTheSlowestModel(t *testing.T) {
	tac := marines("tac", 3, 10, bolter())
	tac.Models[2].Keywords = []string{"CHARGE D6"}
	g := newGame(t, tac, boyz("boyz", 3, 15)) // 4.02" base to base
	toAssault(g)
	g.Do(alice, charge("tac", "boyz"))
	p := pending(t, g, projector.WaitRoll, "alice")
	if p.Dice != 2 || !strings.Contains(p.Text, "slowest model") || !strings.Contains(p.Text, "tac-3 charges on D6") {
		t.Fatalf("charge roll: %+v", p)
	}
	g.Roll(3, 5) // 8" for tac-1 and tac-2, 3" for tac-3: the unit charges 3"
	if ch := ed(g.State).Charge; ch.Distance != 3 || ch.Success || ch.Stage != chargeFailed {
		t.Fatalf("the slowest model's rate: %+v", ch)
	}
	same(t, g)

	// A model on 3D6 is never the slowest of 2D6 models: the unit rolls
	// three dice and charges on the first two.
	tac = marines("tac", 2, 10, bolter())
	tac.Models[1].Keywords = []string{"[Charge 3D6]"}
	g = newGame(t, tac, boyz("boyz", 3, 15))
	toAssault(g)
	g.Do(alice, charge("tac", "boyz"))
	if p := pending(t, g, projector.WaitRoll, "alice"); p.Dice != 3 {
		t.Fatalf("three dice: %+v", p)
	}
	g.Roll(2, 3, 6)
	if ch := ed(g.State).Charge; ch.Distance != 5 || !ch.Success {
		t.Fatalf("2D6 = 5: %+v", ch)
	}
	same(t, g)
}

// Seed 000: «Si une figurine tir maniant une arme lourde, comme un bolter
// lourd, se déplace et tire lors du même tour il utilisera une CT1» — the
// model that moved, not its unit: of two heavy bolters, the one that moved
// snap fires, the one that stood still fires at its BS.
func TestHeavySnapFiresOnlyForTheModelThatMoved(t *testing.T) {
	g := newGame(t, marines("dev", 2, 10, heavyBolter()), boyz("boyz", 5, 25))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, move("dev", "dev-1", 11, 10))
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(alice, shoot("dev", "boyz"))
	a := g.State.Attack
	if len(a.Steps) != 2 || a.Steps[0].Need != 6 || a.Steps[1].Need != 3 || a.Shooters[0].BS != SnapBS || a.Shooters[1].BS != 4 {
		t.Fatalf("dev-1 moved (snap, 6+), dev-2 did not (BS4, 3+): %+v", a.Steps)
	}
	same(t, g)
}

// fleeField: moraleFight's Orks fail their test and escape the sweeping
// advance (1 + I4 against 4 + I2). Bob's own table edge is the west one,
// as the setup names it.
func fleeField(t *testing.T) *projtest.Game {
	g := moraleFight(t)
	g.Roll(6, 6)
	g.Roll(1)
	g.Roll(4)
	return g
}

// Seed 000, the fight sub-phase: «4. Le perdant effectue ses tests de
// moral. 5. Résolvez les percées, mises au contact et consolidations.» A
// unit that fails and escapes falls back (standard 6e, default): 2D6",
// every model straight toward its own table edge, each move refused unless
// it ends there; only then does the winner consolidate.
func TestFallBackAfterAFailedMoraleTest(t *testing.T) {
	g := fleeField(t)
	if ed(g.State).Edges[1] != (Edge{Player: "bob", Edge: edgeWest}) {
		t.Fatalf("edges %+v", ed(g.State).Edges)
	}
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeFallBack || p.Dice != FallBackDice {
		t.Fatalf("fall-back roll: %+v", p)
	}
	g.Refused(alice, move("tac", "tac-1", 11, 10), projector.CodeWrongStep) // the winner waits
	g.Roll(3, 4)
	p = pending(t, g, WaitFallBack, "bob")
	if !strings.Contains(p.Text, "boyz-3 to (3.98, 11.20)") {
		t.Fatalf("fall-back moves: %+v", p)
	}
	from := g.State.Unit("boyz").Model("boyz-3")
	if r := g.Refused(bob, move("boyz", "boyz-3", from.X-7, from.Y+1), projector.CodeNotEligible); !strings.Contains(r.Reason, "straight toward") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Refused(bob, move("boyz", "boyz-3", from.X-5, from.Y), projector.CodeNotEligible) // short
	g.Refused(alice, move("boyz", "boyz-3", from.X-7, from.Y), projector.CodeWrongPlayer)
	g.Refused(alice, projector.Command{Type: projector.CmdNextTurn}, projector.CodeWrongStep)
	g.Do(bob, move("boyz", "boyz-3", from.X-7, from.Y))
	fb := ed(g.State).FallBack
	if !fb.Done || fb.Distance != 7 || !slices.Equal(fb.Moved, []string{"boyz-3"}) {
		t.Fatalf("fall back %+v", fb)
	}
	if p := pending(t, g, projector.WaitRoll, "alice"); p.Purpose != purposeConsolidate {
		t.Fatalf("then the winner's consolidation: %+v", p)
	}
	same(t, g)

	// A roll that reaches the table edge: the unit falls off it.
	g = fleeField(t)
	g.Roll(6, 6)
	if fb := ed(g.State).FallBack; !fb.Off || !g.State.Unit("boyz").Destroyed() {
		t.Fatalf("12\" from 10.5\" off the west edge: %+v", fb)
	}
	same(t, g)
}

// consolidating: two marines at x=10 catch the Orks they fought and
// consolidate, another Ork unit ("more") standing at x=13; su's rules
// revision is kept.
func consolidating(t *testing.T, su events.MatchCreated) *projtest.Game {
	g := newGameFrom(t, su)
	engagedIn(g, marines("tac", 2, 10), boyz("boyz", 3, touch), true)
	g.Do(alice, strike("tac"))
	if round3(g.State) {
		g.Roll(4, 4, 1, 1) // from revision 2 the chargers have +1 A: two more dice
	} else {
		g.Roll(4, 4)
	}
	g.Roll(4, 4)
	g.Roll(1, 1)
	g.Do(bob, move("boyz", "boyz-3", touch, 11.2))
	g.Do(bob, strike("boyz"))
	g.Roll(1, 1)
	g.Roll(6, 6) // fails
	g.Roll(2)    // 2 + I4
	g.Roll(4)    // 4 + I2: caught
	return g
}

// A consolidation may not end within 1" of an enemy model (the
// rulebook's, default, from revision 2); before, only base contact was
// forbidden, and the move was D3".
func TestConsolidationKeepsAwayFromTheEnemy(t *testing.T) {
	units := []events.UnitSpec{marines("tac", 2, 10), boyz("boyz", 3, touch), boyz("more", 1, 13)}
	g := consolidating(t, setup(units...))
	g.Roll(3) // D6 = 3"
	for _, x := range []float64{12, 11.5} {
		r := g.Refused(alice, move("tac", "tac-1", x, 10), projector.CodeNotEligible)
		if !strings.Contains(r.Reason, "within 1\" of the enemy") || !strings.Contains(r.Reason, "more-1") {
			t.Fatalf("reason %q", r.Reason)
		}
	}
	g.Do(alice, move("tac", "tac-1", 11, 10)) // 2" from more-1's centre: 1.02" between the bases
	same(t, g)

	su := setup(units...)
	su.Rules = revisionRound2
	g = consolidating(t, su)
	g.Roll(3) // D3 = 2"
	r := g.Refused(alice, move("tac", "tac-1", 12, 10), projector.CodeNotEligible)
	if !strings.Contains(r.Reason, "base contact") || !strings.Contains(r.Reason, "more-1") {
		t.Fatalf("revision 1: reason %q", r.Reason)
	}
	g.Do(alice, move("tac", "tac-1", 11.5, 10))
	same(t, g)
}

// The source: Overwatch «ne peut pas provoquer de test de moral ni de
// pilonnage», so normal shooting does. The standard 6e trigger (default):
// a unit that loses 25% or more of the models it had at the start of the
// shooting phase takes a Morale check at its end — casualties from every
// attack of the phase count — and one that fails falls back.
func TestMoraleCheckAtTheEndOfTheShootingPhase(t *testing.T) {
	dev := marines("dev", 1, 10, bolter())
	dev.Models[0].Y = 20 // alice's second unit
	g := newGame(t, marines("tac", 1, 10, bolter()), dev, boyz("boyz", 8, 20))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	g.Roll(6)
	g.Roll(6)
	g.Roll(1) // boyz-1 falls: 1 of 8
	if dueCheck(g.State) != nil {
		t.Fatal("the check is taken at the end of the phase")
	}
	g.Do(alice, shoot("dev", "boyz"))
	g.Roll(6)
	g.Roll(6)
	g.Roll(1) // a second Ork: 2 of 8, 25%
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != checkMorale || p.Dice != 2 || !strings.Contains(p.Text, "lost 2 of its 8 models") || !strings.Contains(p.Text, "7 or less") {
		t.Fatalf("Morale check: %+v", p)
	}
	g.Refused(alice, charge("tac", "boyz"), projector.CodeWrongStep)
	g.Roll(4, 4) // 8 fails Ld 7
	if p := pending(t, g, projector.WaitRoll, "bob"); p.Purpose != purposeFallBack {
		t.Fatalf("a failed check falls back: %+v", p)
	}
	same(t, g)

	// 1 of 8 (12.5%) is not enough.
	g = newGame(t, marines("tac", 1, 10, bolter()), boyz("boyz", 8, 20))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	g.Roll(6)
	g.Roll(6)
	g.Roll(1)
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	pending(t, g, projector.WaitDeclare, "alice")
}

// Overwatch causes no Morale check, even when it kills half the charging
// unit.
func TestOverwatchCausesNoMoraleCheck(t *testing.T) {
	g := newGame(t, marines("tac", 2, 10, bolter()), boyz("boyz", 3, 17, shoota()))
	toAssault(g)
	g.Do(alice, charge("tac", "boyz"))
	g.Do(bob, projector.Command{Type: CmdOverwatch})
	g.Roll(6, 6, 6, 6, 6, 6)
	g.Roll(6, 6, 6, 6, 6, 6)
	g.Roll(1, 1, 1, 1, 1, 1)
	if !g.State.Unit("tac").Destroyed() && len(g.State.Unit("tac").AliveModels()) > 1 {
		t.Fatal("setup: Overwatch should have killed a Marine at least")
	}
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	if dueCheck(g.State) != nil || len(ed(g.State).Losses) != 0 {
		t.Fatalf("Overwatch caused a check: %+v", ed(g.State).Checks)
	}
}

func pinningGun() events.WeaponSpec {
	return events.WeaponSpec{ID: "sniper", Name: "sniper rifle", Range: 36, Type: Heavy, Shots: 1, S: 4, Keywords: []string{"PINNING"}}
}

// Pinning (standard 6e, default): an unsaved wound from a Pinning weapon
// calls for a Pinning test right after the attack, once per phase; a unit
// that fails goes to ground: better cover when shot at, and in its
// owner's next turn no move, no charge and only snap shots.
func TestPinningTestAndGoneToGround(t *testing.T) {
	g := newGame(t, marines("scouts", 2, 10, pinningGun()), boyz("boyz", 5, 20, shoota()))
	toShooting(g)
	g.Do(alice, shoot("scouts", "boyz"))
	g.Roll(6, 6)
	g.Roll(6, 1)
	g.Roll(1) // one unsaved wound
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != checkPinning || !strings.Contains(p.Text, "Pinning test") {
		t.Fatalf("Pinning test: %+v", p)
	}
	g.Roll(5, 6) // 11 fails Ld 7
	if !goneToGround(g.State, "boyz") {
		t.Fatal("a failed Pinning test goes to ground")
	}
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Refused(bob, move("boyz", "boyz-1", 19, 10), projector.CodeNotEligible)
	g.Do(bob, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(bob, shoot("boyz", "scouts"))
	if a := g.State.Attack; a.Kind != KindSnap || g.State.Pending.Need != 6 {
		t.Fatalf("gone to ground: snap shots only: %+v", g.State.Pending)
	}
	g.Roll(1, 1, 1, 1, 1, 1, 1, 1)
	g.Do(bob, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	g.Refused(bob, charge("boyz", "scouts"), projector.CodeNotEligible)
	g.Do(bob, projector.Command{Type: projector.CmdNextTurn})
	if goneToGround(g.State, "boyz") {
		t.Fatal("gone to ground until the end of its owner's next turn")
	}
	same(t, g)
}

// While gone to ground, a unit's cover improves: none becomes 6+.
func TestGoneToGroundImprovesCover(t *testing.T) {
	tac := marines("tac", 1, 10, bolter())
	tac.Models[0].Y = 20
	g := newGame(t, marines("scouts", 1, 10, pinningGun()), tac, boyz("boyz", 5, 20))
	toShooting(g)
	g.Do(alice, shoot("scouts", "boyz"))
	g.Roll(6)
	g.Roll(6)
	g.Roll(1)
	g.Roll(6, 6) // pinned
	g.Do(alice, shoot("tac", "boyz"))
	if c := edAttack(g.State.Attack).Cover[0]; c.Save != GoneToGroundNoCover || !strings.Contains(c.Why, "gone to ground") {
		t.Fatalf("cover %+v", c)
	}
	same(t, g)
}

// A unit takes one Pinning test per phase at most (default).
func TestOnePinningTestPerPhase(t *testing.T) {
	other := marines("other", 1, 10, pinningGun())
	other.Models[0].Y = 20
	g := newGame(t, marines("scouts", 1, 10, pinningGun()), other, boyz("boyz", 5, 20))
	toShooting(g)
	for _, u := range []string{"scouts", "other"} {
		g.Do(alice, shoot(u, "boyz"))
		g.Roll(6)
		g.Roll(6)
		g.Roll(1)
		if u == "scouts" {
			g.Roll(1, 1) // passed
		}
	}
	if dueCheck(g.State) != nil {
		t.Fatalf("a second Pinning test in one phase: %+v", ed(g.State).Checks)
	}
	same(t, g)
}
