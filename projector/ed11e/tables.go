package ed11e

import (
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// Every roll of the attack sequence succeeds on "unmodified roll ≥ need"
// for one need in 2..6: an unmodified 1 always fails and an unmodified 6
// always succeeds, so the modifiers and thresholds of a roll fold into the
// one number a dice.rolled event records, and the successes stay
// CountAtLeast(values, need).

// WoundNeed is the wound roll for Strength s against Toughness t
// (docs/rules/11e.md#wound-roll): S ≥ 2T 2+; S > T 3+; S = T 4+; S ≤ T/2 6+; S < T 5+.
func WoundNeed(s, t int) int {
	switch {
	case s >= 2*t:
		return 2
	case s > t:
		return 3
	case s == t:
		return 4
	case 2*s <= t: // S ≤ T/2 without rounding: S3 vs T7 is 6+, S3 vs T5 is 5+
		return 6
	}
	return 5
}

// HitNeed is the unmodified hit roll that hits: the BS target number,
// worsened by 1 in cover, less the capped modifier, never below minUnmod
// (indirect fire), and within 2..6 (unmodified 1 fails, 6 hits).
func HitNeed(bs int, cover bool, mod, minUnmod int) int {
	if cover {
		bs += CoverBSPenalty
	}
	return clamp(max(bs-capMod(mod), minUnmod), 2, 6)
}

// capMod bounds the sum of hit modifiers to ±HitModCap.
func capMod(mod int) int { return clamp(mod, -HitModCap, HitModCap) }

// SaveNeed is the save roll of model m against AP ap: the armour save
// worsened by |AP|, or the invulnerable save, whichever is better; at least
// 2 (an unmodified 1 fails); 7 when no save is possible.
func SaveNeed(m *projector.Model, ap int) int {
	need := 7
	if m.Sv > 0 {
		need = m.Sv + abs(ap)
	}
	if m.Inv > 0 && m.Inv < need {
		need = m.Inv
	}
	if need > 6 {
		return 7
	}
	return max(need, 2)
}

// pReroll is the probability that one die rolled for need succeeds with
// the re-roll rule (re-roll 1s, or re-roll every failure).
func pReroll(need int, rule string) float64 {
	switch rule {
	case RuleHitOnes:
		return rules.RerollOnes(need, need)
	case RuleHits, RuleWounds:
		return rules.RerollFailures(need, need)
	}
	return rules.P(need)
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
