package analytics

import (
	"math"

	"github.com/matchrec/matchrec/projector"
)

// expectedCasualties is the attack's expected models removed from the
// declaration: each shot is taken to cause an unsaved wound independently
// with p = exp_unsaved / shots (exact when the shots share one profile and
// the target one Toughness and save, as the editions' exact odds assume),
// U ~ Binomial(shots, p), and a model of w wounds falls per w of them:
// E[min(⌊U/w⌋, models)], w and models those of the eligible target models
// alive at the declaration. Variable damage (11e) is counted as wounds.
func expectedCasualties(s *projector.State, a *projector.Attack) float64 {
	if a.Shots <= 0 || a.Expected <= 0 {
		return 0
	}
	n := len(a.Eligible)
	w := 1
	if t := s.Unit(a.Target); t != nil && n > 0 {
		if m := t.Model(a.Eligible[0]); m != nil && m.W > 1 {
			w = m.W
		}
	}
	if n == 0 {
		return 0
	}
	p := math.Min(1, a.Expected/float64(a.Shots))
	return expectedMinBinomial(a.Shots, p, w, n)
}

// expectedMinBinomial is E[min(⌊U/w⌋, n)] for U ~ Binomial(shots, p),
// summed term by term (shots is at most a few hundred).
func expectedMinBinomial(shots int, p float64, w, n int) float64 {
	if p <= 0 {
		return 0
	}
	if p >= 1 {
		return float64(min(shots/w, n))
	}
	var e float64
	// log P(U = k) built from the binomial coefficients, stable for large shots.
	lq, lp := math.Log1p(-p), math.Log(p)
	lc := 0.0 // log C(shots, k)
	for k := 0; k <= shots; k++ {
		if k > 0 {
			lc += math.Log(float64(shots-k+1)) - math.Log(float64(k))
		}
		pk := math.Exp(lc + float64(k)*lp + float64(shots-k)*lq)
		e += float64(min(k/w, n)) * pk
	}
	return e
}
