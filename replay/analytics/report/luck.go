package report

import (
	"context"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// LuckOptions filter the luck report.
type LuckOptions struct {
	Player string // "" = every player
}

// PlayerLuck is one player's luck over their matches.
//
// Dice luck is, over every die with a target number the player rolled
// (hit, wound, save, Look Out Sir and their re-rolls), successes minus
// expected successes (Σ P(need)); under fair dice it has mean 0 and
// variance Σ p(1−p), so Z and Percentile say how rare the total is: the
// share of fair-dice players who would do no better (normal
// approximation).
//
// Wound luck is unsaved wounds caused minus the expected unsaved wounds of
// the player's attacks (the editions' exact odds from each declaration): a
// count against its expectation, in every edition.
type PlayerLuck struct {
	Player     string  `json:"player"`
	Matches    int64   `json:"matches"`
	Dice       int64   `json:"dice"`
	Successes  int64   `json:"successes"`
	Expected   float64 `json:"expected"`
	Luck       float64 `json:"luck"`
	Z          float64 `json:"z"`
	Percentile float64 `json:"percentile"` // 0..100
	Attacks    int64   `json:"attacks"`
	Wounds     int64   `json:"wounds"`
	ExpWounds  float64 `json:"expected_wounds"`
	WoundLuck  float64 `json:"wound_luck"`
	// Timeline is the player's dice luck match by match, in date order,
	// with the running total.
	Timeline []LuckPoint `json:"timeline,omitempty"`
}

// LuckPoint is one match of a player's timeline.
type LuckPoint struct {
	Match      string    `json:"match"`
	Date       time.Time `json:"date"`
	Luck       float64   `json:"luck"`
	Cumulative float64   `json:"cumulative"`
	// Band is the half-width of the 95% band of the cumulative luck of
	// fair dice with the same rolls: 1.96 √(Σ p(1−p)) so far.
	Band float64 `json:"band"`
}

// LuckReport lists players, luckiest first.
type LuckReport struct {
	Players []PlayerLuck `json:"players"`
}

// Luck computes each player's dice and wound luck over their matches.
func Luck(ctx context.Context, q Querier, o LuckOptions) (*LuckReport, error) {
	if err := checkPlayer(ctx, q, o.Player); err != nil {
		return nil, err
	}
	filter := ""
	if o.Player != "" {
		filter = " AND r.roller = " + lit(o.Player)
	}
	t, err := q.Query(ctx, `SELECT r.roller, r.match, min(m."date"), count(*), sum(r.success::INT), sum(r.p), sum(r.p * (1 - r.p))
		FROM rolls r JOIN matches m ON m.match = r.match
		WHERE r.success IS NOT NULL`+filter+`
		GROUP BY r.roller, r.match ORDER BY r.roller, min(m."date"), r.match`)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		return nil, noData("no dice with a target number rolled%s", by(o.Player))
	}
	r := &LuckReport{}
	idx := map[string]int{}
	variance := map[string]float64{}
	for _, row := range t.Rows {
		p := toString(row[0])
		i, ok := idx[p]
		if !ok {
			i = len(r.Players)
			idx[p] = i
			r.Players = append(r.Players, PlayerLuck{Player: p})
		}
		pl := &r.Players[i]
		n, succ, exp := toInt(row[3]), toInt(row[4]), toFloat(row[5])
		pl.Matches++
		pl.Dice += n
		pl.Successes += succ
		pl.Expected += exp
		variance[p] += toFloat(row[6])
		luck := float64(succ) - exp
		cum := luck
		if k := len(pl.Timeline); k > 0 {
			cum += pl.Timeline[k-1].Cumulative
		}
		pl.Timeline = append(pl.Timeline, LuckPoint{Match: toString(row[1]), Date: toTime(row[2]), Luck: luck, Cumulative: cum,
			Band: 1.96 * math.Sqrt(variance[p])})
	}
	wf := ""
	if o.Player != "" {
		wf = " WHERE attacker = " + lit(o.Player)
	}
	w, err := q.Query(ctx, `SELECT attacker, count(*), sum(unsaved), sum(exp_unsaved) FROM attacks`+wf+` GROUP BY attacker`)
	if err != nil {
		return nil, err
	}
	for _, row := range w.Rows {
		if i, ok := idx[toString(row[0])]; ok {
			pl := &r.Players[i]
			pl.Attacks, pl.Wounds, pl.ExpWounds = toInt(row[1]), toInt(row[2]), toFloat(row[3])
			pl.WoundLuck = float64(pl.Wounds) - pl.ExpWounds
		}
	}
	norm := distuv.UnitNormal
	for i := range r.Players {
		pl := &r.Players[i]
		pl.Luck = float64(pl.Successes) - pl.Expected
		if v := variance[pl.Player]; v > 0 {
			pl.Z = pl.Luck / math.Sqrt(v)
		}
		pl.Percentile = 100 * norm.CDF(pl.Z)
	}
	sortBy(r.Players, func(a, b PlayerLuck) bool { return a.Z > b.Z })
	return r, nil
}

func by(player string) string {
	if player == "" {
		return ""
	}
	return " by " + player
}

// sortBy is a stable insertion sort: reports have a handful of rows.
func sortBy[T any](xs []T, less func(a, b T) bool) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && less(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
