package projtest

import (
	"math"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/sim"
)

// CheckMeanUnsaved plays the attack in progress in start to its end runs
// times, each from a clone, with seeded simulated dice through the
// edition's own Decide and Evolve, and fails t unless the mean unsaved
// wounds is within four standard errors of want, when each of n shots is
// unsaved with probability want/n (the worked numbers of docs/rules/,
// e.g. docs/rules/3e.md#worked-numbers). It also
// checks that start's exact Expected is want and that start is untouched.
func CheckMeanUnsaved(t testing.TB, r projector.Rules, start *projector.State, n, runs int, seed uint64, want float64) {
	t.Helper()
	before, _ := start.Hash()
	dice := sim.NewDice(seed)
	choose := sim.DefaultChooser(r)
	total := 0
	for i := 0; i < runs; i++ {
		s := start.Clone()
		if err := sim.FinishAttack(r, s, dice, choose); err != nil {
			t.Fatal(err)
		}
		total += s.LastAttack.Unsaved
	}
	mean := float64(total) / float64(runs)
	p := want / float64(n)
	se := math.Sqrt(float64(n)*p*(1-p)) / math.Sqrt(float64(runs))
	if math.Abs(mean-want) > 4*se {
		t.Fatalf("mean unsaved %.4f over %d runs, want %.4f ± %.4f", mean, runs, want, 4*se)
	}
	if math.Abs(start.Attack.Expected-want) > 1e-9 {
		t.Fatalf("exact expected %.4f, want %.4f", start.Attack.Expected, want)
	}
	if after, _ := start.Hash(); after != before {
		t.Fatal("simulation changed the state it started from")
	}
}

// FinishAttack records the rest of the attack in progress, as its players
// would: fair dice (seeded) typed in for each roll, and for each choice
// the edition's simulation default (sim.DefaultChooser).
func (g *Game) FinishAttack(seed uint64) {
	g.T.Helper()
	dice := sim.NewDice(seed)
	choose := sim.DefaultChooser(g.Rules)
	if g.State.Attack == nil {
		return
	}
	seq := g.State.Attack.Seq
	for guard := 0; g.State.Attack != nil && g.State.Attack.Seq == seq; guard++ {
		if guard > 10000 {
			g.T.Fatalf("the attack does not end: %s", g.State.Pending.Text)
		}
		p := g.State.Pending
		c := projector.Command{Type: projector.CmdRoll, Values: make([]int, p.Dice)}
		for i := range c.Values {
			c.Values[i] = dice.D6()
		}
		if p.Kind != projector.WaitRoll {
			var err error
			if c, err = choose(g.State); err != nil {
				g.T.Fatal(err)
			}
		}
		g.Do(Player(p.Player), c)
	}
}
