package analytics

import (
	"math"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// expectedCasualties is the attack's expected models removed from the
// declaration: each shot is taken to cause an unsaved wound independently
// with p = exp_unsaved / shots (exact when the shots share one profile and
// the target one Toughness and save, as the editions' exact odds assume),
// U ~ Binomial(shots, p), each dealing the attack's expected damage per
// unsaved wound (1 in 3e and 6e), and a model of w wounds falls per w of
// damage: E[min(⌊per·U/w⌋, models)], w and models those of the eligible
// target models alive at the declaration.
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
	per := 1.0
	if a.ExpectedDamage > a.Expected {
		per = a.ExpectedDamage / a.Expected
	}
	p := math.Min(1, a.Expected/float64(a.Shots))
	return rules.ExpectBinomial(a.Shots, p, func(k int) float64 {
		return float64(min(int(per*float64(k)+1e-9)/w, n))
	})
}
