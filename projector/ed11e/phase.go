package ed11e

import (
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
)

// The shooting phase's steps in order (docs/rules/11e.md#shooting-phase: 1
// start of phase, 2 shoot,
// 3 end of phase). Each is recorded as a shooting.phase_step event, so the
// log says when start- and end-of-phase rules were resolved.
var steps = []string{StepStart, StepShoot, StepEnd}

// stepsUpTo returns the step events still to record for the shooting
// phase to stand at step want ("" and later steps record nothing).
func stepsUpTo(s *projector.State, want string) []events.Payload {
	cur := slices.Index(steps, ed(s).Step)
	to := slices.Index(steps, want)
	var out []events.Payload
	for i := cur + 1; i <= to; i++ {
		out = append(out, &ShootingPhaseStep{Step: steps[i]})
	}
	return out
}

// decidePhaseChange is the common phase or next-turn decision, with the
// shooting phase's remaining steps recorded before it is left (so every
// shooting phase has all three) and its start step recorded as it begins.
func decidePhaseChange(r Rules, s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	out, err := projector.Decide(common{r}, s, actor, c)
	if err != nil {
		return nil, err
	}
	var pre []events.Payload
	if s.Phase == projector.PhaseShooting && s.Active != "" {
		pre = stepsUpTo(s, StepEnd)
	}
	out = append(pre, out...)
	if c.Type == projector.CmdPhase && c.Phase == projector.PhaseShooting {
		out = append(out, &ShootingPhaseStep{Step: StepStart})
	}
	return out, nil
}

// decideStep moves the shooting phase to its next step.
func decideStep(s *projector.State, actor events.Actor) ([]events.Payload, error) {
	if err := projector.RequireActive(s, actor); err != nil {
		return nil, err
	}
	if s.Phase != projector.PhaseShooting {
		return nil, projector.Refuse(projector.CodeWrongPhase, "only the shooting phase has steps; this is the %s phase", s.Phase)
	}
	i := slices.Index(steps, ed(s).Step)
	if i == len(steps)-1 {
		return nil, projector.Refuse(projector.CodeWrongStep, "the shooting phase is at its end step: go on to the next phase or turn")
	}
	return []events.Payload{&ShootingPhaseStep{Step: steps[i+1]}}, nil
}

func evolveStep(s *projector.State, p *ShootingPhaseStep) error {
	if s.Phase != projector.PhaseShooting {
		return fmt.Errorf("shooting phase step %q outside the shooting phase", p.Step)
	}
	x := ed(s)
	if want := slices.Index(steps, x.Step) + 1; want >= len(steps) || steps[want] != p.Step {
		return fmt.Errorf("shooting phase step %q does not follow %q", p.Step, x.Step)
	}
	x.Step = p.Step
	s.Pending = declare(s)
	return nil
}

// selected reports whether unit id was selected to shoot this phase.
func selected(s *projector.State, id string) bool {
	return slices.Contains(ed(s).Selected, id)
}

// decideAction starts an action. The seed's one restriction: after
// shooting, until the end of the phase, the unit is not eligible to start
// an action (10.04–10.07, "After shooting").
func decideAction(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if err := projector.RequireActive(s, actor); err != nil {
		return nil, err
	}
	u, err := projector.OwnUnit(s, actor, c.Unit)
	if err != nil {
		return nil, err
	}
	if c.Kind == "" {
		return nil, projector.Refuse(projector.CodeBadCommand, "name the action a unit starts (kind)")
	}
	if s.Phase == projector.PhaseShooting && selected(s, u.ID) {
		return nil, projector.Refuse(projector.CodeNotEligible,
			"%s shot this phase: until the end of the shooting phase it is not eligible to start an action", u.DisplayName())
	}
	return []events.Payload{&ActionStarted{Unit: u.ID, Action: c.Kind}}, nil
}

func evolveAction(s *projector.State, seq uint64, p *ActionStarted) error {
	if s.Unit(p.Unit) == nil {
		return fmt.Errorf("unknown unit %s", p.Unit)
	}
	x := ed(s)
	x.Actions = append(x.Actions, Action{Unit: p.Unit, Action: p.Action, Phase: s.Phase, Seq: seq})
	s.Pending = declare(s)
	return nil
}

// updateEngagement derives every unit's Engaged list from the table: the
// enemy units, in state order, with a model within EngagementRange of one
// of its models (defaults.go).
func updateEngagement(s *projector.State) {
	fp := make([]footprint, len(s.Units))
	for i, u := range s.Units {
		fp[i] = footprintOf(u)
	}
	for i, u := range s.Units {
		u.Engaged = nil
		for j, v := range s.Units {
			if v.Player != u.Player && fp[i].near(fp[j], EngagementRange) && within(fp[i].bodies, fp[j].bodies, EngagementRange) {
				u.Engaged = append(u.Engaged, v.ID)
			}
		}
	}
}

// footprint is a unit's models on the table and the box around their
// bases, so that units far apart are told apart without measuring every
// pair of models (this runs after every move and every deadly attack).
type footprint struct {
	bodies                 []geom.Body
	minX, minY, maxX, maxY float64
}

func footprintOf(u *projector.Unit) footprint {
	f := footprint{minX: math.Inf(1), minY: math.Inf(1), maxX: math.Inf(-1), maxY: math.Inf(-1)}
	for _, m := range u.Models {
		if !m.Alive() {
			continue
		}
		b := projector.Body(u, m)
		f.bodies = append(f.bodies, b)
		f.minX, f.maxX = min(f.minX, b.Pos.X-b.Radius), max(f.maxX, b.Pos.X+b.Radius)
		f.minY, f.maxY = min(f.minY, b.Pos.Y-b.Radius), max(f.maxY, b.Pos.Y+b.Radius)
	}
	return f
}

// near reports whether the boxes of f and g are within r of each other
// (necessary for any two of their bases to be).
func (f footprint) near(g footprint, r float64) bool {
	return len(f.bodies) > 0 && len(g.bodies) > 0 &&
		f.minX <= g.maxX+r+geom.Eps && g.minX <= f.maxX+r+geom.Eps &&
		f.minY <= g.maxY+r+geom.Eps && g.minY <= f.maxY+r+geom.Eps
}

func within(a, b []geom.Body, r float64) bool {
	for _, x := range a {
		for _, y := range b {
			if geom.BaseDistance(x, y) <= r+geom.Eps {
				return true
			}
		}
	}
	return false
}

// engagedWith reports whether u is engaged with unit id.
func engagedWith(u *projector.Unit, id string) bool { return slices.Contains(u.Engaged, id) }
