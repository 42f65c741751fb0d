package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

var _ projector.Narration = Rules{}

// Narrate tells this edition's events (projector.Narration): advances,
// actions, allocations and re-rolls. The shooting phase's steps are left
// to the generic line: they show in the log as recorded.
func (Rules) Narrate(s *projector.State, actor string, p events.Payload) (string, bool) {
	switch p := p.(type) {
	case *AdvanceDeclared:
		return fmt.Sprintf("%s: %s advances", actor, s.UnitName(p.Unit)), true
	case *ActionStarted:
		return fmt.Sprintf("%s: %s starts the action %s", actor, s.UnitName(p.Unit), p.Action), true
	case *AttackAllocated:
		return fmt.Sprintf("%s allocates the attack to %s", actor, p.Model), true
	case *RerollChosen:
		return fmt.Sprintf("%s re-rolls %d dice of event %d", actor, len(p.Indices), p.Seq), true
	case *RerollDeclined:
		return fmt.Sprintf("%s keeps the dice of event %d", actor, p.Seq), true
	}
	return "", false
}
