// Package rules holds the tables and odds the editions share: the wound
// chart of 3e and 6e, D6 success odds, and small dice helpers. What differs
// between editions lives in the edition's own package.
package rules

import "math"

// WoundChart returns the D6 roll a hit of Strength s needs to wound
// Toughness t on the 3e/6e chart, or 0 for "N" (cannot wound).
//
//	S ≥ T+2 → 2+; S = T+1 → 3+; S = T → 4+; S = T−1 → 5+;
//	S = T−2 or T−3 → 6+; S ≤ T−4 → N.
func WoundChart(s, t int) int {
	switch d := s - t; {
	case d >= 2:
		return 2
	case d == 1:
		return 3
	case d == 0:
		return 4
	case d == -1:
		return 5
	case d == -2 || d == -3:
		return 6
	}
	return 0
}

// P is the probability that one D6 rolls need or more. need 0 means the
// roll cannot succeed; need ≤ 1 always succeeds; need ≥ 7 never does.
func P(need int) float64 {
	switch {
	case need == 0 || need >= 7:
		return 0
	case need <= 1:
		return 1
	}
	return float64(7-need) / 6
}

// SaveFails is the probability that a save needing sv fails; sv 0 (no
// save) or 7+ always fails.
func SaveFails(sv int) float64 {
	if sv <= 0 {
		return 1
	}
	return 1 - P(sv)
}

// ExpectBinomial is E[f(U)] for U ~ Binomial(n, p), summed term by term
// (n is at most a few hundred shots): the expected casualties or damage of
// n shots that each cause an unsaved wound with chance p, when what they
// cause is capped.
func ExpectBinomial(n int, p float64, f func(k int) float64) float64 {
	switch {
	case n <= 0 || p <= 0:
		return f(0)
	case p >= 1:
		return f(n)
	}
	var e float64
	// log P(U = k) from the binomial coefficients, stable for large n.
	lq, lp := math.Log1p(-p), math.Log(p)
	lc := 0.0 // log C(n, k)
	for k := 0; k <= n; k++ {
		if k > 0 {
			lc += math.Log(float64(n-k+1)) - math.Log(float64(k))
		}
		e += f(k) * math.Exp(lc+float64(k)*lp+float64(n-k)*lq)
	}
	return e
}
