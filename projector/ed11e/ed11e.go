// Package ed11e is the 11e edition (docs/rules/11e.md, seed 003): the
// shooting phase's three recorded steps, the four shooting types with
// their eligibility and effects, and the modern attack sequence — hit
// roll against a BS target number with capped modifiers, wound roll by
// S against T, defender allocation (a wounded model first), saves with AP
// and invulnerable saves, variable attacks and damage rolled as their own
// dice, re-rolls as their own events. Movement adds recorded advance rolls;
// engagement is derived from the table. Defaults live in defaults.go.
//
// Commands (projector.Command fields in brackets):
//
//	next-turn, phase, move     common; a move of an advancing unit may go
//	                           Move + its advance roll and is recorded as
//	                           an advance move [unit model x y]
//	advance                    declare an advance, then roll 1 D6 [unit]
//	step                       shooting phase: start → shoot → end (steps
//	                           still missing are recorded automatically by
//	                           shoot, phase and next-turn)
//	shoot                      [unit target kind weapons]: kind is normal,
//	                           assault, close-quarters or indirect; weapons
//	                           maps a model to its weapon ids, comma-
//	                           separated, or "none" (default: every weapon
//	                           the type allows)
//	roll                       the pending dice [values | digital; purpose]
//	reroll, decline            an offered re-roll [indices; none = every
//	                           die the rule allows]
//	allocate                   the defender allocates the attack [model]
//	action                     a unit starts an action [unit kind]
//
// Events: shooting.phase_step, unit.advance_declared, action.started,
// attack.allocated, reroll.chosen, reroll.declined (events.go),
// besides the common ones; no outcome is ever an event.
package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Edition id.
const Edition = "11e"

// Commands of this edition, besides the common ones and shoot, roll,
// reroll and decline.
const (
	CmdStep     = "step"     // move the shooting phase to its next step
	CmdAdvance  = "advance"  // declare a unit's advance (Unit); its roll follows
	CmdAction   = "action"   // a unit (Unit) starts an action (Kind = its name)
	CmdAllocate = "allocate" // the defender allocates the current attack (Model)
)

// Shooting types (ShootingDeclared.Kind, Command.Kind).
const (
	Normal        = "normal"         // 10.04
	Assault       = "assault"        // 10.05
	CloseQuarters = "close-quarters" // 10.06
	Indirect      = "indirect"       // 10.07
)

// Types lists the shooting types in the order the seed gives them.
var Types = []string{Normal, Assault, CloseQuarters, Indirect}

// Pending kinds of this edition.
const (
	WaitReroll   = "reroll"   // the roller may re-roll some dice, or decline
	WaitAllocate = "allocate" // the defender allocates an attack
)

// Roll purposes of this edition, besides hit, wound and save.
const (
	PurposeAttacks = "attacks" // variable number of attacks
	PurposeDamage  = "damage"  // variable damage
	PurposeAdvance = "advance" // advance roll
)

// Rules is the 11e edition.
type Rules struct{}

var (
	_ projector.Rules     = Rules{}
	_ projector.Commander = Rules{}
)

// Edition is "11e".
func (Rules) Edition() string { return Edition }

// Commands lists the command types 11e takes besides the common ones.
func (Rules) Commands() []string {
	return []string{CmdStep, CmdAdvance, CmdAction, projector.CmdShoot, CmdAllocate, projector.CmdReroll, projector.CmdDecline}
}

// Phases of an 11e player turn this engine records.
func (Rules) Phases() []string {
	return []string{projector.PhaseMovement, projector.PhaseShooting}
}

// DefaultMove is Move.
func (Rules) DefaultMove() float64 { return Move }

// common is the edition with every command left to the common rules:
// deciding through it gives the common decision (turns, phases, moves),
// to which the edition then adds its own events.
type common struct{ Rules }

func (common) Decide(*projector.State, events.Actor, projector.Command) ([]events.Payload, error) {
	return nil, projector.ErrNotHandled
}

// Decide handles this edition's commands and wraps the common ones that
// the shooting steps and advances change.
func (r Rules) Decide(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	x := ed(s)
	if x.AdvancePending != "" && c.Type != projector.CmdRoll && c.Type != projector.CmdEnd {
		return nil, projector.Refuse(projector.CodeWrongStep, "the advance roll comes first: %s", s.Pending.Text)
	}
	switch c.Type {
	case projector.CmdPhase, projector.CmdNextTurn:
		return decidePhaseChange(r, s, actor, c)
	case CmdStep:
		return decideStep(s, actor)
	case projector.CmdMove:
		return decideMove(r, s, actor, c)
	case CmdAdvance:
		return decideAdvance(s, actor, c)
	case CmdAction:
		return decideAction(s, actor, c)
	case projector.CmdShoot:
		return decideShoot(s, actor, c)
	case projector.CmdRoll:
		return decideRoll(s, actor, c)
	case projector.CmdReroll:
		return decideReroll(s, actor, c)
	case projector.CmdDecline:
		return decideDecline(s, actor)
	case CmdAllocate:
		return decideAllocate(s, actor, c)
	case projector.CmdMeasure:
		return decideEngaged(s, actor, c)
	}
	return nil, projector.ErrNotHandled
}

// Evolve folds this edition's events and its reading of common ones.
func (r Rules) Evolve(s *projector.State, e *events.Event, p events.Payload) error {
	switch p := p.(type) {
	case *events.MatchCreated:
		engagementChanged(s, nil)
	case *events.TurnStarted:
		*ed(s) = State{}
	case *events.PhaseStarted:
		x := ed(s)
		x.Step, x.Selected = "", nil
	case *events.ModelMoved:
		engagementChanged(s, nil) // an advance move has made its unit Advanced (the common fold)
	case *events.Measured:
		return evolveMeasured(s, p)
	case *ShootingPhaseStep:
		return evolveStep(s, p)
	case *AdvanceDeclared:
		return evolveAdvanceDeclared(s, p)
	case *ActionStarted:
		return evolveAction(s, e.Seq, p)
	case *events.ShootingDeclared:
		return evolveDeclared(s, e.Seq, p)
	case *events.DiceRolled:
		projector.NoteRoll(s, e.Seq, p)
		return evolveRoll(s, e.Seq, p)
	case *RerollChosen:
		return evolveRerollChosen(s, p)
	case *RerollDeclined:
		return evolveRerollDeclined(s, p)
	case *AttackAllocated:
		return evolveAllocated(s, p)
	}
	return nil
}

// evolveRoll routes a roll: to the attack in progress, or to the advance
// waiting for its roll.
func evolveRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	if s.Attack != nil {
		return evolveAttackRoll(s, seq, p)
	}
	if ed(s).AdvancePending != "" {
		return evolveAdvanceRoll(s, p)
	}
	return fmt.Errorf("no roll is pending")
}
