package replay

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// editionLine tells the events that only some editions record (6e's
// assault phase and Look Out, Sir; 11e's advances, allocations and
// re-rolls). ok is false for a type it does not know.
func editionLine(s *projector.State, actor string, p events.Payload) (string, bool) {
	unit := func(id string) string {
		if u := s.Unit(id); u != nil {
			return u.DisplayName()
		}
		return id
	}
	switch p := p.(type) {
	case *events.ChargeDeclared:
		return fmt.Sprintf("%s: %s charges %s", actor, unit(p.Unit), unit(p.Target)), true
	case *events.OverwatchDeclared:
		return fmt.Sprintf("%s: %s fires Overwatch at %s", actor, unit(p.Unit), unit(p.Target)), true
	case *events.OverwatchDeclined:
		return fmt.Sprintf("%s: %s holds its fire (no Overwatch)", actor, unit(p.Unit)), true
	case *events.LookOutSirDeclared:
		return fmt.Sprintf("%s: Look Out, Sir! %s tries to pass the wound to %s", actor, p.Character, p.Model), true
	case *events.LookOutSirDeclined:
		return fmt.Sprintf("%s: %s takes the wound himself (no Look Out, Sir)", actor, p.Character), true
	case *events.WoundPoolsOrdered:
		return fmt.Sprintf("%s orders the wound pools: %s", actor, strings.Join(p.Pools, ", ")), true
	case *events.CombatChosen:
		return fmt.Sprintf("%s chooses the combat of %s", actor, unit(p.Unit)), true
	case *events.StrikeDeclared:
		return fmt.Sprintf("%s: %s strikes at %s", actor, unit(p.Unit), unit(p.Target)), true
	case *events.AdvanceDeclared:
		return fmt.Sprintf("%s: %s advances", actor, unit(p.Unit)), true
	case *events.ActionStarted:
		return fmt.Sprintf("%s: %s starts the action %s", actor, unit(p.Unit), p.Action), true
	case *events.AttackAllocated:
		return fmt.Sprintf("%s allocates the attack to %s", actor, p.Model), true
	case *events.RerollChosen:
		return fmt.Sprintf("%s re-rolls %d dice of event %d", actor, len(p.Indices), p.Seq), true
	case *events.RerollDeclined:
		return fmt.Sprintf("%s keeps the dice of event %d", actor, p.Seq), true
	}
	return "", false
}

// genericLine tells an event no narrator line knows: its type and its
// payload as compact JSON, so nothing recorded is ever hidden from the log.
func genericLine(actor string, e *events.Event, p events.Payload) string {
	b, err := json.Marshal(p)
	if err != nil || string(b) == "{}" {
		return fmt.Sprintf("%s: %s", actor, e.Type)
	}
	return fmt.Sprintf("%s: %s %s", actor, e.Type, b)
}
