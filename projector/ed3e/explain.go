package ed3e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

var _ projector.Explainer = Rules{}

// Explain states the inputs of a 3e dice step and the rule behind it.
func (Rules) Explain(s *projector.State, a *projector.Attack, d *projector.DiceStep) ([]string, string) {
	switch d.Purpose {
	case kit.PurposeHit:
		var bs []string
		for _, sh := range a.Shooters {
			if sh.S == d.S && HitNeed(sh.BS) == d.Need {
				bs = append(bs, fmt.Sprintf("%s BS%d with %s (%d shots at up to %g\")", sh.Model, sh.BS, sh.Weapon, sh.Shots, sh.Range))
			}
		}
		return append([]string{fmt.Sprintf("to hit = 7 − BS, never better than 2+ → %d+", d.Need)}, bs...),
			"docs/rules/3e.md#roll-to-hit"
	case kit.PurposeWound:
		in := []string{fmt.Sprintf("Strength %d vs Toughness %d on the wound chart → %d+", d.S, d.T, d.Need)}
		if len(d.Models) > 0 {
			in = append(in, "mixed Toughness: each die is the hit the owner gave to "+strings.Join(d.Models, ", "))
		}
		return in, "docs/rules/3e.md#roll-to-wound and docs/rules/3e.md#wound-chart"
	case kit.PurposeSave:
		in := []string{fmt.Sprintf("armour save %s: D6 ≥ %d saves", d.Label, d.Need)}
		if len(d.Models) > 0 {
			in = append(in, "each die saves the wound on "+strings.Join(d.Models, ", "))
		}
		return in, "docs/rules/3e.md#armour-saves"
	}
	return []string{fmt.Sprintf("%d+", d.Need)}, "docs/rules/3e.md"
}
