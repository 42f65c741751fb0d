package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

var (
	_ projector.SetupChecker = Rules{}
	_ projector.Lexicon      = Rules{}
)

// Lexicon is what 11e reads of a setup (projector.Lexicon): no weapon
// type (an 11e weapon is what its keywords say), the weapon keywords its
// rules read (defaults.go: abilities and re-rolls may also be on the
// unit), and open unit and model keywords: a datasheet's own (INFANTRY,
// BATTLELINE) are kept, MONSTER, VEHICLE, STEALTH and the abilities above
// are read (docs/rules/11e.md).
func (Rules) Lexicon() projector.Words {
	return projector.Words{
		WeaponKeywords: []string{KwAssault, KwHeavy, KwBlast, KwCQ, KwIndirect, KwPlusOneHit, KwRerollHitOnes, KwRerollHits, KwTwinLinked},
		OpenKeywords:   true,
	}
}

// CheckSetup refuses a setup whose weapons this edition cannot roll for
// (projector.SetupChecker): attacks and damage are dice expressions
// (defaults.go for a missing one), read at every declaration, so a bad
// one is named at creation rather than when the weapon first fires.
func (Rules) CheckSetup(p *events.MatchCreated) error {
	for _, u := range p.Units {
		for i := range u.Weapons {
			if _, _, err := profile(&u.Weapons[i]); err != nil {
				return fmt.Errorf("unit %s weapon %s: %v", u.ID, u.Weapons[i].ID, err)
			}
		}
	}
	return nil
}
