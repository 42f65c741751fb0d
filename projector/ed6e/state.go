package ed6e

import (
	"slices"

	"github.com/matchrec/matchrec/projector"
)

// State is the 6e edition's own part of the board state (its
// projector.State.Ext): the assault phase's sub-phase, the charge and the
// combat being resolved, and the assault moves still open. Everything
// here is derived from events; slices only, never maps, so the state
// encodes (and hashes) one way. Every field must be deep-copied by clone.
type State struct {
	// Subphase of the assault phase: "charge" until a combat is chosen,
	// then "fight"; empty in the other phases.
	Subphase string `json:"subphase,omitempty"`
	// Charge is the charge being resolved, or the last one of the phase.
	Charge *Charge `json:"charge,omitempty"`
	// Charged lists the units that declared a charge this phase.
	Charged []string `json:"charged,omitempty"`
	// Overwatched lists the units that fired Overwatch this phase.
	Overwatched []string `json:"overwatched,omitempty"`
	// Combat is the combat being fought, or the last one of the phase.
	Combat *Combat `json:"combat,omitempty"`
	// Fought lists the units whose combat has been fought this turn.
	Fought []string `json:"fought,omitempty"`
	// Moves are the assault moves still open: which model may move, from
	// where, how far.
	Moves []AssaultMove `json:"moves,omitempty"`
}

// Charge is one charge: its declaration, roll and outcome.
type Charge struct {
	Seq    uint64 `json:"seq"` // the charge.declared event
	Unit   string `json:"unit"`
	Target string `json:"target"`
	// Stage: overwatch (the target may fire), roll (the charge roll is
	// due), first (the first charger must move into contact), rest (the
	// other chargers may move), failed, done.
	Stage    string  `json:"stage"`
	Dice     []int   `json:"dice,omitempty"`
	Distance float64 `json:"distance"` // inches the unit may charge (its slowest model)
	First    string  `json:"first,omitempty"`
	Needed   float64 `json:"needed"` // inches the first charger must cover
	Success  bool    `json:"success,omitempty"`
}

// Combat is one combat of the fight sub-phase.
type Combat struct {
	Seq   uint64   `json:"seq"`   // the combat.chosen event
	Units []string `json:"units"` // every unit locked in it, in unit order
	// Steps are the Initiative values of its models, highest first; Step
	// indexes the one being fought.
	Steps []int `json:"steps"`
	Step  int   `json:"step"`
	// Alive are the models ("unit/model") alive at the start of the step: models killed
	// during a step still strike at it (blows at one Initiative are
	// simultaneous).
	Alive []string `json:"alive,omitempty"`
	// Struck are the units that have struck at the current step.
	Struck []string `json:"struck,omitempty"`
	// Caused is the combat result: unsaved wounds each side caused.
	Caused []Caused `json:"caused"`
	// Stage: fight, morale, sweep, consolidate, moves (pile-in and
	// consolidation moves open), done.
	Stage  string   `json:"stage"`
	Winner string   `json:"winner,omitempty"` // player; empty on a draw
	Loser  string   `json:"loser,omitempty"`
	Diff   int      `json:"diff,omitempty"`
	Tests  []Morale `json:"tests,omitempty"` // the losing units' Morale tests, in order
	Test   int      `json:"test"`
	// Consolidate lists the units no longer locked after the combat, each
	// with its consolidation roll once made.
	Consolidate []Consolidation `json:"consolidate,omitempty"`
}

// Caused is what one side caused in a combat.
type Caused struct {
	Player string `json:"player"`
	Wounds int    `json:"wounds"`
}

// Morale is a losing unit's Morale test and, if failed, its sweeping
// advance roll-off.
type Morale struct {
	Unit   string `json:"unit"`
	Ld     int    `json:"ld"`
	Need   int    `json:"need"` // 2D6 at most this passes (Ld − combat result)
	Roll   []int  `json:"roll,omitempty"`
	Passed bool   `json:"passed,omitempty"`
	// Sweeping advance: each side's D6 and Initiative.
	Sweeper  string `json:"sweeper,omitempty"` // the winning unit that sweeps
	SweepWin int    `json:"sweep_win,omitempty"`
	WinI     int    `json:"win_i,omitempty"`
	SweepOwn int    `json:"sweep_own,omitempty"`
	OwnI     int    `json:"own_i,omitempty"`
	Caught   bool   `json:"caught,omitempty"`
	Fled     bool   `json:"fled,omitempty"`
}

// Consolidation is a unit's consolidation move allowance (D3").
type Consolidation struct {
	Unit     string  `json:"unit"`
	Roll     int     `json:"roll,omitempty"`
	Distance float64 `json:"distance,omitempty"`
}

// AssaultMove is one open assault move: Model of Unit may move up to Allow
// inches from (X, Y).
type AssaultMove struct {
	Kind  string  `json:"kind"` // charge, pile-in, consolidate
	Unit  string  `json:"unit"`
	Model string  `json:"model"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Allow float64 `json:"allow"`
}

// CloneExt deep-copies the 6e state (projector.Ext).
func (s *State) CloneExt() projector.Ext {
	c := *s
	if s.Charge != nil {
		ch := *s.Charge
		ch.Dice = slices.Clone(s.Charge.Dice)
		c.Charge = &ch
	}
	c.Charged = slices.Clone(s.Charged)
	c.Overwatched = slices.Clone(s.Overwatched)
	c.Combat = s.Combat.clone()
	c.Fought = slices.Clone(s.Fought)
	c.Moves = slices.Clone(s.Moves)
	return &c
}

// clone deep-copies a combat (nil stays nil).
func (cb *Combat) clone() *Combat {
	if cb == nil {
		return nil
	}
	c := *cb
	c.Units = slices.Clone(cb.Units)
	c.Steps = slices.Clone(cb.Steps)
	c.Alive = slices.Clone(cb.Alive)
	c.Struck = slices.Clone(cb.Struck)
	c.Caused = slices.Clone(cb.Caused)
	c.Tests = make([]Morale, len(cb.Tests))
	for i, t := range cb.Tests {
		t.Roll = slices.Clone(t.Roll)
		c.Tests[i] = t
	}
	if cb.Tests == nil {
		c.Tests = nil
	}
	c.Consolidate = slices.Clone(cb.Consolidate)
	return &c
}

var (
	_ projector.Ext       = (*State)(nil)
	_ projector.Ext       = (*Attack)(nil)
	_ projector.Extension = Rules{}
)

// NewStateExt is a new match's 6e state (projector.Extension).
func (Rules) NewStateExt() projector.Ext { return &State{} }

// NewAttackExt is an empty 6e attack part (projector.Extension).
func (Rules) NewAttackExt() projector.Ext { return &Attack{} }

// ed is the 6e part of s. The core makes it at match.created
// (NewStateExt); see projector.ExtAs.
func ed(s *projector.State) *State { return projector.ExtAs[*State](s.Ext) }

// edAttack is the 6e part of attack a; every 6e attack is made with one.
func edAttack(a *projector.Attack) *Attack { return projector.ExtAs[*Attack](a.Ext) }

// Attack is the 6e edition's own part of an attack in progress (its
// projector.Attack.Ext): focus
// fire, each target model's cover, the per-step details the core DiceStep
// does not carry, and the wound pools being allocated.
type Attack struct {
	// FocusFire as declared ("2+".."6+", "none"); Focus is its value:
	// 2..6, 7 for "no cover" only, 0 when not declared.
	FocusFire string `json:"focus_fire,omitempty"`
	Focus     int    `json:"focus,omitempty"`
	// Cover is every target model's cover save against this attack.
	Cover []Cover `json:"cover,omitempty"`
	// Steps parallels Attack.Steps, index for index.
	Steps []Step `json:"steps"`
	// AutoHits are the hits of weapons that hit without a roll.
	AutoHits []AutoHit `json:"auto_hits,omitempty"`
	// Pools are the wound pools, by Strength and AP; Order is the order
	// the attacker picked (indices into Pools); Pool indexes Order.
	Pools []Pool `json:"pools,omitempty"`
	Order []int  `json:"order,omitempty"`
	Pool  int    `json:"pool"`
	// Left is the number of wounds of the current pool not yet allocated;
	// Batch is set when the pool is saved in one roll.
	Left  int  `json:"left"`
	Batch bool `json:"batch,omitempty"`
	// Wound is the wound being allocated one at a time.
	Wound *Wound `json:"wound,omitempty"`
	// Applied counts the wounds that took a wound off a model; Lost those
	// no eligible model could take.
	Applied int `json:"applied"`
	Lost    int `json:"lost,omitempty"`
}

// Cover is a model's cover save (0 = none) and where it comes from.
type Cover struct {
	Model string `json:"model"`
	Save  int    `json:"save"`
	Why   string `json:"why,omitempty"`
}

// Step is what a dice step needs beyond projector.DiceStep.
type Step struct {
	AP int `json:"ap,omitempty"`
	// Reroll is the rule that lets a hit step's failures be re-rolled
	// ("BS6+" for 1s, "master-crafted"), RerollNeed the re-roll's target
	// and RerollMax the most dice it may take (0 = every eligible die).
	Reroll     string `json:"reroll,omitempty"`
	RerollNeed int    `json:"reroll_need,omitempty"`
	RerollMax  int    `json:"reroll_max,omitempty"`
	// IsReroll marks a step that re-rolls dice Indices of step Of.
	IsReroll bool  `json:"is_reroll,omitempty"`
	Of       int   `json:"of,omitempty"`
	Indices  []int `json:"indices,omitempty"`
	// Pool, on a wound step, is its pool key.
	Pool string `json:"pool,omitempty"`
}

// AutoHit is hits scored without a hit roll (templates, NO-BS weapons).
type AutoHit struct {
	Weapon string `json:"weapon"`
	S      int    `json:"s"`
	AP     int    `json:"ap,omitempty"`
	Hits   int    `json:"hits"`
}

// Pool is a wound pool: wounds of one Strength and AP.
type Pool struct {
	Key     string `json:"key"`
	S       int    `json:"s"`
	AP      int    `json:"ap,omitempty"`
	Wounds  int    `json:"wounds"`
	Saves   int    `json:"saves"`
	Unsaved int    `json:"unsaved"`
}

// Wound is a wound allocated on its own: the model it is on, and its
// Look Out, Sir attempt.
type Wound struct {
	Model     string `json:"model"`
	Character string `json:"character,omitempty"` // the character it was first allocated to
	Tried     bool   `json:"tried,omitempty"`     // Look Out, Sir attempted or declined: it cannot move again
	Recipient string `json:"recipient,omitempty"` // the model named by the attempt
	Moved     bool   `json:"moved,omitempty"`     // the attempt succeeded
}

// CloneExt deep-copies the 6e attack part (projector.Ext).
func (a *Attack) CloneExt() projector.Ext {
	c := *a
	c.Cover = slices.Clone(a.Cover)
	if a.Steps != nil {
		c.Steps = make([]Step, len(a.Steps))
		for i, st := range a.Steps {
			st.Indices = slices.Clone(st.Indices)
			c.Steps[i] = st
		}
	}
	c.AutoHits = slices.Clone(a.AutoHits)
	c.Pools = slices.Clone(a.Pools)
	c.Order = slices.Clone(a.Order)
	if a.Wound != nil {
		w := *a.Wound
		c.Wound = &w
	}
	return &c
}
