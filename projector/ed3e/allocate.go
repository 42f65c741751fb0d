package ed3e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// requireDefender refuses unless the match waits for the defender to make
// the given kind of choice.
func requireDefender(s *projector.State, actor events.Actor, kind string) (*projector.Attack, error) {
	if s.Pending.Kind != kind || s.Attack == nil {
		return nil, projector.Refuse(projector.CodeWrongStep, "the match waits for: %s", s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != s.Attack.Defender {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "%s makes this choice", s.PlayerName(s.Attack.Defender))
	}
	return s.Attack, nil
}

// eligibleAlive maps the eligible target models still on the table.
func eligibleAlive(s *projector.State, a *projector.Attack) (map[string]*projector.Model, *projector.Unit) {
	t := s.Unit(a.Target)
	out := map[string]*projector.Model{}
	for _, id := range a.Eligible {
		if m := t.Model(id); m.Alive() {
			out[id] = m
		}
	}
	return out, t
}

// decideDistribute checks the mixed-Toughness rotation: one hit per model
// in turn, no model takes a second hit until every eligible model has one.
func decideDistribute(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a, err := requireDefender(s, actor, projector.WaitDistribute)
	if err != nil {
		return nil, err
	}
	if len(c.Models) != a.Hits {
		return nil, projector.Refuse(projector.CodeBadDistribute, "distribute exactly %d hits (one model id per hit), got %d", a.Hits, len(c.Models))
	}
	ok, t := eligibleAlive(s, a)
	count := map[string]int{}
	for i, id := range c.Models {
		if ok[id] == nil {
			return nil, projector.Refuse(projector.CodeBadDistribute, "hit %d: %q is not a model of %s in range and sight", i+1, id, t.DisplayName())
		}
		for _, other := range a.Eligible {
			if ok[other] != nil && count[other] < count[id] {
				return nil, projector.Refuse(projector.CodeBadDistribute,
					"hit %d: %s cannot take a second hit while %s has fewer (one hit per model in turn)", i+1, id, other)
			}
		}
		count[id]++
	}
	return []events.Payload{&events.HitsDistributed{Models: append([]string(nil), c.Models...)}}, nil
}

func evolveDistributed(s *projector.State, p *events.HitsDistributed) error {
	a := s.Attack
	if a == nil || a.Stage != stageDistribute || len(p.Models) != a.Hits {
		return fmt.Errorf("no distribution of %d hits is pending", len(p.Models))
	}
	a.Assigned = append([]string(nil), p.Models...)
	planMixedWounds(s, a)
	return nil
}

// decideCasualties checks the owner's choice: one model per unsaved wound,
// only among models in range and sight, never more wounds on a model than
// it has left (so a single-wound model is named once).
func decideCasualties(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a, err := requireDefender(s, actor, projector.WaitCasualties)
	if err != nil {
		return nil, err
	}
	if len(c.Models) != a.Unsaved {
		return nil, projector.Refuse(projector.CodeBadCasualty, "choose exactly %d casualties (one model id per unsaved wound), got %d", a.Unsaved, len(c.Models))
	}
	ok, t := eligibleAlive(s, a)
	count := map[string]int{}
	for _, id := range c.Models {
		m := ok[id]
		if m == nil {
			if _, other := s.FindModel(id); other != nil && t.Model(id) != nil && other.Alive() {
				return nil, projector.Refuse(projector.CodeBadCasualty, "%s is out of range or sight of the firers and cannot be a casualty", id)
			}
			return nil, projector.Refuse(projector.CodeBadCasualty, "%q is not a model of %s on the table", id, t.DisplayName())
		}
		count[id]++
		if count[id] > m.WoundsLeft {
			return nil, projector.Refuse(projector.CodeBadCasualty, "%s has %d wound(s) left and cannot take %d", id, m.WoundsLeft, count[id])
		}
	}
	return []events.Payload{&events.CasualtiesChosen{Models: append([]string(nil), c.Models...)}}, nil
}

func evolveCasualties(s *projector.State, p *events.CasualtiesChosen) error {
	a := s.Attack
	if a == nil || a.Stage != stageCasualties || len(p.Models) != a.Unsaved {
		return fmt.Errorf("no choice of %d casualties is pending", len(p.Models))
	}
	t := s.Unit(a.Target)
	for _, id := range p.Models {
		if t.Model(id) == nil {
			return fmt.Errorf("%s is not a model of %s", id, t.ID)
		}
		wound(s, a, t, id)
	}
	finish(s, a)
	return nil
}
