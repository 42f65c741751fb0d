package ed6e

import (
	"fmt"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// Assault moves are core model.moved events; what a move means (charge,
// pile-in, consolidation) and how far it may go is the open AssaultMove the
// match derived for that model. A move with no open AssaultMove is refused with
// the step it skips.

// Move kinds.
const (
	moveCharge      = "charge"
	movePileIn      = "pile-in"
	moveConsolidate = "consolidate"
)

func decideMove(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if fb := falling(s); fb != nil && s.Attack == nil {
		return decideFallBackMove(s, actor, c, fb)
	}
	switch s.Phase {
	case projector.PhaseMovement:
		if why := mandatory(s); why != "" {
			return nil, projector.Refuse(projector.CodeWrongStep, "finish first: %s", why)
		}
		u := s.Unit(c.Unit)
		switch {
		case u != nil && locked(s, u):
			return nil, projector.Refuse(projector.CodeNotEligible, "%s locked in combat: %s not move in the movement phase", kit.Does(u.DisplayName(), "is", "are"), kit.Verb(u.DisplayName(), "it does", "they do"))
		case u != nil && goneToGround(s, u.ID):
			return nil, projector.Refuse(projector.CodeNotEligible, "%s gone to ground: %s not move this turn", kit.Does(u.DisplayName(), "has", "have"), kit.Verb(u.DisplayName(), "it does", "they do"))
		}
	case projector.PhaseAssault:
		return decideAssaultMove(s, actor, c)
	}
	return nil, projector.ErrNotHandled
}

func decideAssaultMove(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if s.Measured() {
		return nil, projector.Refuse(projector.CodeMeasuredMatch, "in a match measured at the table, charge, pile-in and consolidation moves are made at the table and not recorded")
	}
	if s.Attack != nil {
		return nil, projector.Refuse(projector.CodeWrongStep, "an attack is in progress: %s", s.Pending.Text)
	}
	u := s.Unit(c.Unit)
	if u == nil {
		return nil, projector.Refuse(projector.CodeUnknownUnit, "unknown unit %q", c.Unit)
	}
	m := u.Model(c.Model)
	if m == nil || !m.Alive() {
		return nil, projector.Refuse(projector.CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), c.Model)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != u.Player {
		return nil, projector.Refuse(projector.CodeWrongPlayer, "unit %s belongs to %s", u.DisplayName(), s.PlayerName(u.Player))
	}
	if c.X == nil || c.Y == nil {
		return nil, projector.Refuse(projector.CodeBadCommand, "move needs x and y")
	}
	x, y := *c.X, *c.Y
	if math.IsNaN(x) || math.IsNaN(y) || x < 0 || y < 0 || (s.Table.W > 0 && x > s.Table.W) || (s.Table.H > 0 && y > s.Table.H) {
		return nil, projector.Refuse(projector.CodeOffTable, "(%.1f, %.1f) is off the %gx%g table", x, y, s.Table.W, s.Table.H)
	}
	mv := openMove(s, u.ID, m.ID)
	if mv == nil {
		return nil, projector.Refuse(projector.CodeWrongStep, "%s may not move now: %s", m.ID, whyNoMove(s, u, m))
	}
	ch := ed(s).Charge
	first := mv.Kind == moveCharge && ch.Stage == chargeFirst
	if first && m.ID != ch.First {
		return nil, projector.Refuse(projector.CodeWrongStep, "move the first charger, %s (the charging model closest to the target), before the others", ch.First)
	}
	if d := math.Hypot(x-mv.X, y-mv.Y); d > mv.Allow+eps {
		return nil, projector.Refuse(projector.CodeMoveTooFar, "%s may make a %s move of %g\"; (%.1f, %.1f) is %.1f\" away", m.ID, mv.Kind, mv.Allow, x, y, d)
	}
	to := projector.Body(u, m)
	to.Pos = geom.Point{X: x, Y: y}
	switch {
	case first:
		if _, d := closestEnemy(to, []*projector.Unit{s.Unit(ch.Target)}); d > BaseContact+eps {
			return nil, projector.Refuse(projector.CodeNotEligible, "the first charger must end in base contact with %s; (%.1f, %.1f) leaves it %.1f\" away", s.Unit(ch.Target).DisplayName(), x, y, d)
		}
	case mv.Kind == moveConsolidate && round3(s):
		if e, d := withinOfEnemy(s, u.Player, to, ConsolidateEnemyGap); e != nil {
			return nil, projector.Refuse(projector.CodeNotEligible, "a consolidation move may not end within %g\" of the enemy: (%.1f, %.1f) is %.1f\" from %s", ConsolidateEnemyGap, x, y, d, e.ID)
		}
	case mv.Kind == moveConsolidate:
		if e, _ := withinOfEnemy(s, u.Player, to, BaseContact); e != nil {
			return nil, projector.Refuse(projector.CodeNotEligible, "a consolidation move may not end in base contact with the enemy: (%.1f, %.1f) touches %s", x, y, e.ID)
		}
	case mv.Kind == movePileIn:
		from := projector.Body(u, m)
		from.Pos = geom.Point{X: mv.X, Y: mv.Y}
		enemies := lockedWith(s, u)
		_, before := closestEnemy(from, enemies)
		if _, after := closestEnemy(to, enemies); after > before+eps {
			return nil, projector.Refuse(projector.CodeNotEligible, "a pile-in moves toward the enemy: (%.1f, %.1f) is %.1f\" from it, %.1f\" before", x, y, after, before)
		}
	}
	return []events.Payload{&events.ModelMoved{Unit: u.ID, Model: m.ID, X: x, Y: y}}, nil
}

// evolveMoved notes what a move means (the common fold has already moved
// the model): a fall-back move; a model that moved in the movement phase
// (its Heavy weapon fires snap shots); the first charger reaching its
// target, which locks the two units in combat and lets the rest of the
// unit follow.
func evolveMoved(s *projector.State, p *events.ModelMoved) {
	x := ed(s)
	switch {
	case falling(s) != nil && falling(s).Unit == p.Unit:
		fellBack(s, falling(s), p.Model)
	case s.Phase == projector.PhaseMovement:
		if k := modelKey(p.Unit, p.Model); !slices.Contains(x.Moved, k) {
			x.Moved = append(x.Moved, k)
		}
	case s.Phase == projector.PhaseAssault:
		if ch := x.Charge; ch != nil && ch.Stage == chargeFirst && p.Model == ch.First && p.Unit == ch.Unit {
			ch.Stage = chargeRest
			reached(s, ch)
		}
	}
}

// openMove is the open assault move of model id of unit, or nil.
func openMove(s *projector.State, unit, id string) *AssaultMove {
	for i := range ed(s).Moves {
		if ed(s).Moves[i].Unit == unit && ed(s).Moves[i].Model == id {
			return &ed(s).Moves[i]
		}
	}
	return nil
}

// withinOfEnemy is the first enemy model of player (in unit order) whose
// base lies within gap of b's, and that distance; nil when none does: the
// geometric fact a consolidation move is checked against.
func withinOfEnemy(s *projector.State, player string, b geom.Body, gap float64) (*projector.Model, float64) {
	for _, o := range s.Units {
		if o.Player == player {
			continue
		}
		if e, d := closestEnemy(b, []*projector.Unit{o}); e != nil && d <= gap+eps {
			return e, d
		}
	}
	return nil, 0
}

// closestEnemy is the model of us closest to b and its distance.
func closestEnemy(b geom.Body, us []*projector.Unit) (*projector.Model, float64) {
	var best *projector.Model
	bd := math.Inf(1)
	for _, u := range us {
		for _, m := range u.AliveModels() {
			if d := geom.BaseDistance(b, projector.Body(u, m)); d < bd-eps {
				best, bd = m, d
			}
		}
	}
	return best, bd
}

// whyNoMove says which step a refused assault move would skip.
func whyNoMove(s *projector.State, u *projector.Unit, m *projector.Model) string {
	if ch := ed(s).Charge; ch != nil && ch.Unit == u.ID {
		switch ch.Stage {
		case chargeOverwatch, chargeRoll:
			return "a charge move comes after the charge roll; the match waits for: " + s.Pending.Text
		case chargeFailed:
			if len(ch.Dice) == 0 {
				return "the charge failed before its roll: the unit does not move"
			}
			return fmt.Sprintf("the charge failed (%g\" rolled, %.1f\" needed): the unit does not move", ch.Distance, ch.Needed)
		}
	}
	if cb := ed(s).Combat; cb != nil && cb.Stage == stageFight && slices.Contains(cb.Units, u.ID) {
		step := cb.Steps[cb.Step]
		switch {
		case m.I != step:
			return fmt.Sprintf("it piles in at its own Initiative step (I%d); the combat is at Initiative %d", m.I, step)
		case slices.Contains(cb.Struck, u.ID):
			return kit.Does(u.DisplayName(), "has", "have") + " struck at this step: pile-in comes before the blows"
		}
		return "it is already in base contact with the enemy"
	}
	return "in the assault phase models make only charge, pile-in and consolidation moves; the match waits for: " + s.Pending.Text
}

// closeOpen ends the optional moves left open (the rest of a charge, the
// pile-ins and consolidations after a combat) when the player moves on.
func closeOpen(s *projector.State) {
	x := ed(s)
	if x.Charge != nil && x.Charge.Stage == chargeRest {
		x.Charge.Stage = chargeDone
	}
	if x.Combat != nil && x.Combat.Stage == stageMoves {
		x.Combat.Stage = stageCombatDone
	}
	x.Moves = nil
}

// mandatory describes the required step the match waits for, or "" when
// the active player is free to move on.
func mandatory(s *projector.State) string {
	x := ed(s)
	switch {
	case s.Attack != nil, falling(s) != nil, dueCheck(s) != nil:
	case x.Charge != nil && (x.Charge.Stage == chargeOverwatch || x.Charge.Stage == chargeRoll || x.Charge.Stage == chargeFirst):
	case x.Combat != nil && x.Combat.Stage != stageMoves && x.Combat.Stage != stageCombatDone:
	default:
		return ""
	}
	return s.Pending.Text
}

// guardNextTurn refuses to end a turn that skips a required step: an open
// charge or combat, or a combat not fought this turn.
func guardNextTurn(s *projector.State, actor events.Actor) error {
	if s.Active == "" || actor.Kind != events.ActorPlayer || actor.ID != s.Active {
		return projector.ErrNotHandled
	}
	if why := mandatory(s); why != "" {
		return projector.Refuse(projector.CodeWrongStep, "the turn cannot end yet: %s", why)
	}
	for _, cb := range combats(s) {
		if !slices.Contains(ed(s).Fought, cb[0]) {
			return projector.Refuse(projector.CodeWrongStep, "the combat of %s has not been fought this turn: go to the assault phase and fight it (fight)", s.Unit(cb[0]).DisplayName())
		}
	}
	return projector.ErrNotHandled
}

// guardOpen refuses a phase change that skips a required step.
func guardOpen(s *projector.State, actor events.Actor) error {
	if actor.Kind == events.ActorPlayer && actor.ID == s.Active {
		if why := mandatory(s); why != "" {
			return projector.Refuse(projector.CodeWrongStep, "finish first: %s", why)
		}
	}
	return projector.ErrNotHandled
}
