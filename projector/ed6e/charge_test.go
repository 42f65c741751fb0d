package ed6e

import (
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

func shoota() events.WeaponSpec {
	return events.WeaponSpec{ID: "shoota", Name: "shoota", Range: 18, Type: Assault, Shots: 2, S: 4, AP: 6}
}

func charge(unit, target string) projector.Command {
	return projector.Command{Type: CmdCharge, Unit: unit, Target: target}
}

// chargeField: alice's three marines at x=10 charge bob's three Orks at
// x=17 (6.02" base to base), armed with ws.
func chargeField(t *testing.T, ws ...events.WeaponSpec) *projtest.Game {
	g := newGame(t, marines("tac", 3, 10, bolter()), boyz("boyz", 3, 17, ws...))
	toAssault(g)
	return g
}

// Charge success and failure by distance: 6" does not cover 6.02", 7" does.
func TestChargeDistanceDecidesSuccess(t *testing.T) {
	g := chargeField(t)
	g.Refused(alice, move("tac", "tac-1", 16, 10), projector.CodeWrongStep)
	g.Do(alice, charge("tac", "boyz"))
	p := pending(t, g, projector.WaitRoll, "alice") // the Orks have no gun: no Overwatch
	if p.Purpose != purposeCharge || p.Dice != ChargeDice || !strings.Contains(p.Text, "6.0\"") {
		t.Fatalf("charge roll: %+v", p)
	}
	// A charge move before the charge roll skips a step.
	r := g.Refused(alice, move("tac", "tac-1", 16, 10), projector.CodeWrongStep)
	if !strings.Contains(r.Reason, "after the charge roll") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Refused(alice, charge("tac", "boyz"), projector.CodeWrongStep)
	g.Roll(3, 3)
	ch := ed(g.State).Charge
	if ch.Success || ch.Stage != chargeFailed || ch.Distance != 6 || ch.First != "tac-1" {
		t.Fatalf("6\" must fail: %+v", ch)
	}
	r = g.Refused(alice, move("tac", "tac-1", 15, 10), projector.CodeWrongStep)
	if !strings.Contains(r.Reason, "charge failed") {
		t.Fatalf("reason %q", r.Reason)
	}
	if locked(g.State, g.State.Unit("tac")) {
		t.Fatal("a failed charge locks nobody")
	}
	g.Refused(alice, charge("tac", "boyz"), projector.CodeNotEligible) // once per phase
	same(t, g)

	g = chargeField(t)
	g.Do(alice, charge("tac", "boyz"))
	g.Roll(3, 4)
	pending(t, g, WaitChargeMove, "alice")
	g.Refused(alice, move("tac", "tac-2", 16, 11.2), projector.CodeWrongStep)    // not the first charger
	g.Refused(alice, move("tac", "tac-1", 15.5, 10), projector.CodeNotEligible)  // short of base contact
	g.Refused(alice, move("tac", "tac-1", 17.2, 10.9), projector.CodeMoveTooFar) // further than 7"
	g.Refused(alice, projector.Command{Type: projector.CmdNextTurn}, projector.CodeWrongStep)
	g.Do(alice, move("tac", "tac-1", 16.02, 10))
	if !locked(g.State, g.State.Unit("tac")) || !slices.Equal(g.State.Unit("boyz").Engaged, []string{"tac"}) {
		t.Fatal("the first charger's contact locks the units")
	}
	g.Do(alice, move("tac", "tac-2", 16.02, 11.2))
	g.Refused(alice, move("tac", "tac-3", 17.1, 13.5), projector.CodeMoveTooFar)
	pending(t, g, projector.WaitDeclare, "alice")
	same(t, g)
}

func TestChargeDeclarationRefusals(t *testing.T) {
	far := newGame(t, marines("tac", 1, 10, bolter()), boyz("boyz", 1, 23.5))
	far.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	far.Refused(alice, charge("tac", "boyz"), projector.CodeWrongPhase)
	far.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	far.Refused(alice, charge("tac", "boyz"), projector.CodeOutOfRange) // 12.5"
	far.Refused(bob, charge("boyz", "tac"), projector.CodeWrongPlayer)
	far.Refused(alice, charge("tac", "tac"), projector.CodeBadCommand)
}

// Overwatch: the charged unit fires snap shots (BS2 → 6+) at the charger;
// the charge roll follows.
func TestOverwatch(t *testing.T) {
	g := chargeField(t, shoota())
	g.Do(alice, charge("tac", "boyz"))
	p := pending(t, g, WaitOverwatch, "bob")
	if !strings.Contains(p.Text, "Overwatch") {
		t.Fatalf("offer %q", p.Text)
	}
	g.Refused(alice, projector.Command{Type: CmdOverwatch}, projector.CodeWrongPlayer)
	g.Refused(alice, projector.Command{Type: projector.CmdRoll, Values: []int{3, 4}}, projector.CodeWrongStep)
	g.Do(bob, projector.Command{Type: CmdOverwatch, Unit: "boyz"})
	a := g.State.Attack
	if a.Type != projector.AttackOverwatch || a.Kind != KindSnap || a.Firer != "boyz" || a.Target != "tac" || a.Attacker != "bob" {
		t.Fatalf("overwatch attack %+v", a)
	}
	p = pending(t, g, projector.WaitRoll, "bob")
	if p.Need != 6 || p.Dice != 6 {
		t.Fatalf("overwatch hits on 6s: %+v", p)
	}
	g.Roll(6, 1, 1, 1, 1, 1)
	g.Roll(4)
	g.Roll(1) // tac-1 (closest) fails its 3+
	if g.State.Attack != nil {
		t.Fatalf("overwatch should be over: %+v", g.State.Pending)
	}
	if got := alive(g, "tac"); !slices.Equal(got, []string{"tac-2", "tac-3"}) {
		t.Fatalf("alive %v", got)
	}
	p = pending(t, g, projector.WaitRoll, "alice")
	if p.Purpose != purposeCharge {
		t.Fatalf("the charge roll follows Overwatch: %+v", p)
	}
	g.Roll(4, 4)
	if ch := ed(g.State).Charge; ch.First != "tac-2" || !ch.Success {
		t.Fatalf("the first charger is the closest survivor: %+v", ch)
	}
	same(t, g)
}

// Overwatch is fired once per phase; declining keeps it; a unit whose
// weapons cannot snap fire cannot fire Overwatch.
func TestOverwatchRefusalsAndOncePerPhase(t *testing.T) {
	flamer := events.WeaponSpec{ID: "burna", Name: "burna", Range: 8, Type: Assault, Shots: 1, S: 4, AP: 5, Keywords: []string{"TEMPLATE"}}
	dev, scouts, shootas := marines("dev", 1, 10, bolter()), marines("scouts", 1, 10, bolter()), boyz("shootas", 1, 17, shoota())
	dev.Models[0].Y, scouts.Models[0].Y, shootas.Models[0].Y = 20, 22, 20
	g := newGame(t, marines("tac", 1, 10, bolter()), dev, scouts, boyz("boyz", 2, 17, flamer), shootas)
	toAssault(g)
	g.Do(alice, charge("tac", "boyz"))
	r := g.Refused(bob, projector.Command{Type: CmdOverwatch}, CodeCannotSnap)
	if !strings.Contains(r.Reason, "template") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Refused(bob, projector.Command{Type: CmdOverwatch, Unit: "shootas"}, projector.CodeNotEligible)
	g.Do(bob, projector.Command{Type: projector.CmdDecline})
	g.Roll(1, 1)
	// dev charges the shootas, who fire; scouts charging them next get no
	// Overwatch this phase.
	g.Do(alice, charge("dev", "shootas"))
	g.Do(bob, projector.Command{Type: CmdOverwatch})
	g.Roll(1, 1)
	g.Roll(1, 1) // charge roll: fails
	if ch := ed(g.State).Charge; ch.Stage != chargeFailed {
		t.Fatalf("charge %+v", ch)
	}
	g.Do(alice, charge("scouts", "shootas"))
	if p := g.State.Pending; p.Kind != projector.WaitRoll || p.Purpose != purposeCharge {
		t.Fatalf("no second Overwatch in a phase: %+v", p)
	}
	same(t, g)
}

// Overwatch that shoots the whole charging unit down ends the charge.
func TestOverwatchCanStopTheCharge(t *testing.T) {
	g := newGame(t, marines("tac", 1, 10, bolter()), boyz("boyz", 3, 17, shoota()))
	toAssault(g)
	g.Do(alice, charge("tac", "boyz"))
	g.Do(bob, projector.Command{Type: CmdOverwatch})
	g.Roll(6, 1, 1, 1, 1, 1)
	g.Roll(6)
	g.Roll(1)
	if ch := ed(g.State).Charge; ch.Stage != chargeFailed {
		t.Fatalf("charge %+v", ch)
	}
	pending(t, g, projector.WaitDeclare, "alice")
	same(t, g)
}
