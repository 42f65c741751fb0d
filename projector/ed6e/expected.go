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
		total += stepHits(d, info).Mean * perHit(d.S, info.AP)
	}
	for _, h := range edAttack(a).AutoHits {
		total += float64(h.Hits) * perHit(h.S, h.AP)
	}
	return total
}

// stepHits is the moments of a hit step's hits with its re-roll: every 1
// at the BS6+ target, or up to RerollMax failures at the same target
// (master-crafted: rules.LimitedRerolls).
func stepHits(d projector.DiceStep, info Step) rules.Moments {
	switch info.Reroll {
	case ruleBS:
		return rules.Binomial(d.Dice, rules.RerollOnes(d.Need, info.RerollNeed))
	case ruleMC:
		return rules.LimitedRerolls(d.Dice, rules.P(d.Need), rules.P(info.RerollNeed), info.RerollMax)
	}
	return rules.Binomial(d.Dice, rules.P(d.Need))
}

// hitOdds is the moments of an attack's hits from its hit steps (with
// their re-rolls) and the hits it scored without a roll; the markers add
// theirs as they are placed (markerOdds).
func hitOdds(a *projector.Attack) rules.Moments {
	var m rules.Moments
	for i, d := range a.Steps {
		if info := edAttack(a).Steps[i]; d.Purpose == purposeHit && !info.IsReroll {
			m = m.Plus(stepHits(d, info))
		}
	}
	for _, h := range edAttack(a).AutoHits {
		m = m.Plus(rules.Fixed(float64(h.Hits)))
	}
	return m
}
