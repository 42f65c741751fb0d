package ed6e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

var (
	_ projector.Lexicon      = Rules{}
	_ projector.SetupChecker = Rules{}
)

// Lexicon is what 6e reads of a setup (projector.Lexicon): its weapon
// types and keywords (docs/rules/6e.md#weapon-types), VEHICLE on a unit or
// a model, and CHARACTER, INDEPENDENT CHARACTER and CHARGE <dice> on a
// model. A
// setup naming another is refused.
func (Rules) Lexicon() projector.Words {
	return projector.Words{
		WeaponTypes:    []string{RapidFire, Assault, Heavy, Pistol, Salvo, Melee, Artillery},
		WeaponKeywords: []string{KwTemplate, KwBlast, KwLargeBlast, KwLargeBlastAlt, KwPinning, KwNoBS, KwMasterCrafted},
		UnitKeywords:   []string{KwVehicle},
		ModelKeywords:  append(append([]string{KwVehicle}, KwCharacter...), KwIndependent...),
		ModelPrefixes:  []string{KwChargePrefix},
	}
}

// CheckSetup refuses what 6e cannot play in a setup
// (projector.SetupChecker): a CHARGE keyword whose dice are not D6s
// (docs/rules/6e.md#charge-distance).
func (Rules) CheckSetup(p *events.MatchCreated) error {
	for _, u := range p.Units {
		for _, m := range u.Models {
			for _, kw := range m.Keywords {
				f := strings.Fields(strings.ToUpper(strings.Trim(kw, "[] ")))
				if len(f) == 0 || f[0] != KwChargePrefix {
					continue
				}
				if len(f) != 2 || !isD6s(f[1]) {
					return fmt.Errorf("unit %s model %s: keyword %q: a model that charges differently names its dice, as in %q or %q", u.ID, m.ID, kw, KwChargePrefix+" D6", KwChargePrefix+" 3D6")
				}
			}
		}
	}
	return nil
}

// isD6s reports whether expr is a roll of D6s ("D6", "3D6").
func isD6s(expr string) bool {
	e, err := rules.ParseExpr(expr)
	return err == nil && e.Sides == 6 && e.Dice() > 0
}
