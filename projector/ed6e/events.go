package ed6e

import "github.com/matchrec/matchrec/events"

// Events of the 6e edition (docs/rules/6e.md). They record
// declarations and choices only: whether a charge reaches, who is hit,
// wounded, saved, removed, who wins a combat and whether a Morale test
// passes are all derived by the projector from these and the dice.
//
// Rolls (hit, re-roll, scatter, wound, save, lookoutsir, charge, morale,
// pinning, sweeping advance, fall back, consolidate) are core dice.rolled
// events; every move (charge move, pile-in, fall back, consolidation) is a
// core model.moved whose meaning the projector derives from the step the
// match is at.
const (
	// TypeChargeDeclared: the active player declares that Unit charges
	// Target (charge sub-phase, step 1).
	TypeChargeDeclared events.Type = "charge.declared"
	// TypeOverwatchDeclared: the charged unit fires Overwatch at the
	// charger (step 2); all its shots are snap shots.
	TypeOverwatchDeclared events.Type = "overwatch.declared"
	// TypeOverwatchDeclined: the charged unit's owner does not fire
	// Overwatch.
	TypeOverwatchDeclined events.Type = "overwatch.declined"
	// TypeLookOutSirDeclared: the owner of a character a wound is
	// allocated to attempts Look Out, Sir, naming the model of the unit
	// within 6" that takes the wound if the roll succeeds.
	TypeLookOutSirDeclared events.Type = "lookoutsir.declared"
	// TypeLookOutSirDeclined: the owner lets the character take the wound.
	TypeLookOutSirDeclined events.Type = "lookoutsir.declined"
	// TypeWoundPoolsOrdered: the attacker picks the order in which the
	// wound pools (one per Strength/AP) are allocated and saved.
	TypeWoundPoolsOrdered events.Type = "woundpools.ordered"
	// TypeCombatChosen: the active player chooses the next combat to fight
	// (fight sub-phase, step 1).
	TypeCombatChosen events.Type = "combat.chosen"
	// TypeStrikeDeclared: at the current Initiative step, Unit's models of
	// that Initiative strike Target (after any pile-in moves).
	TypeStrikeDeclared events.Type = "strike.declared"
	// TypeMarkerPlaced: the attacker places the template or blast marker
	// of the shot the attack waits for: a blast's centre over a target
	// model, or the point a template, laid from the firer's base, points
	// at. A blast's scatter roll follows.
	TypeMarkerPlaced events.Type = "marker.placed"
	// TypeMarkerDeclined: the attacker does not make that shot (a template
	// that cannot be laid without touching a friendly model).
	TypeMarkerDeclined events.Type = "marker.declined"
)

// ChargeDeclared: Unit declares a charge against Target.
type ChargeDeclared struct {
	Unit   string `json:"unit"`
	Target string `json:"target"`
}

func (ChargeDeclared) EventType() events.Type { return TypeChargeDeclared }
func (ChargeDeclared) SchemaVersion() uint16  { return 1 }

// OverwatchDeclared: Unit fires Overwatch at Target (the charging unit).
// Weapons maps every firing model to the weapon it fires, as planned when
// declared, so the fold needs no defaults.
type OverwatchDeclared struct {
	Unit    string            `json:"unit"`
	Target  string            `json:"target"`
	Weapons map[string]string `json:"weapons,omitempty"`
}

func (OverwatchDeclared) EventType() events.Type { return TypeOverwatchDeclared }
func (OverwatchDeclared) SchemaVersion() uint16  { return 1 }

// OverwatchDeclined: Unit, the charged unit, holds its fire.
type OverwatchDeclined struct {
	Unit string `json:"unit"`
}

func (OverwatchDeclined) EventType() events.Type { return TypeOverwatchDeclined }
func (OverwatchDeclined) SchemaVersion() uint16  { return 1 }

// LookOutSirDeclared: Character's owner attempts Look Out, Sir; on a
// success the wound moves to Model.
type LookOutSirDeclared struct {
	Character string `json:"character"`
	Model     string `json:"model"`
}

func (LookOutSirDeclared) EventType() events.Type { return TypeLookOutSirDeclared }
func (LookOutSirDeclared) SchemaVersion() uint16  { return 1 }

// LookOutSirDeclined: no attempt for the wound allocated to Character.
type LookOutSirDeclined struct {
	Character string `json:"character"`
}

func (LookOutSirDeclined) EventType() events.Type { return TypeLookOutSirDeclined }
func (LookOutSirDeclined) SchemaVersion() uint16  { return 1 }

// WoundPoolsOrdered: the wound pools of the attack in progress, named by
// their key ("S4/AP5", "S8/AP-"), in the order the attacker resolves them.
type WoundPoolsOrdered struct {
	Pools []string `json:"pools"`
}

func (WoundPoolsOrdered) EventType() events.Type { return TypeWoundPoolsOrdered }
func (WoundPoolsOrdered) SchemaVersion() uint16  { return 1 }

// CombatChosen: the combat Unit is locked in is fought next.
type CombatChosen struct {
	Unit string `json:"unit"`
}

func (CombatChosen) EventType() events.Type { return TypeCombatChosen }
func (CombatChosen) SchemaVersion() uint16  { return 1 }

// StrikeDeclared: Unit's models of the current Initiative strike Target.
type StrikeDeclared struct {
	Unit   string `json:"unit"`
	Target string `json:"target"`
}

func (StrikeDeclared) EventType() events.Type { return TypeStrikeDeclared }
func (StrikeDeclared) SchemaVersion() uint16  { return 1 }

// MarkerPlaced: Model's Weapon shot is placed at (X, Y): the centre of a
// blast marker, or the point a template is aimed at.
type MarkerPlaced struct {
	Model  string  `json:"model"`
	Weapon string  `json:"weapon"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
}

func (MarkerPlaced) EventType() events.Type { return TypeMarkerPlaced }
func (MarkerPlaced) SchemaVersion() uint16  { return 1 }

// MarkerDeclined: Model's Weapon shot is not made.
type MarkerDeclined struct {
	Model  string `json:"model"`
	Weapon string `json:"weapon"`
}

func (MarkerDeclined) EventType() events.Type { return TypeMarkerDeclined }
func (MarkerDeclined) SchemaVersion() uint16  { return 1 }

// EventFamily is the 6e event types (projector.EventFamily): the fold
// decodes a 6e match's events with them beside the core ones.
func (Rules) EventFamily() events.Family { return eventFamily }

// eventFamily is built once: a fold asks for it with every event it
// decodes through projector.Apply.
var eventFamily = events.Family{Name: Edition, Types: types6e(), New: payloads6e}

// payloads6e returns a zero payload for the 6e event types.
func payloads6e(t events.Type) events.Payload {
	switch t {
	case TypeChargeDeclared:
		return &ChargeDeclared{}
	case TypeOverwatchDeclared:
		return &OverwatchDeclared{}
	case TypeOverwatchDeclined:
		return &OverwatchDeclined{}
	case TypeLookOutSirDeclared:
		return &LookOutSirDeclared{}
	case TypeLookOutSirDeclined:
		return &LookOutSirDeclined{}
	case TypeWoundPoolsOrdered:
		return &WoundPoolsOrdered{}
	case TypeCombatChosen:
		return &CombatChosen{}
	case TypeStrikeDeclared:
		return &StrikeDeclared{}
	case TypeMarkerPlaced:
		return &MarkerPlaced{}
	case TypeMarkerDeclined:
		return &MarkerDeclined{}
	}
	return nil
}

// types6e lists the 6e event types.
func types6e() []events.Type {
	return []events.Type{TypeChargeDeclared, TypeOverwatchDeclared, TypeOverwatchDeclined,
		TypeLookOutSirDeclared, TypeLookOutSirDeclined, TypeWoundPoolsOrdered,
		TypeCombatChosen, TypeStrikeDeclared, TypeMarkerPlaced, TypeMarkerDeclined}
}
