package ed6e

import (
	"math"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// RULES.md worked number, through the engine's own pipeline with
// simulated digital dice (declared once, cloned per run): 10 shots BS4
// (3+), S4 vs T4 (4+), Sv3+ → 10 × 2/3 × 1/2 × 1/3 = 1.111 expected
// unsaved wounds.
func TestSimulationMatchesWorkedNumber(t *testing.T) {
	runs := 100_000
	if testing.Short() {
		runs = 20_000
	}
	target := marines("enemy", 10, 20, bolter())
	target.Player = "bob"
	g := newGame(t, marines("tac", 10, 10, bolter()), target)
	toShooting(g)
	g.Do(alice, shoot("tac", "enemy"))
	if g.State.Attack.Shots != 10 {
		t.Fatalf("setup: %d shots", g.State.Attack.Shots)
	}
	projtest.CheckMeanUnsaved(t, Rules{}, g.State, 10, runs, 6, 10.0*2/3*0.5/3)
}

// Expected hits count the re-rolls: BS8 11/12 per shot; master-crafted
// BS4 with one re-roll per model.
func TestExpectedHitsWithRerolls(t *testing.T) {
	bs8 := expectedHits(projector.DiceStep{Dice: 12, Need: 2}, projector.Step6e{Reroll: ruleBS, RerollNeed: 4})
	if math.Abs(bs8-11) > 1e-9 {
		t.Fatalf("12 BS8 shots: %v expected hits, want 11", bs8)
	}
	// One die, one re-roll at 3+: 2/3 + 1/3 × 2/3 = 8/9.
	mc := expectedHits(projector.DiceStep{Dice: 1, Need: 3}, projector.Step6e{Reroll: ruleMC, RerollNeed: 3, RerollMax: 1})
	if math.Abs(mc-8.0/9) > 1e-9 {
		t.Fatalf("master-crafted: %v, want 8/9", mc)
	}
	// Two dice, one re-roll: 4/3 + E[min(F,1)] × 2/3, E[min(F,1)] = 1 − (2/3)².
	mc2 := expectedHits(projector.DiceStep{Dice: 2, Need: 3}, projector.Step6e{Reroll: ruleMC, RerollNeed: 3, RerollMax: 1})
	if want := 4.0/3 + (1-4.0/9)*2/3; math.Abs(mc2-want) > 1e-9 {
		t.Fatalf("master-crafted ×2: %v, want %v", mc2, want)
	}
}

// Clone shares nothing mutable: changing a clone's 6e parts leaves the
// original as it was.
func TestCloneIsDeep(t *testing.T) {
	g := moraleFight(t)
	before, _ := g.State.Hash()
	c := g.State.Clone()
	c.Ed6e.Combat.Tests[0].Need = 99
	c.Ed6e.Combat.Units[0] = "x"
	c.Ed6e.Combat.Caused[0].Wounds = 99
	c.Ed6e.Fought[0] = "x"
	c.Ed6e.Charge.Dice[0] = 6
	c.Ed6e.Charged[0] = "x"
	la := c.LastAttack
	la.Ed6e.Steps[0].AP = 99
	if after, _ := g.State.Hash(); after != before {
		t.Fatal("changing a clone changed the original")
	}
	g2 := woundTheCaptain(t, command("CHARACTER", [2]float64{21, 10}))
	before, _ = g2.State.Hash()
	c = g2.State.Clone()
	c.Attack.Ed6e.Wound.Model = "x"
	c.Attack.Ed6e.Cover[0].Save = 1
	c.Attack.Ed6e.Pools[0].Wounds = 99
	c.Attack.Ed6e.Order[0] = 99
	if after, _ := g2.State.Hash(); after != before {
		t.Fatal("changing a clone's attack changed the original")
	}
}
