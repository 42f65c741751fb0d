package analytics_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay/analytics/report"
	"github.com/matchrec/matchrec/store/api"
)

func squad(id, player string, n int, x float64, bs, t, sv int) events.UnitSpec {
	u := events.UnitSpec{ID: id, Name: id, Player: player,
		Weapons: []events.WeaponSpec{{ID: "bolter", Name: "boltgun", Range: 24, Type: "rapid-fire", Shots: 1, S: 4}}}
	for i := 0; i < n; i++ {
		u.Models = append(u.Models, events.ModelSpec{ID: fmt.Sprintf("%s-%d", id, i), BS: bs, T: t, W: 1, Sv: sv,
			Height: 1.5, BaseMM: 25, X: x, Y: 10 + float64(i)*1.2, Weapons: []string{"bolter"}})
	}
	return u
}

// One attack with manual dice: 10 BS4 boltguns (3+) at T4 (4+), Sv5+.
// The attack's expected values are the exact odds of the dice each step
// rolled, and the rolls carry each die's chance.
func TestExpectedValuesFromExactOdds(t *testing.T) {
	for _, tc := range []struct {
		targets    int
		casualties int
	}{{10, 3}, {2, 2}} {
		t.Run(fmt.Sprintf("%d targets", tc.targets), func(t *testing.T) {
			e := newEnv(t)
			ctx := context.Background()
			created, err := e.rec.Create(ctx, api.CreateRequest{MatchCreated: events.MatchCreated{
				Edition: "3e", Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
				Units: []events.UnitSpec{squad("tac", "alice", 10, 10, 4, 4, 3), squad("boyz", "bob", tc.targets, 30, 2, 4, 5)}}})
			if err != nil {
				t.Fatal(err)
			}
			do := func(who string, c projector.Command) {
				t.Helper()
				if _, err := e.rec.Execute(ctx, created.Match, created.Tokens[who], c); err != nil {
					t.Fatalf("%s: %v", c.Type, err)
				}
			}
			alice, bob := api.RolePlayer("alice"), api.RolePlayer("bob")
			do(alice, projector.Command{Type: projector.CmdNextTurn})
			do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
			do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
			do(alice, projector.Command{Type: projector.CmdRoll, Values: []int{1, 2, 3, 4, 5, 6, 3, 3, 1, 6}}) // 7 hits
			do(alice, projector.Command{Type: projector.CmdRoll, Values: []int{4, 4, 4, 1, 1, 1, 6}})          // 4 wounds
			do(bob, projector.Command{Type: projector.CmdRoll, Values: []int{5, 1, 1, 1}})                     // 1 save
			s, err := e.rec.State(ctx, created.Match, 0)
			if err != nil {
				t.Fatal(err)
			}
			if s.Pending.Kind == projector.WaitCasualties {
				var ids []string
				for i := 0; i < s.Pending.Count; i++ {
					ids = append(ids, fmt.Sprintf("boyz-%d", i))
				}
				do(bob, projector.Command{Type: projector.CmdCasualties, Models: ids})
			}
			catchUp(t, e.up)
			row := query(t, e.db, `SELECT shots, hits, wounds, saves, unsaved, casualties, exp_hits, exp_wounds, exp_saves,
				exp_unsaved, exp_casualties, hit_need, weapon FROM attacks`)
			if len(row) != 1 {
				t.Fatalf("%d attack rows, want 1", len(row))
			}
			r := row[0]
			for i, want := range []int64{10, 7, 4, 1, 3, int64(tc.casualties)} {
				if r[i].(int64) != want {
					t.Fatalf("column %d is %v, want %d (row %v)", i, r[i], want, r)
				}
			}
			// P(unsaved per shot) = 2/3 × 1/2 × 2/3 = 2/9.
			p := 2.0 / 9
			var expCas float64 // E[min(U, targets)], U ~ Binomial(10, 2/9)
			for k := 0; k <= 10; k++ {
				expCas += float64(min(k, tc.targets)) * float64(binom(10, k)) * math.Pow(p, float64(k)) * math.Pow(1-p, float64(10-k))
			}
			for i, want := range []float64{10 * 2.0 / 3, 7 * 0.5, 4 * 1.0 / 3, 10 * p, expCas} {
				if got := r[6+i].(float64); math.Abs(got-want) > 1e-9 {
					t.Errorf("expected column %d is %v, want %v", 6+i, got, want)
				}
			}
			if r[11].(int64) != 3 || r[12] != "boltgun" {
				t.Errorf("hit need %v, weapon %v", r[11], r[12])
			}
			dice := query(t, e.db, `SELECT purpose, count(*), sum(success::INT), min(p), max(p), min(need), count(DISTINCT attack_seq)
				FROM rolls GROUP BY purpose ORDER BY purpose`)
			want := [][]any{
				{"hit", int64(10), int64(7), 2.0 / 3, 2.0 / 3, int64(3), int64(1)},
				{"save", int64(4), int64(1), 1.0 / 3, 1.0 / 3, int64(5), int64(1)},
				{"wound", int64(7), int64(4), 0.5, 0.5, int64(4), int64(1)},
			}
			for i := range want {
				for k := range want[i] {
					got := dice[i][k]
					if f, ok := want[i][k].(float64); ok {
						if math.Abs(got.(float64)-f) > 1e-12 {
							t.Errorf("rolls %v: column %d = %v, want %v", dice[i], k, got, f)
						}
					} else if got != want[i][k] {
						t.Errorf("rolls %v: column %d = %v, want %v", dice[i], k, got, want[i][k])
					}
				}
			}
			if tc.targets == 10 {
				checkLuck(t, e)
			}
		})
	}
}

// checkLuck: alice rolled 10 hit dice at 3+ (7 hits) and 7 wound dice at
// 4+ (4 wounds); bob 4 saves at 5+ (1 save).
func checkLuck(t *testing.T, e *env) {
	t.Helper()
	r, err := report.Luck(context.Background(), dbQuerier{e.db}, report.LuckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]float64{ // luck, z, percentile
		"alice": {11 - (10*2.0/3 + 3.5), (11 - (10*2.0/3 + 3.5)) / math.Sqrt(10*2.0/9+7*0.25), 0},
		"bob":   {1 - 4.0/3, (1 - 4.0/3) / math.Sqrt(4*2.0/9), 0},
	}
	if len(r.Players) != 2 || r.Players[0].Player != "alice" {
		t.Fatalf("luck report %+v", r.Players)
	}
	for _, p := range r.Players {
		w := want[p.Player]
		pct := 100 * 0.5 * math.Erfc(-w[1]/math.Sqrt2)
		if math.Abs(p.Luck-w[0]) > 1e-9 || math.Abs(p.Z-w[1]) > 1e-9 || math.Abs(p.Percentile-pct) > 1e-6 || p.Matches != 1 {
			t.Errorf("%s: luck %.4f z %.4f percentile %.2f, want %.4f %.4f %.2f", p.Player, p.Luck, p.Z, p.Percentile, w[0], w[1], pct)
		}
		// The timeline's band is 1.96 standard deviations of fair luck.
		if band := 1.96 * w[0] / w[1]; len(p.Timeline) != 1 || math.Abs(p.Timeline[0].Band-band) > 1e-9 {
			t.Errorf("%s: timeline %+v, want a band of %.4f", p.Player, p.Timeline, band)
		}
	}
	if a := r.Players[0]; a.Wounds != 3 || math.Abs(a.ExpWounds-20.0/9) > 1e-9 || len(a.Timeline) != 1 {
		t.Errorf("alice's wounds %d (expected %.3f), timeline %v", a.Wounds, a.ExpWounds, a.Timeline)
	}
}

func binom(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}
