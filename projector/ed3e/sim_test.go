package ed3e

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/projtest"
)

// The worked number of docs/rules/3e.md#worked-numbers, through the
// engine's own pipeline with simulated
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
	projtest.CheckMeanUnsaved(t, Rules{}, g.State, 10, runs, 42, 10.0*2/3*0.5/3)
}
