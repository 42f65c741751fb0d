package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

var _ projector.SetupChecker = Rules{}

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
