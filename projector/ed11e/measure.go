package ed11e

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Measured matches (docs/rules/11e.md#measured-matches). A shoot asks its
// facts of a kit.Table (range and covered from each firing model;
// distance to the target for an [INDIRECT FIRE] weapon; spotted for
// indirect fire from a stationary unit). Engagement, which positions give
// after every move and every deadly attack, is measured instead: a move
// says what its unit is engaged with after it (fact engaged), and an
// attack that takes models off a unit engaged with others waits for a
// measurement of what it is engaged with now.

// measureEngaged is what the measure step after a deadly attack is for.
const measureEngaged = "engaged"

var (
	_ projector.Measurer     = Rules{}
	_ projector.MoveMeasurer = Rules{}
)

// PositionsOnly: 11e has no step a measured match skips.
func (Rules) PositionsOnly() []string { return nil }

// MoveNeeds: a measured move also says what its unit is engaged with
// after it.
func (Rules) MoveNeeds(_ *projector.State, u *projector.Unit) []projector.FactNeed {
	return []projector.FactNeed{projector.Need(projector.FactEngaged, u.ID, "")}
}

// Answer is what the positions of s say of a unit's engagement: the
// enemy units it is engaged with.
func (Rules) Answer(s *projector.State, n projector.FactNeed) (string, bool) {
	if n.Kind != projector.FactEngaged {
		return "", false
	}
	u := s.Unit(n.Model)
	if u == nil {
		return "", false
	}
	f, err := projector.NormalFact(events.Fact{Kind: n.Kind, Model: n.Model, Value: joinIDs(u.Engaged)})
	return f.Value, err == nil
}

func joinIDs(ids []string) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += ","
		}
		out += id
	}
	return out
}

// engagementChanged refreshes the engagement after a move or an attack:
// from positions, or — measured — by dropping the units no longer on the
// table, and asking, after casualties, what a unit still engaged is
// engaged with now (Measuring).
func engagementChanged(s *projector.State, after *projector.Attack) {
	if !s.Measured() {
		updateEngagement(s)
		return
	}
	for _, u := range s.Units {
		u.Engaged = slices.DeleteFunc(u.Engaged, func(id string) bool { return s.Unit(id).Destroyed() })
		if u.Destroyed() {
			u.Engaged = nil
		}
		if len(u.Engaged) == 0 {
			u.Engaged = nil
		}
	}
	if after != nil {
		if t := s.Unit(after.Target); t != nil && !t.Destroyed() && len(t.Engaged) > 0 {
			ed(s).Measuring = t.ID
		}
	}
}

// setEngaged makes unit id engaged with exactly the enemy units the fact
// names (and they with it), each list in state order, as positions give it.
func setEngaged(s *projector.State, f events.Fact) error {
	u := s.Unit(f.Model)
	if u == nil {
		return fmt.Errorf("engagement of %s, which is no unit", f.Model)
	}
	with := projector.FactUnits(f.Value)
	for _, id := range with {
		if v := s.Unit(id); v == nil || v.Player == u.Player || v.Destroyed() {
			return fmt.Errorf("%s is engaged with %s, which is no enemy unit on the table", u.ID, id)
		}
	}
	u.Engaged = nil
	for _, v := range s.Units {
		if v.Player == u.Player {
			continue
		}
		v.Engaged = slices.DeleteFunc(v.Engaged, func(id string) bool { return id == u.ID })
		if slices.Contains(with, v.ID) {
			u.Engaged = append(u.Engaged, v.ID)
			at := 0
			for at < len(v.Engaged) && unitIndex(s, v.Engaged[at]) < unitIndex(s, u.ID) {
				at++
			}
			v.Engaged = slices.Insert(v.Engaged, at, u.ID)
		}
		if len(v.Engaged) == 0 {
			v.Engaged = nil
		}
	}
	return nil
}

func unitIndex(s *projector.State, id string) int {
	return slices.IndexFunc(s.Units, func(u *projector.Unit) bool { return u.ID == id })
}

// evolveMeasured folds a measured move (its engagement), the measure
// step after a deadly attack, or engagement measured of the player's own
// accord.
func evolveMeasured(s *projector.State, p *events.Measured) error {
	switch p.For {
	case projector.CmdMove, projector.MeasuredAdvance:
	case measureEngaged:
		ed(s).Measuring = ""
	default:
		return nil // a shoot's own: its declaration reads it
	}
	for _, f := range p.Facts {
		if f.Kind == projector.FactEngaged {
			if err := setEngaged(s, f); err != nil {
				return err
			}
		}
	}
	s.Pending = declare(s)
	return nil
}

// decideEngaged is a measurement of engagement of the player's own
// accord, at their free choice (or before the first turn: the units that
// start engaged): one engaged fact or more, each of a unit on the table.
func decideEngaged(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	p := s.Pending
	if (p.Kind != projector.WaitDeclare && p.Kind != projector.WaitSetup) || actor.Kind != events.ActorPlayer || actor.ID != p.Player {
		return nil, projector.Refuse(projector.CodeWrongStep, "a measurement of engagement is made at a free choice of the player whose step it is; the match waits for: %s", p.Text)
	}
	if !s.Measured() {
		return nil, projector.Refuse(projector.CodeWrongStep, "a positioned match's engagement follows its positions: nothing is measured")
	}
	var needs []projector.FactNeed
	for _, u := range s.Units {
		if !u.Destroyed() {
			n := projector.Need(projector.FactEngaged, u.ID, "")
			n.Optional = true
			needs = append(needs, n)
		}
	}
	facts, err := projector.MatchNeeds(s, "a measurement of engagement", needs, c.Facts)
	if err != nil {
		return nil, err
	}
	if len(facts) == 0 {
		return nil, projector.Missing("a measurement of engagement", needs[:min(1, len(needs))])
	}
	return []events.Payload{&events.Measured{For: measureEngaged, Facts: facts}}, nil
}

// engagedPending is the measure step after a deadly attack.
func engagedPending(s *projector.State) projector.Pending {
	u := s.Unit(ed(s).Measuring)
	return s.PendingMeasure(u.Player, measureEngaged, []projector.FactNeed{projector.Need(projector.FactEngaged, u.ID, "")},
		fmt.Sprintf("which enemy units %s is engaged with now that it lost models", u.DisplayName()))
}
