package ed6e

import (
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// scattered: bob's Orks at the given x positions (y 10, 11.2, ...).
func scattered(id string, xs ...float64) events.UnitSpec {
	u := boyz(id, len(xs), 0)
	for i, x := range xs {
		u.Models[i].X = x
	}
	return u
}

// Wounds go to the closest model first, whatever the unit order; a batch
// of saves removes the closest models.
func TestWoundsGoToTheClosestModel(t *testing.T) {
	g := newGame(t, marines("tac", 5, 10, bolter()), scattered("boyz", 24, 20, 22, 21, 23))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	g.Roll(ones(5, 6)...)
	g.Roll(ones(5, 6)...) // 5 wounds
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Purpose != purposeSave || p.Dice != 5 || p.Need != 6 {
		t.Fatalf("one batch of saves for a uniform unit: %+v", p)
	}
	g.Roll(6, 6, 1, 1, 1)                // 3 unsaved
	want := []string{"boyz-1", "boyz-5"} // x=24 and x=23 survive
	if got := alive(g, "boyz"); !slices.Equal(got, want) {
		t.Fatalf("alive %v, want %v (closest removed first)", got, want)
	}
	if c := g.State.LastAttack.Casualties; !slices.Equal(c, []string{"boyz-2", "boyz-4", "boyz-3"}) {
		t.Fatalf("casualties in order %v", c)
	}
	same(t, g)
}

// A multi-wound closest model keeps taking wounds until it dies.
func TestClosestModelTakesWoundsUntilRemoved(t *testing.T) {
	b := scattered("nobz", 20, 21)
	b.Models[0].W = 2
	g := newGame(t, marines("tac", 3, 10, bolter()), b)
	toShooting(g)
	g.Do(alice, shoot("tac", "nobz"))
	g.Roll(6, 6, 6)
	g.Roll(6, 6, 1)
	g.Roll(1, 1)
	if got := alive(g, "nobz"); !slices.Equal(got, []string{"nobz-2"}) {
		t.Fatalf("alive %v", got)
	}
}

// Wounds no eligible model can take are lost: the Orks out of range are
// never wounded.
func TestWoundsNoEligibleModelCanTakeAreLost(t *testing.T) {
	g := newGame(t, marines("tac", 5, 10, bolter()), scattered("boyz", 20, 40, 41))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	if el := g.State.Attack.Eligible; !slices.Equal(el, []string{"boyz-1"}) {
		t.Fatalf("eligible %v", el)
	}
	g.Roll(ones(5, 6)...)
	g.Roll(ones(5, 6)...)
	g.Roll(ones(5, 1)...)
	la := g.State.LastAttack
	if g.State.Attack != nil || la.Unsaved != 5 || edAttack(la).Applied != 1 || edAttack(la).Lost != 4 {
		t.Fatalf("outcome %+v / %+v", la, edAttack(la))
	}
	if got := alive(g, "boyz"); !slices.Equal(got, []string{"boyz-2", "boyz-3"}) {
		t.Fatalf("alive %v", got)
	}
}

// Two Strength/AP pools: the attacker picks the order; an AP equal to or
// better than the armour save removes it.
func TestWoundPoolsInTheAttackersOrder(t *testing.T) {
	lc := events.WeaponSpec{ID: "lc", Name: "lascannon", Range: 48, Type: Heavy, Shots: 1, S: 9, AP: 2}
	u := marines("dev", 3, 10, bolter(), lc)
	u.Models[2].Weapons = []string{"lc"}
	target := marines("enemy", 4, 20, bolter()) // T4 Sv3
	target.Player = "bob"
	g := newGame(t, u, target)
	toShooting(g)
	g.Do(alice, shoot("dev", "enemy"))
	g.Roll(6, 6) // bolters
	g.Roll(6)    // lascannon
	g.Roll(6, 6) // S4 vs T4
	g.Roll(6)    // S9 vs T4
	p := pending(t, g, WaitPools, "alice")
	if p.Count != 2 {
		t.Fatalf("pools: %+v", p)
	}
	g.Refused(alice, projector.Command{Type: CmdPools, Indices: []int{0}}, projector.CodeBadCommand)
	g.Refused(alice, projector.Command{Type: CmdPools, Indices: []int{1, 1}}, projector.CodeBadCommand)
	g.Refused(bob, projector.Command{Type: CmdPools, Indices: []int{1, 0}}, projector.CodeWrongPlayer)
	g.Do(alice, projector.Command{Type: CmdPools, Indices: []int{1, 0}})
	// The S9 AP2 wound first: Sv3+ is lost to AP2, no save is rolled, the
	// closest marine dies; then a batch of two 3+ saves for the bolters.
	if got := alive(g, "enemy"); len(got) != 3 || got[0] != "enemy-2" {
		t.Fatalf("alive %v after the lascannon pool", got)
	}
	p = pending(t, g, projector.WaitRoll, "bob")
	if p.Dice != 2 || p.Need != 3 {
		t.Fatalf("bolter pool saves: %+v", p)
	}
	g.Roll(3, 2)
	if got := alive(g, "enemy"); len(got) != 2 {
		t.Fatalf("alive %v", got)
	}
	same(t, g)
}

// Each model uses its best save: cover beats a worse armour save; a mixed
// unit (some models in cover) saves one wound at a time.
func TestBestSaveAndOneAtATimeWithMixedSaves(t *testing.T) {
	b := scattered("boyz", 20, 21, 22)
	su := setup(marines("tac", 3, 10, bolter()), b)
	su.Terrain = []events.TerrainSpec{rect("R1", events.TerrainRuins, 20.5, 10, 21.5, 12)} // around boyz-2
	g := newGameFrom(t, su)
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	if sv := coverSave(g.State.Attack, "boyz-2"); sv != CoverRuins {
		t.Fatalf("boyz-2 in ruins: cover %d", sv)
	}
	g.Roll(6, 6, 6)
	g.Roll(6, 6, 6)
	// boyz-1 (closest) saves on 6+ alone.
	p := pending(t, g, projector.WaitRoll, "bob")
	if p.Dice != 1 || p.Need != 6 {
		t.Fatalf("first single save: %+v", p)
	}
	g.Roll(1)
	// boyz-2 uses its 4+ cover save, better than its 6+ armour.
	if p := g.State.Pending; p.Dice != 1 || p.Need != 4 {
		t.Fatalf("second single save: %+v", p)
	}
	g.Roll(4)
	if p := g.State.Pending; p.Dice != 1 || p.Need != 4 {
		t.Fatalf("third wound goes to boyz-2 again: %+v", p)
	}
	g.Roll(3)
	if got := alive(g, "boyz"); !slices.Equal(got, []string{"boyz-3"}) {
		t.Fatalf("alive %v", got)
	}
	same(t, g)
}

// No distribution or casualty choice exists in 6e.
func TestNoCasualtyChoice(t *testing.T) {
	g := newGame(t, marines("tac", 1, 10, bolter()), boyz("boyz", 2, 20))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	g.Refused(bob, projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-1"}}, projector.CodeWrongStep)
}

// Locked units neither shoot nor are shot at.
func TestNoShootingIntoOrOutOfCombat(t *testing.T) {
	g := newGame(t, marines("tac", 1, 10, bolter()), marines("dev", 1, 10, bolter()), boyz("boyz", 1, 20))
	g.Both(func(s *projector.State) { lock(s.Unit("tac"), s.Unit("boyz")) })
	toShooting(g)
	g.Refused(alice, shoot("tac", "boyz"), projector.CodeNotEligible)
	g.Refused(alice, shoot("dev", "boyz"), projector.CodeNotEligible)
}
