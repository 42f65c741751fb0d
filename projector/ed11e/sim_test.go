package ed11e

import (
	"math"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/sim"
)

// simulate declares unit a's shooting at b once, then plays the attack to
// its end runs times from clones of that state with seeded digital dice,
// through the engine's own Decide and Evolve, and returns the mean damage.
func simulate(t *testing.T, seed uint64, a, b events.UnitSpec) (mean, exact float64, runs int) {
	t.Helper()
	runs = 100_000
	if testing.Short() {
		runs = 20_000
	}
	g := newGame(t, a, b)
	toShooting(g)
	g.Do(alice, shoot(a.ID, b.ID, Normal))
	start := g.State
	dice := sim.NewDice(seed)
	total := 0
	for i := 0; i < runs; i++ {
		s := start.Clone()
		if err := sim.FinishAttack(Rules{}, s, dice, Choose); err != nil {
			t.Fatal(err)
		}
		total += edAttack(s.LastAttack).Damage
	}
	if start.Attack == nil || start.Attack.Next != 0 || start.Unit(b.ID).Destroyed() {
		t.Fatal("simulation changed the state it started from")
	}
	return float64(total) / float64(runs), start.Attack.Expected, runs
}

// check compares a simulated mean with the number of
// docs/rules/11e.md#worked-numbers, allowing 4
// standard errors of n attacks that each do 1 damage with probability p.
func check(t *testing.T, mean, exact, want float64, n int, p float64, runs int) {
	t.Helper()
	se := math.Sqrt(float64(n)*p*(1-p)) / math.Sqrt(float64(runs))
	if math.Abs(mean-want) > 4*se {
		t.Fatalf("simulated mean damage %.4f, want %.4f ± %.4f", mean, want, 4*se)
	}
	if math.Abs(exact-want) > 1e-9 {
		t.Fatalf("exact expected damage %.6f, want %.6f", exact, want)
	}
}

// docs/rules/11e.md#worked-numbers: 10 shots, BS 4+, S4 vs T4, Sv 4+, AP 0, D1 → 1.25.
func TestSimulationTenShots(t *testing.T) {
	t.Parallel()
	mean, exact, runs := simulate(t, 11, squad("a", "alice", 10, 10, gun("bolter", 4, 4)), squad("b", "bob", 10, 20))
	check(t, mean, exact, 1.25, 10, 1.0/8, runs)
}

// docs/rules/11e.md#worked-numbers: the same with re-roll of hit rolls of 1 → 1.25 × 7/6 ≈ 1.458.
func TestSimulationTenShotsRerollOnes(t *testing.T) {
	t.Parallel()
	mean, exact, runs := simulate(t, 12, squad("a", "alice", 10, 10, gun("bolter", 4, 4, KwRerollHitOnes)), squad("b", "bob", 10, 20))
	check(t, mean, exact, 1.25*7/6, 10, 7.0/48, runs)
}

// docs/rules/11e.md#worked-numbers: 2 shots, BS 3+, S4 AP−1 vs T5 Sv5+ (→ 6+) → 0.370.
func TestSimulationTwoShotsAP(t *testing.T) {
	t.Parallel()
	w := gun("bolter", 3, 4)
	w.AP = -1
	tgt := with(squad("b", "bob", 5, 20), func(m *events.ModelSpec) { m.T, m.Sv = 5, 5 })
	mean, exact, runs := simulate(t, 13, squad("a", "alice", 2, 10, w), tgt)
	check(t, mean, exact, 2*(2.0/3)*(1.0/3)*(5.0/6), 2, (2.0/3)*(1.0/3)*(5.0/6), runs)
}
