package ed6e

import (
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// expected is an attack's exact expected unsaved wounds, for the luck
// meter: hits with their re-rolls, wounds against the majority Toughness,
// and each model's best save against the pool's AP, averaged over the
// models that may take the wounds. It ignores what allocation order, Look
// Out, Sir and lost wounds change.
func expected(s *projector.State, a *projector.Attack) float64 {
	t := s.Unit(a.Target)
	var models []*projector.Model
	for _, id := range a.Eligible {
		if m := t.Model(id); m != nil && m.Alive() {
			models = append(models, m)
		}
	}
	if len(models) == 0 {
		return 0
	}
	tough := majority(a, func(m *projector.Model) int { return m.T }, t)
	perHit := func(st, ap int) float64 {
		var sum float64
		for _, m := range models {
			sv, _ := bestSave(a, m, ap)
			sum += rules.SaveFails(sv)
		}
		return rules.P(rules.WoundChart(st, tough)) * sum / float64(len(models))
	}
	var total float64
	for i, d := range a.Steps {
		info := edAttack(a).Steps[i]
		if d.Purpose != purposeHit || info.IsReroll {
			continue
		}
		total += expectedHits(d, info) * perHit(d.S, info.AP)
	}
	for _, h := range edAttack(a).AutoHits {
		total += float64(h.Hits) * perHit(h.S, h.AP)
	}
	return total
}

// expectedHits is a hit step's expected hits with its re-roll: every 1 at
// the BS6+ target, or up to RerollMax failures at the same target
// (E[min(failures, max)] from the binomial distribution).
func expectedHits(d projector.DiceStep, info Step) float64 {
	ph := rules.P(d.Need)
	n := float64(d.Dice)
	switch info.Reroll {
	case ruleBS:
		return n * (ph + (1.0/6)*rules.P(info.RerollNeed))
	case ruleMC:
		return n*ph + expectedFailures(d.Dice, 1-ph, info.RerollMax)*rules.P(info.RerollNeed)
	}
	return n * ph
}

// expectedFailures is E[min(F, most)] for F ~ Binomial(dice, q): how many
// failed dice a re-roll of at most most dice takes, on average.
func expectedFailures(dice int, q float64, most int) float64 {
	switch {
	case q <= 0:
		return 0
	case q >= 1:
		return float64(min(dice, most))
	}
	var e float64
	pf := pow(1-q, dice) // P(F = f), built up term by term
	for f := 0; f <= dice; f++ {
		if f > 0 {
			pf *= float64(dice-f+1) / float64(f) * q / (1 - q)
		}
		e += float64(min(f, most)) * pf
	}
	return e
}

func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}
