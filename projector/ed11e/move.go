package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// Advancing: a unit declares its advance before it moves, rolls the
// advance dice (a recorded roll), and its models may then move up to Move
// plus the roll; their moves are recorded with Advance set. The unit has
// advanced this turn once it makes an advance move (seed 003: "made an
// advance move this turn"): a unit that rolls and stays put has not.

// advanceOf returns a unit's advance roll this turn.
func advanceOf(s *projector.State, unit string) (int, bool) {
	for _, a := range ed(s).Advances {
		if a.Unit == unit {
			return a.Inches, true
		}
	}
	return 0, false
}

func decideAdvance(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if err := kit.ActiveIn(s, actor, projector.PhaseMovement, "units advance"); err != nil {
		return nil, err
	}
	u, err := projector.OwnUnit(s, actor, c.Unit)
	if err != nil {
		return nil, err
	}
	_, declared := advanceOf(s, u.ID)
	switch {
	case u.Advanced || declared:
		return nil, projector.Refuse(projector.CodeNotEligible, "%s already declared an advance this turn", kit.Does(u.DisplayName(), "has", "have"))
	case u.Moved:
		return nil, projector.Refuse(projector.CodeNotEligible, "%s already moved: an advance is declared before the unit moves", kit.Does(u.DisplayName(), "has", "have"))
	case len(u.Engaged) > 0:
		return nil, projector.Refuse(projector.CodeNotEligible, "%s engaged and cannot advance", kit.Does(u.DisplayName(), "is", "are"))
	}
	return []events.Payload{&AdvanceDeclared{Unit: u.ID}}, nil
}

func evolveAdvanceDeclared(s *projector.State, p *AdvanceDeclared) error {
	u := s.Unit(p.Unit)
	if u == nil {
		return fmt.Errorf("unknown unit %s", p.Unit)
	}
	e, _ := rules.ParseExpr(AdvanceDice)
	ed(s).AdvancePending = u.ID
	s.Pending = projector.Pending{Kind: projector.WaitRoll, Player: u.Player, Dice: e.Dice(), Purpose: PurposeAdvance,
		Text: fmt.Sprintf("%s rolls %d D6 for the advance of %s", s.PlayerName(u.Player), e.Dice(), u.DisplayName())}
	return nil
}

func evolveAdvanceRoll(s *projector.State, p *events.DiceRolled) error {
	x := ed(s)
	e, _ := rules.ParseExpr(AdvanceDice)
	if p.Purpose != PurposeAdvance || len(p.Values) != e.Dice() {
		return fmt.Errorf("advance roll of %d dice (%s), want %d", len(p.Values), p.Purpose, e.Dice())
	}
	u := s.Unit(x.AdvancePending)
	x.Advances = append(x.Advances, Advance{Unit: u.ID, Inches: e.Eval(p.Values)})
	x.AdvancePending = ""
	s.Pending = s.PendingDeclare()
	return nil
}

// decideMove lets the common rules check a move, with an advancing unit's
// allowance raised by its roll; an advance move without a declared
// advance is refused.
func decideMove(r Rules, s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	u := s.Unit(c.Unit)
	if u == nil {
		return nil, projector.ErrNotHandled // the common rules refuse it
	}
	bonus, adv := advanceOf(s, u.ID)
	if !adv {
		if c.Advance {
			return nil, projector.Refuse(projector.CodeNotEligible,
				"%s has not declared an advance: declare it (advance) and roll before making advance moves", u.DisplayName())
		}
		return nil, projector.ErrNotHandled
	}
	// The common check on a copy whose model may move further: the same
	// checks and messages, with Move + the advance roll.
	cs := s.Clone()
	for _, m := range cs.Unit(u.ID).Models {
		if m.ID != c.Model && !(s.Measured() && c.Model == "") {
			continue // positions move one model; a measured move may move them all
		}
		if m.Move == 0 {
			m.Move = Move
		}
		m.Move += float64(bonus)
	}
	c.Advance = true // every move of a unit that advances is an advance move
	out, err := projector.Decide(common{r}, cs, actor, c)
	if err != nil {
		return nil, err
	}
	for _, p := range out {
		if mm, ok := p.(*events.ModelMoved); ok {
			mm.Advance = true
		}
	}
	return out, nil
}
