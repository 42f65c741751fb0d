package replay_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
)

// closedForm records the worked attack of docs/rules/3e.md#worked-numbers: 10 shots BS4 (3+), S4 vs
// T4 (4+), Sv3+, played with manual dice giving exactly `unsaved` unsaved
// wounds. It returns the declaration's seq.
func closedForm(t testing.TB, st store.Store, unsaved int) uint64 {
	t.Helper()
	model := func(id string, x, y float64, sv int) events.ModelSpec {
		return events.ModelSpec{ID: id, BS: 4, T: 4, W: 1, Sv: sv, Height: 1.5, BaseMM: 25, X: x, Y: y, Weapons: []string{"bg"}}
	}
	gun := []events.WeaponSpec{{ID: "bg", Name: "bolter", Range: 24, Type: ed3e.Assault, Shots: 1, S: 4}}
	var tac, tgt []events.ModelSpec
	for i := 0; i < 10; i++ {
		tac = append(tac, model(fmt.Sprintf("t%d", i), 10, 5+float64(i)*1.2, 3))
		tgt = append(tgt, model(fmt.Sprintf("m%d", i), 20, 5+float64(i)*1.2, 3))
	}
	g := projtest.New(t, ed3e.Rules{}, events.MatchCreated{Edition: "3e",
		Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Units: []events.UnitSpec{{ID: "tac", Player: "alice", Weapons: gun, Models: tac},
			{ID: "csm", Player: "bob", Weapons: gun, Models: tgt}}})
	alice := projtest.Player("alice")
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "csm"})
	decl := g.State.Seq
	g.Roll(6, 6, 6, 6, 6, 6, 6, 6, 1, 1) // 8 hits
	g.Roll(6, 6, 6, 6, 6, 1, 1, 1)       // 5 wounds
	saves := []int{6, 6, 6, 6, 6}
	for i := 0; i < unsaved; i++ {
		saves[i] = 1
	}
	g.Roll(saves...)
	if unsaved > 0 {
		var ids []string
		for i := 0; i < unsaved; i++ {
			ids = append(ids, fmt.Sprintf("m%d", i))
		}
		g.Do(projtest.Player("bob"), projector.Command{Type: projector.CmdCasualties, Models: ids})
	}
	var prev events.Hash
	evs := make([]events.Event, len(g.Events))
	for i, e := range g.Events {
		e.Match, e.PrevHash = "wf", prev
		e.Hash = events.ComputeHash(e)
		evs[i], prev = e, e.Hash
	}
	if err := st.Append(context.Background(), "wf", 0, evs); err != nil {
		t.Fatal(err)
	}
	return decl
}

func binomPMF(n, k int, p float64) float64 {
	c := 1.0
	for i := 0; i < k; i++ {
		c = c * float64(n-i) / float64(i+1)
	}
	return c * math.Pow(p, float64(k)) * math.Pow(1-p, float64(n-k))
}

// What-if on the worked attack: the mean of unsaved wounds is 10/9 within
// sampling error, and the percentile of the actual outcome (2 unsaved)
// matches the exact Binomial(10, 1/9) mid-rank within sampling error.
func TestWhatIfMatchesClosedForm(t *testing.T) {
	st := openBolt(t)
	decl := closedForm(t, st, 2)
	runs := 40_000
	w, err := replay.RunWhatIf(context.Background(), st, "wf", decl, editions.Lookup, replay.WhatIfOptions{Runs: runs, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	u := w.Measures["unsaved"]
	p := 1.0 / 9
	se := math.Sqrt(10*p*(1-p)) / math.Sqrt(float64(runs))
	if math.Abs(u.Mean-10*p) > 4*se {
		t.Fatalf("mean unsaved %.4f, want %.4f ± %.4f", u.Mean, 10*p, 4*se)
	}
	if w.Actual == nil || w.Actual.Unsaved != 2 || w.Actual.Casualties != 2 || w.Actual.ModelsLeft != 8 {
		t.Fatalf("actual %+v", w.Actual)
	}
	exact := 100 * (binomPMF(10, 0, p) + binomPMF(10, 1, p) + binomPMF(10, 2, p)/2)
	tol := 100 * 4 * math.Sqrt(0.25/float64(runs))
	if math.Abs(u.Percentile-exact) > tol {
		t.Fatalf("percentile %.2f, exact %.2f ± %.2f", u.Percentile, exact, tol)
	}
	if c := w.Measures["casualties"]; math.Abs(c.Percentile-exact) > tol {
		t.Fatalf("casualties percentile %.2f, exact %.2f", c.Percentile, exact)
	}
	// The match itself is untouched by the simulation.
	s, _, err := fold.Fold(context.Background(), st, "wf", 0, editions.Lookup)
	if err != nil || len(s.Unit("csm").AliveModels()) != 8 {
		t.Fatalf("match changed: %v", err)
	}
	if _, err := replay.RunWhatIf(context.Background(), st, "wf", 3, editions.Lookup, replay.WhatIfOptions{Runs: 10}); err == nil {
		t.Fatal("what-if with no attack at that point should be refused")
	}
}

// BenchmarkWhatIf: simulated 10-shot 3e attack sequences per second.
func BenchmarkWhatIf(b *testing.B) {
	st := openBolt(b)
	decl := closedForm(b, st, 1)
	ctx := context.Background()
	runs := 20_000
	for b.Loop() {
		if _, err := replay.RunWhatIf(ctx, st, "wf", decl, editions.Lookup, replay.WhatIfOptions{Runs: runs, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(runs*b.N)/b.Elapsed().Seconds(), "attacks/s")
}

// What-if's simulated dice converge to the odds the state keeps
// (Attack.HitOdds), which `report weapons` reads: for a BS7 attack (the
// re-roll of 1s at 5+), an 11e re-roll of 1s at 3+ and a blast placed on a
// lone model (its scatter), the mean simulated hits from the declaration
// are the state's expected hits within 4 standard errors.
func TestWhatIfHitsAreTheStatesOdds(t *testing.T) {
	m6 := events.ModelSpec{WS: 4, BS: 7, S: 4, T: 4, W: 1, I: 4, A: 1, Ld: 8, Sv: 3, Height: 1.5, BaseMM: 25}
	m11 := events.ModelSpec{T: 4, W: 1, Sv: 3, Height: 1.5, BaseMM: 25}
	column := func(id, player string, n int, x float64, m events.ModelSpec, ws ...events.WeaponSpec) events.UnitSpec {
		var carry []string
		for _, w := range ws {
			carry = append(carry, w.ID)
		}
		return projtest.Column(events.UnitSpec{ID: id, Player: player, Weapons: ws}, n, x, m, carry...)
	}
	bs4 := m6
	bs4.BS = 4
	for _, c := range []struct {
		name   string
		setup  events.MatchCreated
		shoot  projector.Command
		shots  int
		perHit float64
	}{
		{"6e BS7", projtest.Setup("6e", column("a", "alice", 6, 10, m6, events.WeaponSpec{ID: "p", Type: "pistol", Shots: 2, Range: 12, S: 4}),
			column("b", "bob", 5, 20, m6)), projtest.Shoot("a", "b"), 12, 8.0 / 9},
		{"11e re-roll 1s at 3+", projtest.Setup("11e", column("a", "alice", 6, 10, m11, events.WeaponSpec{ID: "r", Range: 24, Attacks: "2", BS: 3, S: 4, D: "1",
			Keywords: []string{"RE-ROLL HIT ROLLS OF 1"}}), column("b", "bob", 5, 20, m11)), projtest.Shoot("a", "b", "normal"), 12, 7.0 / 9},
		{"6e blast on a lone model", projtest.Setup("6e", column("a", "alice", 1, 10, bs4, events.WeaponSpec{ID: "f", Type: "heavy", Shots: 1, Range: 48, S: 4, AP: 6,
			Keywords: []string{"BLAST"}}), column("b", "bob", 1, 30, m6)), projtest.Shoot("a", "b"), 1, 14.0 / 27},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := editions.Lookup(c.setup.Edition)
			if err != nil {
				t.Fatal(err)
			}
			g := projtest.New(t, r, c.setup)
			g.ToPhase(projector.PhaseShooting)
			g.Do(projtest.Alice, c.shoot)
			decl := g.State.Seq
			g.FinishAttack(7)
			odds := g.State.LastAttack.HitOdds
			if want := float64(c.shots) * c.perHit; math.Abs(odds.Mean-want) > 1e-9 {
				t.Fatalf("the state's expected hits %v, want %v", odds.Mean, want)
			}
			const runs = 4000
			w, err := replay.WhatIfEvents(context.Background(), "wf", nil, projtest.Relabel("wf", g.Events), decl, editions.Lookup, replay.WhatIfOptions{Runs: runs, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if got, se := w.Measures["hits"].Mean, math.Sqrt(odds.Var/runs); math.Abs(got-odds.Mean) > 4*se {
				t.Fatalf("what-if's mean hits %.4f, the state's %.4f ± %.4f", got, odds.Mean, 4*se)
			}
		})
	}
}
