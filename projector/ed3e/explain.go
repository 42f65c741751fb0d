package ed3e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

var _ projector.RollExplainer = Rules{}

// ExplainRoll states what a 3e roll is for — every 3e roll is an attack's
// hit, wound or save roll — its inputs and the rule behind them
// (projector.RollExplainer). The count of successes says what it decided.
func (Rules) ExplainRoll(before, _ *projector.State, p *events.DiceRolled) projector.RollReason {
	a := before.Attack
	d := a.Current()
	if d == nil {
		return projector.RollReason{For: "no roll was pending", Rule: "docs/rules/3e.md#shooting-sequence"}
	}
	why := projector.RollReason{For: kit.RollFor(before, a, d)}
	switch d.Purpose {
	case kit.PurposeHit:
		why.Inputs = []string{fmt.Sprintf("to hit = 7 − BS, never better than 2+ → %d+", d.Need)}
		for _, sh := range a.Shooters {
			if sh.S == d.S && HitNeed(sh.BS) == d.Need {
				why.Inputs = append(why.Inputs, fmt.Sprintf("%s BS%d with %s (%d shots at up to %g\")", sh.Model, sh.BS, sh.Weapon, sh.Shots, sh.Range))
			}
		}
		why.Rule = "docs/rules/3e.md#roll-to-hit"
	case kit.PurposeWound:
		why.Inputs = []string{fmt.Sprintf("Strength %d vs Toughness %d on the wound chart → %d+", d.S, d.T, d.Need)}
		if len(d.Models) > 0 {
			why.Inputs = append(why.Inputs, "mixed Toughness: each die is the hit the owner gave to "+strings.Join(d.Models, ", "))
		}
		why.Rule = "docs/rules/3e.md#roll-to-wound and docs/rules/3e.md#wound-chart"
	case kit.PurposeSave:
		why.Inputs = []string{fmt.Sprintf("armour save %s: D6 ≥ %d saves", d.Label, d.Need)}
		if len(d.Models) > 0 {
			why.Inputs = append(why.Inputs, "each die saves the wound on "+strings.Join(d.Models, ", "))
		}
		why.Rule = "docs/rules/3e.md#armour-saves"
	default:
		why.Inputs, why.Rule = []string{fmt.Sprintf("%d+", d.Need)}, "docs/rules/3e.md#shooting-sequence"
	}
	return why
}
