package report

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Alpha is the significance level of the dice test: a report flags a
// group when its p-value is below Alpha divided by the number of groups
// it tests (Bonferroni), so a report of fair dice flags nothing with
// probability at least 1 − Alpha however many players it lists.
const Alpha = 0.05

// Power is the chance of flagging a loaded die that the stated sample
// sizes aim for.
const Power = 0.8

// MinRolls is the fewest rolls a group needs for the chi-square test to
// hold (at least 5 expected per face); smaller groups are listed, not
// tested.
const MinRolls = 30

// Reference is the loaded die the report states a sample size for:
// faces weighted 2:3:3:3:3:4 (1s rarer, 6s likelier).
var Reference = [6]float64{2, 3, 3, 3, 3, 4}

// DiceOptions filter the dice report.
type DiceOptions struct {
	Player string // "" = every player
	Source string // "manual", "digital" or "" for both
}

// DiceGroup is one player's dice of one source.
type DiceGroup struct {
	Player string   `json:"player"`
	Source string   `json:"source"`
	Faces  [6]int64 `json:"faces"` // count of 1s … 6s
	N      int64    `json:"n"`
	Chi2   float64  `json:"chi2"`
	P      float64  `json:"p_value"`
	Tested bool     `json:"tested"`  // N ≥ MinRolls
	Flag   bool     `json:"flagged"` // p < Alpha / groups tested
	// Needed is how many rolls would flag dice as far from fair as these
	// ones look (their effect size w = √(χ²/N)) with probability Power.
	Needed int64 `json:"needed,omitempty"`
}

// DiceReport is the "are these dice loaded" check.
type DiceReport struct {
	Groups []DiceGroup `json:"groups"`
	Level  float64     `json:"level"` // the per-group threshold: Alpha / groups tested
	// ReferenceNeeded is how many rolls flag the Reference die with
	// probability Power at Alpha.
	ReferenceNeeded int64 `json:"reference_needed"`
}

// Dice counts faces per (player, source) and tests each group against a
// fair die with Pearson's chi-square (5 degrees of freedom).
func Dice(ctx context.Context, q Querier, o DiceOptions) (*DiceReport, error) {
	if err := checkPlayer(ctx, q, o.Player); err != nil {
		return nil, err
	}
	where := "value BETWEEN 1 AND 6"
	if o.Player != "" {
		where += " AND roller = " + lit(o.Player)
	}
	if o.Source != "" {
		where += " AND source = " + lit(o.Source)
	}
	t, err := q.Query(ctx, "SELECT roller, source, value, count(*) FROM rolls WHERE "+where+" GROUP BY ALL ORDER BY roller, source, value")
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		what := "no dice rolled"
		if o.Player != "" {
			what += " by " + o.Player
		}
		if o.Source != "" {
			what += " from " + o.Source + " dice"
		}
		return nil, noData("%s", what)
	}
	idx := map[[2]string]int{}
	r := &DiceReport{}
	for _, row := range t.Rows {
		k := [2]string{toString(row[0]), toString(row[1])}
		i, ok := idx[k]
		if !ok {
			i = len(r.Groups)
			idx[k] = i
			r.Groups = append(r.Groups, DiceGroup{Player: k[0], Source: k[1]})
		}
		g := &r.Groups[i]
		face, n := toInt(row[2]), toInt(row[3])
		g.Faces[face-1] += n
		g.N += n
	}
	tested := 0
	for i := range r.Groups {
		if r.Groups[i].N >= MinRolls {
			tested++
		}
	}
	r.Level = Alpha / float64(max(tested, 1))
	lambda := noncentrality(5, r.Level, Power)
	for i := range r.Groups {
		g := &r.Groups[i]
		g.Chi2, g.P = ChiSquare(g.Faces)
		g.Tested = g.N >= MinRolls
		g.Flag = g.Tested && g.P < r.Level
		if w2 := g.Chi2 / float64(g.N); g.N > 0 && w2 > 0 {
			g.Needed = int64(math.Ceil(lambda / w2))
		}
	}
	sort.SliceStable(r.Groups, func(i, j int) bool {
		if r.Groups[i].Player != r.Groups[j].Player {
			return r.Groups[i].Player < r.Groups[j].Player
		}
		return r.Groups[i].Source < r.Groups[j].Source
	})
	r.ReferenceNeeded = int64(math.Ceil(lambda / effect(Reference)))
	return r, nil
}

// ChiSquare is Pearson's statistic of face counts against a fair die and
// its p-value.
func ChiSquare(faces [6]int64) (chi2, p float64) {
	var n int64
	for _, c := range faces {
		n += c
	}
	if n == 0 {
		return 0, 1
	}
	e := float64(n) / 6
	for _, c := range faces {
		d := float64(c) - e
		chi2 += d * d / e
	}
	return chi2, 1 - distuv.ChiSquared{K: 5}.CDF(chi2)
}

// effect is Cohen's w² of a die with the given face weights.
func effect(weights [6]float64) float64 {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	var w2 float64
	for _, w := range weights {
		d := w/sum - 1.0/6
		w2 += d * d * 6
	}
	return w2
}

// noncentrality is the λ at which a chi-square test with df degrees of
// freedom at level alpha has the given power: n·w² must reach it.
func noncentrality(df int, alpha, power float64) float64 {
	crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - alpha)
	lo, hi := 0.0, 200.0
	for i := 0; i < 100; i++ {
		mid := (lo + hi) / 2
		if 1-ncx2CDF(crit, df, mid) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// ncx2CDF is the noncentral chi-square CDF: a Poisson(λ/2) mixture of
// central chi-squares with df + 2j degrees of freedom.
func ncx2CDF(x float64, df int, lambda float64) float64 {
	h := lambda / 2
	var sum float64
	w := math.Exp(-h)
	for j := 0; j < 1000; j++ {
		if j > 0 {
			w *= h / float64(j)
		}
		sum += w * distuv.ChiSquared{K: float64(df + 2*j)}.CDF(x)
		if j > int(h) && w < 1e-12 {
			break
		}
	}
	return sum
}
