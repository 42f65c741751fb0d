package ed11e

import (
	"slices"

	"github.com/matchrec/matchrec/projector"
)

// State is the 11e edition's own part of the board state (its
// projector.State.Ext). Every field must be deep-copied by CloneExt. No
// maps: the state is hashed, and slices keep one encoding per value.
type State struct {
	// Step is the shooting phase's current step: "" before the phase's
	// start is recorded, then start, shoot, end (Step*).
	Step string `json:"step,omitempty"`
	// Selected lists the units selected to shoot this phase, in order: they
	// are no longer eligible to shoot, nor to start an action until the
	// phase ends.
	Selected []string `json:"selected,omitempty"`
	// Advances are this turn's advance rolls.
	Advances []Advance `json:"advances,omitempty"`
	// AdvancePending is the unit whose advance roll is awaited.
	AdvancePending string `json:"advance_pending,omitempty"`
	// Actions are the actions started this turn.
	Actions []Action `json:"actions,omitempty"`
	// Measuring, in a measured match, is the unit whose engagement the
	// match waits to have measured after an attack took models off it.
	Measuring string `json:"measuring,omitempty"`
}

// Advance is a unit's advance roll: it may move Move + Inches.
type Advance struct {
	Unit   string `json:"unit"`
	Inches int    `json:"inches"`
}

// Action is an action a unit started.
type Action struct {
	Unit   string `json:"unit"`
	Action string `json:"action"`
	Phase  string `json:"phase"`
	Seq    uint64 `json:"seq"`
}

// CloneExt deep-copies the 11e state (projector.Ext).
func (s *State) CloneExt() projector.Ext {
	c := *s
	c.Selected = slices.Clone(s.Selected)
	c.Advances = slices.Clone(s.Advances)
	c.Actions = slices.Clone(s.Actions)
	return &c
}

var (
	_ projector.Ext       = (*State)(nil)
	_ projector.Ext       = (*Attack)(nil)
	_ projector.Extension = Rules{}
)

// NewStateExt is a new match's 11e state (projector.Extension).
func (Rules) NewStateExt() projector.Ext { return &State{} }

// NewAttackExt is an empty 11e attack part (projector.Extension).
func (Rules) NewAttackExt() projector.Ext { return &Attack{} }

// ed is the 11e part of s. The core makes it at match.created
// (NewStateExt); see projector.ExtAs.
func ed(s *projector.State) *State { return projector.ExtAs[*State](s.Ext) }

// edAttack is the 11e part of attack a; every 11e attack is made with one.
func edAttack(a *projector.Attack) *Attack { return projector.ExtAs[*Attack](a.Ext) }

// Attack is the 11e edition's own part of an attack in progress (its
// projector.Attack.Ext): the
// attacks grouped by how they roll, the queue of successful wound rolls
// the defender allocates one at a time, and the re-roll being offered or
// made.
type Attack struct {
	Engaged bool    `json:"engaged,omitempty"` // the target is engaged with the firing unit
	T       int     `json:"t"`                 // the Toughness the wound rolls use
	Groups  []Group `json:"groups"`
	Wounds  []Wound `json:"wounds,omitempty"`
	Cur     int     `json:"cur"` // the wound being resolved
	// Offer is a re-roll the roller may use now; Rerolling the re-roll
	// chosen, waiting for its dice.
	Offer     *Reroll  `json:"offer,omitempty"`
	Rerolling *Reroll  `json:"rerolling,omitempty"`
	Rerolled  []Reroll `json:"rerolled,omitempty"` // re-rolls made, so no die is re-rolled twice
	Damage    int      `json:"damage"`             // wounds the target actually lost
}

// Group is the attacks of one weapon that roll alike: same hit need,
// modifier, cover and re-roll.
type Group struct {
	Weapon   string `json:"weapon"`
	Name     string `json:"name"` // the weapon's name, for people
	Label    string `json:"label"`
	Shooters []int  `json:"shooters"` // indices into Attack.Shooters, one per firing model
	Attacks  string `json:"attacks"`  // attacks per model (dice expression)
	Count    int    `json:"count"`    // attacks of the group, once known
	BS       int    `json:"bs"`
	Mod      int    `json:"mod,omitempty"` // sum of hit modifiers, before the ±1 cap
	Cover    bool   `json:"cover,omitempty"`
	Indirect bool   `json:"indirect,omitempty"`  // an [INDIRECT FIRE] attack of indirect shooting
	MinUnmod int    `json:"min_unmod,omitempty"` // lowest unmodified roll that can hit (indirect)
	Need     int    `json:"need"`                // the unmodified roll that hits
	Reroll   string `json:"reroll,omitempty"`    // hit re-roll rule, "" for none
	WReroll  string `json:"wreroll,omitempty"`   // wound re-roll rule
	S        int    `json:"s"`
	AP       int    `json:"ap,omitempty"`
	D        string `json:"d"`
	AttStep  int    `json:"att_step"`   // index into Attack.Steps of its attacks roll, -1 none
	HitStep  int    `json:"hit_step"`   // of its hit roll, -1 none
	WndStep  int    `json:"wound_step"` // of its wound roll, -1 none
}

// Wound is one successful wound roll on its way through allocation,
// save and damage.
type Wound struct {
	Group    int    `json:"group"`
	Model    string `json:"model,omitempty"` // allocated model
	State    string `json:"state,omitempty"` // ed11e's wound states
	SaveNeed int    `json:"save_need,omitempty"`
	Saved    bool   `json:"saved,omitempty"`
	Damage   int    `json:"damage,omitempty"`
	Lost     int    `json:"lost,omitempty"` // wounds the model lost (damage less the excess)
}

// Reroll is a re-roll offered or made on some dice of a roll step.
type Reroll struct {
	Step    int    `json:"step"` // index into Attack.Steps
	Seq     uint64 `json:"seq"`  // the dice.rolled event of that step
	Rule    string `json:"rule"`
	Indices []int  `json:"indices"`
}

func (r *Reroll) clone() *Reroll {
	if r == nil {
		return nil
	}
	c := *r
	c.Indices = slices.Clone(r.Indices)
	return &c
}

// CloneExt deep-copies the 11e attack part (projector.Ext).
func (a *Attack) CloneExt() projector.Ext {
	c := *a
	c.Groups = slices.Clone(a.Groups)
	for i := range c.Groups {
		c.Groups[i].Shooters = slices.Clone(a.Groups[i].Shooters)
	}
	c.Wounds = slices.Clone(a.Wounds)
	c.Offer = a.Offer.clone()
	c.Rerolling = a.Rerolling.clone()
	c.Rerolled = slices.Clone(a.Rerolled)
	for i := range c.Rerolled {
		c.Rerolled[i].Indices = slices.Clone(a.Rerolled[i].Indices)
	}
	return &c
}
