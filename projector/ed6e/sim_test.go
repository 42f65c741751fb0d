package ed6e

import (
	"math"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// The worked number of docs/rules/6e.md#worked-numbers, through the
// engine's own pipeline with
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
// BS4 with one re-roll per model. The variances are the exact ones,
// from the distribution of hits enumerated by hand.
func TestExpectedHitsWithRerolls(t *testing.T) {
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	bs8 := stepHits(projector.DiceStep{Dice: 12, Need: 2}, Step{Reroll: ruleBS, RerollNeed: 4})
	near("12 BS8 shots, mean", bs8.Mean, 11)
	near("12 BS8 shots, variance", bs8.Var, 12*11.0/12/12)
	// One die, one re-roll at 3+: 2/3 + 1/3 × 2/3 = 8/9.
	mc := stepHits(projector.DiceStep{Dice: 1, Need: 3}, Step{Reroll: ruleMC, RerollNeed: 3, RerollMax: 1})
	near("master-crafted, mean", mc.Mean, 8.0/9)
	near("master-crafted, variance", mc.Var, 8.0/81)
	// Two dice, one re-roll: P(2 hits) = 20/27, P(1) = 6/27, P(0) = 1/27.
	mc2 := stepHits(projector.DiceStep{Dice: 2, Need: 3}, Step{Reroll: ruleMC, RerollNeed: 3, RerollMax: 1})
	near("master-crafted ×2, mean", mc2.Mean, 46.0/27)
	near("master-crafted ×2, variance", mc2.Var, 86.0/27-46.0/27*46.0/27)
}

// Clone shares nothing mutable: changing a clone's 6e parts leaves the
// original as it was.
func TestCloneIsDeep(t *testing.T) {
	g := moraleFight(t)
	before, _ := g.State.Hash()
	c := g.State.Clone()
	ed(c).Combat.Tests[0].Need = 99
	ed(c).Combat.Units[0] = "x"
	ed(c).Combat.Caused[0].Wounds = 99
	ed(c).Fought[0] = "x"
	ed(c).Charge.Dice[0] = 6
	ed(c).Charged[0] = "x"
	la := c.LastAttack
	edAttack(la).Steps[0].AP = 99
	if after, _ := g.State.Hash(); after != before {
		t.Fatal("changing a clone changed the original")
	}
	g2 := woundTheCaptain(t, command("CHARACTER", [2]float64{21, 10}))
	before, _ = g2.State.Hash()
	c = g2.State.Clone()
	edAttack(c.Attack).Wound.Model = "x"
	edAttack(c.Attack).Cover[0].Save = 1
	edAttack(c.Attack).Pools[0].Wounds = 99
	edAttack(c.Attack).Order[0] = 99
	if after, _ := g2.State.Hash(); after != before {
		t.Fatal("changing a clone's attack changed the original")
	}
}
