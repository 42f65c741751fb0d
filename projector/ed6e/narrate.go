package ed6e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

var _ projector.Narration = Rules{}

// Narrate tells this edition's events (projector.Narration): the assault
// phase's declarations, Look Out, Sir and the order of the wound pools.
func (Rules) Narrate(s *projector.State, actor string, p events.Payload) (string, bool) {
	switch p := p.(type) {
	case *ChargeDeclared:
		return fmt.Sprintf("%s: %s charges %s", actor, s.UnitName(p.Unit), s.UnitName(p.Target)), true
	case *OverwatchDeclared:
		return fmt.Sprintf("%s: %s fires Overwatch at %s", actor, s.UnitName(p.Unit), s.UnitName(p.Target)), true
	case *OverwatchDeclined:
		return fmt.Sprintf("%s: %s holds its fire (no Overwatch)", actor, s.UnitName(p.Unit)), true
	case *LookOutSirDeclared:
		return fmt.Sprintf("%s: Look Out, Sir! %s tries to pass the wound to %s", actor, p.Character, p.Model), true
	case *LookOutSirDeclined:
		return fmt.Sprintf("%s: %s takes the wound himself (no Look Out, Sir)", actor, p.Character), true
	case *WoundPoolsOrdered:
		return fmt.Sprintf("%s orders the wound pools: %s", actor, strings.Join(p.Pools, ", ")), true
	case *CombatChosen:
		return fmt.Sprintf("%s chooses the combat of %s", actor, s.UnitName(p.Unit)), true
	case *StrikeDeclared:
		return fmt.Sprintf("%s: %s strikes at %s", actor, s.UnitName(p.Unit), s.UnitName(p.Target)), true
	}
	return "", false
}
