package rules

// Moments are the mean and variance of a count under fair dice: hits or
// wounds, summed roll by roll. Independent counts add.
type Moments struct {
	Mean float64 `json:"mean"`
	Var  float64 `json:"var"`
}

// Plus is the moments of the sum of two independent counts.
func (m Moments) Plus(o Moments) Moments { return Moments{Mean: m.Mean + o.Mean, Var: m.Var + o.Var} }

// Fixed is a count that is not random: n hits scored without a roll.
func Fixed(n float64) Moments { return Moments{Mean: n} }

// Binomial is the moments of the successes of n dice that each succeed
// with chance p.
func Binomial(n int, p float64) Moments {
	return Moments{Mean: float64(n) * p, Var: float64(n) * p * (1 - p)}
}

// RerollOnes is one die's chance of success on need, a 1 re-rolled once
// at reroll (0: no re-roll): P(need) + 1/6 · P(reroll). A re-roll replaces
// the first result.
func RerollOnes(need, reroll int) float64 {
	if reroll == 0 {
		return P(need)
	}
	return P(need) + P(1)/6*P(reroll)
}

// RerollFailures is one die's chance of success on need, a failure
// re-rolled once at reroll: P(need) + (1 − P(need)) · P(reroll).
func RerollFailures(need, reroll int) float64 {
	p := P(need)
	return p + (1-p)*P(reroll)
}

// LimitedRerolls is the moments of the successes of n dice on chance p
// when at most most of the failed ones are re-rolled, each re-roll
// succeeding with chance pr: with F ~ Binomial(n, 1 − p) failures and
// R | F ~ Binomial(min(F, most), pr), the count is n − F + R, summed
// exactly over F.
func LimitedRerolls(n int, p, pr float64, most int) Moments {
	q := 1 - p
	var mean, sq float64
	for f, pf := range binomialTerms(n, q) {
		k := float64(min(f, most))
		// E[count | F = f] and E[count² | F = f], R binomial on k dice.
		e := float64(n-f) + k*pr
		v := k * pr * (1 - pr)
		mean += pf * e
		sq += pf * (v + e*e)
	}
	return Moments{Mean: mean, Var: sq - mean*mean}
}

// binomialTerms lists P(F = f) for f = 0..n, F ~ Binomial(n, q).
func binomialTerms(n int, q float64) []float64 {
	out := make([]float64, n+1)
	c := 1.0 // n choose f
	for f := 0; f <= n; f++ {
		if f > 0 {
			c = c * float64(n-f+1) / float64(f)
		}
		out[f] = c * pow(q, f) * pow(1-q, n-f)
	}
	return out
}

func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}

// Distribution is the moments of a count that takes value v with
// probability p[v] (the p summing to 1): the hits of a blast marker over
// the places its scatter may take it. (A slice, summed in order: a fold's
// floating-point sums must not depend on map order.)
func Distribution(p []float64) Moments {
	var mean, sq float64
	for v, pv := range p {
		mean += pv * float64(v)
		sq += pv * float64(v) * float64(v)
	}
	return Moments{Mean: mean, Var: sq - mean*mean}
}
