// Package kit is the skeleton the editions share, so that each edition's
// package keeps only its rules: the openings of a declaration (the active
// player, in the right phase, with a unit of theirs that has not fired, at
// an enemy target),
// what one firing model sees of its target and why no model could fire
// (sight.go), and the staged attack: a machine of stages that waits for
// rolls and choices, the roll folded into the step that asked for it, and
// the attack's close (attack.go). The test fixtures the editions share
// are in projector/projtest.
//
// Every refusal here has the code and the words the editions gave it
// before they shared it: scripts and tests match on both.
package kit

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// NoWeapon, given as a model's weapon in a shoot command's weapons map,
// leaves that model out of the declaration: it fires nothing.
const NoWeapon = "none"

// ActiveIn refuses unless actor is the active player, no attack is in
// progress (projector.RequireActive) and the match is in phase; what says
// what is done there, for the refusal ("units shoot" → "units shoot in the
// shooting phase, not the movement phase").
func ActiveIn(s *projector.State, actor events.Actor, phase, what string) error {
	if err := projector.RequireActive(s, actor); err != nil {
		return err
	}
	if s.Phase != phase {
		return projector.Refuse(projector.CodeWrongPhase, "%s in the %s phase, not the %s phase", what, phase, s.Phase)
	}
	return nil
}

// Target is unit id as the target of u: a unit of the other side with
// models on the table. verb says what u does to it, for the refusal
// ("shoot at", "attack").
func Target(s *projector.State, u *projector.Unit, id, verb string) (*projector.Unit, error) {
	t := s.Unit(id)
	switch {
	case t == nil:
		return nil, projector.Refuse(projector.CodeUnknownUnit, "unknown target unit %q", id)
	case t.Player == u.Player:
		return nil, projector.Refuse(projector.CodeBadCommand, "%s cannot %s its own side's unit %s", u.DisplayName(), verb, t.DisplayName())
	case t.Destroyed():
		return nil, projector.Refuse(projector.CodeUnknownUnit, "target %s has no models left", t.DisplayName())
	}
	return t, nil
}

// UnfiredUnit is unit id of the acting player, on the table
// (projector.OwnUnit), that has not fired this turn.
func UnfiredUnit(s *projector.State, actor events.Actor, id string) (*projector.Unit, error) {
	u, err := projector.OwnUnit(s, actor, id)
	if err != nil {
		return nil, err
	}
	if u.Fired {
		return nil, projector.Refuse(projector.CodeAlreadyFired, "unit %s has already fired this turn", u.DisplayName())
	}
	return u, nil
}
