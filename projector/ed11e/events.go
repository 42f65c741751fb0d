package ed11e

import "github.com/matchrec/matchrec/events"

// Events of the 11e edition (docs/rules/11e.md). Only
// declarations and choices: hits, wounds, saves, damage and casualties
// stay derived by the projector from these and the dice.
const (
	// TypeShootingPhaseStep: the shooting phase entered one of its three
	// steps (start, shoot, end).
	TypeShootingPhaseStep events.Type = "shooting.phase_step"
	// TypeAdvanceDeclared: a unit declares an advance; its advance roll
	// (a dice.rolled of purpose "advance") follows.
	TypeAdvanceDeclared events.Type = "unit.advance_declared"
	// TypeActionStarted: a unit starts an action.
	TypeActionStarted events.Type = "action.started"
	// TypeAttackAllocated: the defender allocates the attack being
	// resolved to a model of the target unit.
	TypeAttackAllocated events.Type = "attack.allocated"
	// TypeRerollChosen: the roller uses an offered re-roll on some dice of
	// a roll; the replacing dice.rolled (linked by Reroll) follows.
	TypeRerollChosen events.Type = "reroll.chosen"
	// TypeRerollDeclined: the roller declines an offered re-roll.
	TypeRerollDeclined events.Type = "reroll.declined"
)

// Shooting phase steps (docs/rules/11e.md#shooting-phase: start of phase,
// shoot, end of phase).
const (
	StepStart = "start"
	StepShoot = "shoot"
	StepEnd   = "end"
)

// ShootingPhaseStep records that the shooting phase entered Step.
type ShootingPhaseStep struct {
	Step string `json:"step"`
}

func (ShootingPhaseStep) EventType() events.Type { return TypeShootingPhaseStep }
func (ShootingPhaseStep) SchemaVersion() uint16  { return 1 }

// AdvanceDeclared: Unit will make an advance move this turn.
type AdvanceDeclared struct {
	Unit string `json:"unit"`
}

func (AdvanceDeclared) EventType() events.Type { return TypeAdvanceDeclared }
func (AdvanceDeclared) SchemaVersion() uint16  { return 1 }

// ActionStarted: Unit starts the action named Action.
type ActionStarted struct {
	Unit   string `json:"unit"`
	Action string `json:"action"`
}

func (ActionStarted) EventType() events.Type { return TypeActionStarted }
func (ActionStarted) SchemaVersion() uint16  { return 1 }

// AttackAllocated: the defender allocates the current attack to Model.
type AttackAllocated struct {
	Model string `json:"model"`
}

func (AttackAllocated) EventType() events.Type { return TypeAttackAllocated }
func (AttackAllocated) SchemaVersion() uint16  { return 1 }

// RerollChosen: the dice at Indices of the dice.rolled event Seq are to be
// re-rolled, under the rule named by Source (e.g. "re-roll hit rolls of 1").
type RerollChosen struct {
	Seq     uint64 `json:"seq"`
	Indices []int  `json:"indices"`
	Source  string `json:"source,omitempty"`
}

func (RerollChosen) EventType() events.Type { return TypeRerollChosen }
func (RerollChosen) SchemaVersion() uint16  { return 1 }

// RerollDeclined: the re-roll offered on the dice.rolled event Seq is not
// used.
type RerollDeclined struct {
	Seq uint64 `json:"seq"`
}

func (RerollDeclined) EventType() events.Type { return TypeRerollDeclined }
func (RerollDeclined) SchemaVersion() uint16  { return 1 }

// EventFamily is the 11e event types (projector.EventFamily): the fold
// decodes an 11e match's events with them beside the core ones.
func (Rules) EventFamily() events.Family { return eventFamily }

// eventFamily is built once: a fold asks for it with every event it
// decodes through projector.Apply.
var eventFamily = events.Family{Name: Edition, Types: ed11eTypes(), New: ed11ePayload}

// ed11ePayload returns a zero payload for the 11e event types.
func ed11ePayload(t events.Type) events.Payload {
	switch t {
	case TypeShootingPhaseStep:
		return &ShootingPhaseStep{}
	case TypeAdvanceDeclared:
		return &AdvanceDeclared{}
	case TypeActionStarted:
		return &ActionStarted{}
	case TypeAttackAllocated:
		return &AttackAllocated{}
	case TypeRerollChosen:
		return &RerollChosen{}
	case TypeRerollDeclined:
		return &RerollDeclined{}
	}
	return nil
}

// ed11eTypes lists the 11e event types.
func ed11eTypes() []events.Type {
	return []events.Type{TypeShootingPhaseStep, TypeAdvanceDeclared, TypeActionStarted,
		TypeAttackAllocated, TypeRerollChosen, TypeRerollDeclined}
}
