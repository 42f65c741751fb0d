package analytics_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/replay/analytics/duckdb"
	"github.com/matchrec/matchrec/replay/analytics/report"
	"github.com/matchrec/matchrec/replay/generate"
)

// dbQuerier runs the reports' queries on a database directly.
type dbQuerier struct{ db *duckdb.DB }

func (q dbQuerier) Query(ctx context.Context, sql string) (*report.Table, error) {
	r, err := q.db.Query(ctx, sql, 0)
	if err != nil {
		return nil, err
	}
	t := &report.Table{Rows: r.Rows}
	for _, c := range r.Columns {
		t.Columns = append(t.Columns, c.Name)
	}
	return t, nil
}

// loadedDie rolls faces weighted 2:3:3:3:3:4.
type loadedDie struct{ r *rand.Rand }

func (d loadedDie) D6() int {
	x := d.r.IntN(18)
	for face, w := range report.Reference {
		if x < int(w) {
			return face + 1
		}
		x -= int(w)
	}
	return 6
}

// season records matches between player and opp until player has rolled
// at least rolls dice, player's dice from die (recorded as source), opp's
// fair and digital.
func season(t *testing.T, e *env, player, opp string, die sim.Dice, source string, seed uint64, rolls int) int {
	t.Helper()
	total := 0
	for n := 0; total < rolls; n++ {
		setup := generate.Setup(generate.Options{Edition: "3e", Seed: seed, Players: []string{player, opp}}, n)
		rolled := playDirect(t, e.st, fmt.Sprintf("%s-%d", player, n), setup.MatchCreated,
			map[string]sim.Dice{player: die, opp: sim.NewDice(seed*1000 + uint64(n))},
			map[string]string{player: source, opp: events.SourceDigital}, 3)
		total += rolled[player]
	}
	return total
}

// A player whose manual dice are loaded 2:3:3:3:3:4 is flagged after
// about 600 rolls, at the 5% level, while their opponent's fair digital
// dice in the same matches are not.
func TestDiceReportFlagsLoadedDie(t *testing.T) {
	e := newEnv(t)
	n := season(t, e, "loaded", "honest", loadedDie{rand.New(rand.NewPCG(42, 7))}, events.SourceManual, 42, 600)
	if n < 600 || n > 700 {
		t.Fatalf("the loaded player rolled %d dice, want about 600", n)
	}
	catchUp(t, e.up)
	ctx := context.Background()
	r, err := report.Dice(ctx, dbQuerier{e.db}, report.DiceOptions{Player: "loaded", Source: events.SourceManual})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 1 || r.Groups[0].N != int64(n) || !r.Groups[0].Flag || r.Level != report.Alpha {
		t.Fatalf("loaded die over %d rolls not flagged at 5%%: %+v (level %v)", n, r.Groups, r.Level)
	}
	all, err := report.Dice(ctx, dbQuerier{e.db}, report.DiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range all.Groups {
		if g.Flag != (g.Player == "loaded") {
			t.Errorf("%s %s: flagged %v (p %.4f at level %.4f)", g.Player, g.Source, g.Flag, g.P, all.Level)
		}
	}
	// The sample size stated for the reference die: λ(5 df, 5%, 80%) ≈
	// 12.83 over Cohen's w² = 1/27.
	if r.ReferenceNeeded < 340 || r.ReferenceNeeded > 355 {
		t.Errorf("reference die needs %d rolls, want about 347", r.ReferenceNeeded)
	}
}

// Fair digital dice are flagged about 5% of the time: over 100 seeded
// runs (each one player's season of about 600 rolls, tested at 5%), the
// number flagged is Binomial(100, 5%), and more than the count that fair
// dice exceed only 1% of the time fails. (Its mean, 5, is exceeded by
// fair dice almost 4 times in 10: no bound for a test that must not fail
// by chance.)
func TestDiceReportPassesFairDice(t *testing.T) {
	e := newEnv(t)
	runs := 100
	for i := 0; i < runs; i++ {
		season(t, e, fmt.Sprintf("fair%d", i), fmt.Sprintf("opp%d", i), sim.NewDice(uint64(1000+i)), events.SourceDigital, uint64(i), 600)
	}
	catchUp(t, e.up)
	flagged := 0
	for i := 0; i < runs; i++ {
		r, err := report.Dice(context.Background(), dbQuerier{e.db}, report.DiceOptions{Player: fmt.Sprintf("fair%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Groups) != 1 || r.Groups[0].Source != events.SourceDigital || r.Groups[0].N < 600 {
			t.Fatalf("run %d: %+v", i, r.Groups)
		}
		if r.Groups[0].Flag {
			flagged++
		}
	}
	limit := binomialQuantile(runs, 0.05, 0.99)
	t.Logf("fair dice flagged in %d of %d runs (at most %d expected 99%% of the time)", flagged, runs, limit)
	if flagged > limit {
		t.Fatalf("fair dice flagged in %d of %d runs, want at most %d", flagged, runs, limit)
	}
	if flagged == 0 {
		t.Fatalf("fair dice never flagged in %d runs at the 5%% level: the test has no power (Binomial(%d, 5%%) is 0 with chance 0.6%%)", runs, runs)
	}
}

// binomialQuantile is the smallest k with P(X ≤ k) ≥ q for X ~
// Binomial(n, p).
func binomialQuantile(n int, p, q float64) int {
	cdf, pk := 0.0, math.Pow(1-p, float64(n))
	for k := 0; k <= n; k++ {
		cdf += pk
		if cdf >= q {
			return k
		}
		pk *= float64(n-k) / float64(k+1) * p / (1 - p)
	}
	return n
}
