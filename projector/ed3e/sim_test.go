package ed3e

import (
	"math"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/sim"
)

// RULES.md worked number, through the engine's own pipeline with simulated
// digital dice: 10 shots BS4 (3+), S4 vs T4 (4+), Sv3+ → 10 × 2/3 × 1/2 ×
// 1/3 = 1.111 expected unsaved wounds.
func TestSimulationMatchesWorkedNumber(t *testing.T) {
	runs := 100_000
	if testing.Short() {
		runs = 20_000
	}
	gun := events.WeaponSpec{ID: "bolter", Range: 24, Type: Assault, Shots: 1, S: 4}
	target := boyz("marines", 10, 20)
	for i := range target.Models {
		target.Models[i].Sv = 3
	}
	g := newGame(t, marines("tac", 10, 10, gun), target)
	toShooting(g)
	g.Do(alice, shoot("tac", "marines"))
	if g.State.Attack.Shots != 10 {
		t.Fatalf("setup: %d shots", g.State.Attack.Shots)
	}
	start := g.State
	dice := sim.NewDice(42)
	total := 0
	for i := 0; i < runs; i++ {
		s := start.Clone()
		if err := sim.FinishAttack(Rules{}, s, dice, nil); err != nil {
			t.Fatal(err)
		}
		total += s.LastAttack.Unsaved
	}
	mean := float64(total) / float64(runs)
	want := 10.0 * 2 / 3 * 0.5 / 3
	se := math.Sqrt(10*(1.0/9)*(8.0/9)) / math.Sqrt(float64(runs))
	if math.Abs(mean-want) > 4*se {
		t.Fatalf("mean unsaved %.4f, want %.4f ± %.4f", mean, want, 4*se)
	}
	if math.Abs(start.Attack.Expected-want) > 1e-9 {
		t.Fatalf("exact expected %.4f, want %.4f", start.Attack.Expected, want)
	}
	if start.Attack.Next != 0 || start.Unit("marines").Destroyed() {
		t.Fatal("simulation changed the state it started from")
	}
}
