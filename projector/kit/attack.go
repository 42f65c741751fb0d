package kit

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// Machine is an edition's attack sequence as stages (Attack.Stage): each
// stage asks for rolls (Attack.Steps), and once they are all made, Next
// moves the attack on from its stage — it plans the next stage's rolls,
// or asks for a choice, or ends the attack (s.CloseAttack). Advance runs
// it until the attack waits for someone or is over.
type Machine struct {
	// Next moves a on from a.Stage, every roll of which is made. waits is
	// true when a now waits for someone (a choice, or a roll it planned
	// and that Pending should ask for at once).
	Next func(s *projector.State, a *projector.Attack) (waits bool)
	// Waiting, when set, reports that a waits for something besides its
	// rolls (a re-roll offered, ...).
	Waiting func(a *projector.Attack) bool
	// Pending, when set, says what a waits for (s.Pending) each time the
	// machine stops on it; an edition that derives s.Pending after every
	// event leaves it nil.
	Pending func(s *projector.State, a *projector.Attack)
}

// Advance moves a, the attack in progress, on until it waits for a roll
// or a choice, or is over (no longer s.Attack).
func (m Machine) Advance(s *projector.State, a *projector.Attack) {
	for s.Attack == a {
		rolling := a.Next < len(a.Steps) || (m.Waiting != nil && m.Waiting(a))
		if !rolling && !m.Next(s, a) {
			continue
		}
		if s.Attack == a && m.Pending != nil {
			m.Pending(s, a)
		}
		return
	}
}

// Awaited is the step of a that roll p answers: an error, for the fold,
// when a waits for no roll or p is not the roll its step asked for.
func Awaited(a *projector.Attack, p *events.DiceRolled) (*projector.DiceStep, error) {
	d := a.Current()
	if d == nil {
		return nil, fmt.Errorf("no roll is pending")
	}
	if p.Count != d.Dice || len(p.Values) != d.Dice || p.Purpose != d.Purpose {
		return nil, fmt.Errorf("roll of %d dice for %s, but the step is %d dice for %s", len(p.Values), p.Purpose, d.Dice, d.Purpose)
	}
	return d, nil
}

// Rolled folds roll p, event seq, into d, the step of a it answers
// (Awaited), and moves a to its next step.
func Rolled(a *projector.Attack, d *projector.DiceStep, seq uint64, p *events.DiceRolled) {
	d.Seq, d.Values = seq, slices.Clone(p.Values)
	d.Successes = projector.CountAtLeast(d.Values, d.Need)
	a.Next++
}

// Roller is who rolls step d of a: the defender rolls saves and the other
// purposes listed, the attacker every other roll.
func Roller(a *projector.Attack, d *projector.DiceStep, defender ...string) string {
	if d.Purpose == PurposeSave || slices.Contains(defender, d.Purpose) {
		return a.Defender
	}
	return a.Attacker
}

// Roll purposes every edition's attack shares.
const (
	PurposeHit   = "hit"
	PurposeWound = "wound"
	PurposeSave  = "save"
)

// Fired closes a's shooting: its unit has fired this turn, and the attack
// moves to LastAttack (projector.State.CloseAttack).
func Fired(s *projector.State, a *projector.Attack) {
	if u := s.Unit(a.Firer); u != nil {
		u.Fired = true
	}
	s.CloseAttack(a)
}

// Odds is the moments of the successes of a's steps of purpose, each die
// succeeding on its step's need (steps with no re-roll: an edition whose
// dice are re-rolled adds their odds its own way).
func Odds(a *projector.Attack, purpose string) rules.Moments {
	var m rules.Moments
	for _, d := range a.Steps {
		if d.Purpose == purpose {
			m = m.Plus(rules.Binomial(d.Dice, rules.P(d.Need)))
		}
	}
	return m
}
