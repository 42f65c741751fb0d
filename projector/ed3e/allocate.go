package ed3e

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
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
// What the rotation fixes is how many hits each model takes — with h hits
// over n models, each takes ⌊h/n⌋ or ⌈h/n⌉ — and the list says which hit
// goes where (hits in the order rolled), so any order of a balanced
// distribution is accepted.
func decideDistribute(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	a, err := requireDefender(s, actor, projector.WaitDistribute)
	if err != nil {
		return nil, err
	}
	if len(c.Models) != a.Hits {
		return nil, projector.Refuse(projector.CodeBadDistribute, "distribute exactly %s (one model id per hit), got %d", kit.Count(a.Hits, "hit", "hits"), len(c.Models))
	}
	ok, t := eligibleAlive(s, a)
	count := map[string]int{}
	for i, id := range c.Models {
		if ok[id] == nil {
			return nil, projector.Refuse(projector.CodeBadDistribute, "hit %d: %q is not a model of %s in range and sight", i+1, id, t.DisplayName())
		}
		count[id]++
	}
	least, most := a.Hits/len(ok), (a.Hits+len(ok)-1)/len(ok)
	for _, id := range a.Eligible {
		if ok[id] == nil || (count[id] >= least && count[id] <= most) {
			continue
		}
		each := fmt.Sprintf("%d or %d", least, most)
		if least == most {
			each = fmt.Sprint(least)
		} else if least == 0 {
			each = "at most 1"
		}
		return nil, projector.Refuse(projector.CodeBadDistribute,
			"hits go one per model in turn: %s over %s, so each model takes %s, and %s takes %d (any order of such a distribution is accepted)",
			kit.Count(a.Hits, "hit", "hits"), kit.Count(len(ok), "model", "models"), each, id, count[id])
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
		return nil, projector.Refuse(projector.CodeBadCasualty, "choose exactly %s (one model id per unsaved wound), got %d", kit.Count(a.Unsaved, "casualty", "casualties"), len(c.Models))
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
			return nil, projector.Refuse(projector.CodeBadCasualty, "%s has %s left and cannot take %d", id, kit.Count(m.WoundsLeft, "wound", "wounds"), count[id])
		}
	}
	if wholeModels(s) {
		if most, got := removable(a, ok), removed(ok, count); got < most {
			return nil, projector.Refuse(projector.CodeBadCasualty,
				"unsaved wounds must remove whole models where possible: %s can remove %s (the fewest wounds left first), this choice removes %d",
				kit.Count(a.Unsaved, "unsaved wound", "unsaved wounds"), kit.Count(most, "model", "models"), got)
		}
	}
	return []events.Payload{&events.CasualtiesChosen{Models: append([]string(nil), c.Models...)}}, nil
}

// removable is the most models a's unsaved wounds can remove from the
// eligible ones: those with the fewest wounds left first.
func removable(a *projector.Attack, ok map[string]*projector.Model) int {
	var left []int
	for _, id := range a.Eligible {
		if m := ok[id]; m != nil {
			left = append(left, m.WoundsLeft)
		}
	}
	slices.Sort(left)
	n, wounds := 0, a.Unsaved
	for _, w := range left {
		if w > wounds {
			break
		}
		n, wounds = n+1, wounds-w
	}
	return n
}

// removed counts the models a choice of casualties takes every wound off.
func removed(ok map[string]*projector.Model, count map[string]int) int {
	n := 0
	for id, c := range count {
		if c >= ok[id].WoundsLeft {
			n++
		}
	}
	return n
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
