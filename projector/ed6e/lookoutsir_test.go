package ed6e

import (
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

func pistol() events.WeaponSpec {
	return events.WeaponSpec{ID: "pistol", Name: "bolt pistol", Range: 12, Type: Pistol, S: 4}
}

// command: bob's captain (a CHARACTER, Sv3) at x=20, the closest model to
// alice's pistols at x=10, with veterans (Sv6) at the given positions.
func command(kw string, vets ...[2]float64) events.UnitSpec {
	u := boyz("cmd", 1+len(vets), 0)
	u.Name = "Command Squad"
	u.Models[0].ID, u.Models[0].Name, u.Models[0].X, u.Models[0].Y = "captain", "Captain", 20, 10
	u.Models[0].Sv, u.Models[0].Keywords = 3, []string{kw}
	for i, v := range vets {
		u.Models[i+1].X, u.Models[i+1].Y = v[0], v[1]
	}
	return u
}

// woundTheCaptain: one pistol shot that hits and wounds; the wound is
// allocated to the captain.
func woundTheCaptain(t *testing.T, target events.UnitSpec) *projtest.Game {
	g := newGame(t, marines("tac", 1, 10, pistol()), target)
	toShooting(g)
	g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, CodeNoLookOutSir)
	g.Do(alice, shoot("tac", "cmd"))
	g.Roll(6)
	g.Roll(6)
	return g
}

// Success: the wound moves to the model the owner named, even one out of
// range of the firers (cmd-2 stands 15" from the pistol of range 12).
func TestLookOutSirSuccessMovesTheWound(t *testing.T) {
	g := woundTheCaptain(t, command("CHARACTER", [2]float64{25.5, 10}, [2]float64{21, 11.2}))
	if el := g.State.Attack.Eligible; slices.Contains(el, "cmd-2") {
		t.Fatalf("cmd-2 should be out of range: eligible %v", el)
	}
	p := pending(t, g, WaitLookOutSir, "bob")
	if !strings.Contains(p.Text, "Captain") {
		t.Fatalf("offer %q", p.Text)
	}
	g.Refused(alice, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, projector.CodeWrongPlayer)
	g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "captain"}, projector.CodeNotEligible)
	g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "tac-1"}, projector.CodeNotEligible)
	g.Do(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"})
	p = pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeLookOutSir || p.Need != LookOutSirNeed || p.Dice != 1 {
		t.Fatalf("Look Out, Sir roll %+v", p)
	}
	g.Roll(4)
	p = pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeSave || p.Need != 6 || !strings.Contains(p.Text, "cmd-2") {
		t.Fatalf("the save is cmd-2's now: %+v", p)
	}
	g.Roll(1)
	if got := alive(g, "cmd"); !slices.Equal(got, []string{"captain", "cmd-3"}) {
		t.Fatalf("alive %v", got)
	}
	same(t, g)
}

// Failure (1–3): the character keeps the wound and saves it.
func TestLookOutSirFailure(t *testing.T) {
	g := woundTheCaptain(t, command("CHARACTER", [2]float64{21, 10}))
	g.Do(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"})
	g.Roll(3)
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeSave || p.Need != 3 || !strings.Contains(p.Text, "captain") {
		t.Fatalf("captain's save: %+v", p)
	}
	// One attempt per wound.
	r := g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, CodeNoLookOutSir)
	if !strings.Contains(r.Reason, "one Look Out, Sir per wound") {
		t.Fatalf("reason %q", r.Reason)
	}
	g.Roll(2)
	if got := alive(g, "cmd"); !slices.Equal(got, []string{"cmd-2"}) {
		t.Fatalf("alive %v", got)
	}
}

// No other model within 6": no attempt is offered, and one is refused.
func TestLookOutSirNeedsAModelWithinSixInches(t *testing.T) {
	g := woundTheCaptain(t, command("CHARACTER", [2]float64{27.5, 10})) // 6.5" base to base
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeSave {
		t.Fatalf("no offer expected: %+v", p)
	}
	r := g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, CodeNoLookOutSir)
	if !strings.Contains(r.Reason, "within 6") {
		t.Fatalf("reason %q", r.Reason)
	}
	// With one model near and one far, only the near one may be named.
	g = woundTheCaptain(t, command("CHARACTER", [2]float64{27.5, 10}, [2]float64{22, 10}))
	g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, projector.CodeNotEligible)
	g.Do(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-3"})
}

// Seed 000: «Si aucune figurine n'est à portée, on ne peut tenter aucun
// attention, Chef !» — an attempt refused for want of a model within 6"
// says so, even once the wound is gone (AP2 leaves the captain no save:
// the wound was applied at once, and the attack is over).
func TestLookOutSirRefusalNamesTheMissingSquadMate(t *testing.T) {
	ap2 := pistol()
	ap2.AP = 2
	g := newGame(t, marines("tac", 1, 10, ap2), command("CHARACTER", [2]float64{27.5, 10}))
	toShooting(g)
	g.Do(alice, shoot("tac", "cmd"))
	g.Roll(6)
	g.Roll(6)
	if g.State.Attack != nil {
		t.Fatalf("the attack should be over: %s", g.State.Pending.Text)
	}
	r := g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"}, CodeNoLookOutSir)
	if !strings.Contains(r.Reason, "no other model of captain's unit is within 6\"") {
		t.Fatalf("reason %q", r.Reason)
	}
}

// A unit of characters only may try; the wound moved to another character
// cannot be moved again. Independent characters succeed on 2+.
func TestLookOutSirCharactersOnlyAndIndependent(t *testing.T) {
	u := command("INDEPENDENT CHARACTER", [2]float64{21, 10})
	u.Models[1].Keywords, u.Models[1].Sv = []string{"CHARACTER"}, 4
	g := woundTheCaptain(t, u)
	g.Do(bob, projector.Command{Type: CmdLookOutSir, Model: "cmd-2"})
	if p := g.State.Pending; p.Need != LookOutSirNeedIC {
		t.Fatalf("independent character: %+v", p)
	}
	g.Roll(2)
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeSave || p.Need != 4 {
		t.Fatalf("no second offer for the other character: %+v", p)
	}
	g.Refused(bob, projector.Command{Type: CmdLookOutSir, Model: "captain"}, CodeNoLookOutSir)
	g.Roll(1)
	if got := alive(g, "cmd"); !slices.Equal(got, []string{"captain"}) {
		t.Fatalf("alive %v", got)
	}
}

// Declining keeps the wound on the character.
func TestLookOutSirDeclined(t *testing.T) {
	g := woundTheCaptain(t, command("CHARACTER", [2]float64{21, 10}))
	g.Refused(alice, projector.Command{Type: projector.CmdDecline}, projector.CodeWrongPlayer)
	g.Do(bob, projector.Command{Type: projector.CmdDecline})
	if p := pending(t, g, projector.WaitRoll, "bob"); p.Need != 3 {
		t.Fatalf("captain's save: %+v", p)
	}
	g.Refused(bob, projector.Command{Type: projector.CmdDecline}, projector.CodeWrongStep)
	same(t, g)
}
