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
	// Reached lists the units whose charge reached its target this turn:
	// their models strike with ChargeBonusAttacks more (revision 2).
	Reached []string `json:"reached,omitempty"`
	// Combat is the combat being fought, or the last one of the phase.
	Combat *Combat `json:"combat,omitempty"`
	// Fought lists the units whose combat has been fought this turn.
	Fought []string `json:"fought,omitempty"`
	// Moves are the assault moves still open: which model may move, from
	// where, how far.
	Moves []AssaultMove `json:"moves,omitempty"`
	// Moved lists the models ("unit/model") that moved in this turn's
	// movement phase: a Heavy weapon fires snap shots from a model that
	// moved.
	Moved []string `json:"moved,omitempty"`

	// Kept from turn to turn:

	// Edges are the players' own table edges, from where their models
	// stood when the match was created: falling back heads for them.
	Edges []Edge `json:"edges,omitempty"`
	// Losses are the units' casualties to shooting in this shooting phase,
	// for the Morale checks at its end.
	Losses []Loss `json:"losses,omitempty"`
	// Checks are the Morale checks and Pinning tests due, in order, and
	// those made since the last phase began.
	Checks []Check `json:"checks,omitempty"`
	// FallBack is the fall-back move in progress.
	FallBack *FallBack `json:"fall_back,omitempty"`
	// Pinned are the units gone to ground.
	Pinned []Pinned `json:"pinned,omitempty"`
	// Strays are the hits a shooting attack's blasts scored on units
	// other than its target, still to resolve, each as an attack of its
	// own once the one before is over (strays.go).
	Strays []Stray `json:"strays,omitempty"`
}

// Edge is a player's own table edge: west (x = 0), east (x = the table's
// width), south (y = 0) or north (y = its height).
type Edge struct {
	Player string `json:"player"`
	Edge   string `json:"edge"`
}

// Loss is what a unit lost to shooting in this shooting phase.
type Loss struct {
	Unit  string `json:"unit"`
	Start int    `json:"start"` // models it had when first shot at this phase
	Lost  int    `json:"lost"`
}

// Check is a Morale check or Pinning test from shooting
// (docs/rules/6e.md#morale-and-pinning-from-shooting).
type Check struct {
	Unit string `json:"unit"`
	Kind string `json:"kind"` // morale, pinning
	Need int    `json:"need"` // 2D6 at most this passes (the unit's Ld)
	Why  string `json:"why"`
	// Seq is the roll's event, Roll its dice, once rolled.
	Seq    uint64 `json:"seq,omitempty"`
	Roll   []int  `json:"roll,omitempty"`
	Passed bool   `json:"passed,omitempty"`
}

// FallBack is a unit falling back (docs/rules/6e.md#falling-back): its
// roll, then every model's move straight toward its own table edge.
type FallBack struct {
	Unit string `json:"unit"`
	Why  string `json:"why"`
	Edge string `json:"edge"`
	// Seq is the roll's event; Distance what it gave.
	Seq      uint64  `json:"seq,omitempty"`
	Dice     []int   `json:"dice,omitempty"`
	Distance float64 `json:"distance,omitempty"`
	// Moved are the models that have made their move.
	Moved []string `json:"moved,omitempty"`
	// Off: the roll reached the table edge and the unit fell off it;
	// Done: the fall back is over.
	Off  bool `json:"off,omitempty"`
	Done bool `json:"done,omitempty"`
	// Measure is the measurement of the distance to the table edge, in a
	// measured match (where the table makes the moves).
	Measure uint64 `json:"measure,omitempty"`
}

// Pinned is a unit gone to ground, until the end of its owner's next turn
// (OwnTurn: that turn has begun).
type Pinned struct {
	Unit    string `json:"unit"`
	Player  string `json:"player"`
	OwnTurn bool   `json:"own_turn,omitempty"`
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
	RollSeq  uint64  `json:"roll_seq,omitempty"` // the charge roll's event
	Dice     []int   `json:"dice,omitempty"`
	Distance float64 `json:"distance"` // inches the unit may charge (its slowest model)
	First    string  `json:"first,omitempty"`
	Needed   float64 `json:"needed"` // inches the first charger must cover
	Success  bool    `json:"success,omitempty"`
	// Measure is the measurement the charge's distance and first charger
	// come from (its declaration's, or one taken again before the roll),
	// 0 from positions.
	Measure uint64 `json:"measure,omitempty"`
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
	Seq    uint64 `json:"seq,omitempty"` // the Morale test's roll
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
	Seq      uint64  `json:"seq,omitempty"` // the roll's event
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
	c.Reached = slices.Clone(s.Reached)
	c.Combat = s.Combat.clone()
	c.Fought = slices.Clone(s.Fought)
	c.Moves = slices.Clone(s.Moves)
	c.Moved = slices.Clone(s.Moved)
	c.Edges = slices.Clone(s.Edges)
	c.Losses = slices.Clone(s.Losses)
	c.Checks = make([]Check, len(s.Checks))
	for i, ch := range s.Checks {
		ch.Roll = slices.Clone(ch.Roll)
		c.Checks[i] = ch
	}
	if s.Checks == nil {
		c.Checks = nil
	}
	if s.FallBack != nil {
		fb := *s.FallBack
		fb.Dice, fb.Moved = slices.Clone(fb.Dice), slices.Clone(fb.Moved)
		c.FallBack = &fb
	}
	c.Pinned = slices.Clone(s.Pinned)
	if s.Strays != nil {
		c.Strays = make([]Stray, len(s.Strays))
		for i, st := range s.Strays {
			st.Hits, st.Models, st.Shooters = slices.Clone(st.Hits), slices.Clone(st.Models), slices.Clone(st.Shooters)
			c.Strays[i] = st
		}
	}
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
	// Measuring is what the attack waits to have measured at the table
	// (a measure step): "lookoutsir", the distances from the character
	// the wound is on to its squad-mates; "under", where a blast landed.
	Measuring string `json:"measuring,omitempty"`
	// Applied counts the wounds that took a wound off a model; Lost those
	// no eligible model could take.
	Applied int `json:"applied"`
	Lost    int `json:"lost,omitempty"`
	// Markers are the templates and blasts of the attack, one per shot,
	// placed (and blasts scattered) in order before the hit rolls.
	Markers []Marker `json:"markers,omitempty"`
	// Pinning is set when a weapon of the attack pins.
	Pinning bool `json:"pinning,omitempty"`
}

// Marker is one template or blast shot (docs/rules/6e.md#templates-and-blasts).
type Marker struct {
	Model  string `json:"model"`
	Weapon string `json:"weapon"`
	Kind   string `json:"kind"` // template, blast
	// Radius of a blast marker; a template's shape is the defaults'.
	Radius float64 `json:"radius,omitempty"`
	// Placed: where the player put it (a blast's centre, the point a
	// template is aimed at); Declined: the shot is not made.
	Placed   bool    `json:"placed,omitempty"`
	Declined bool    `json:"declined,omitempty"`
	X        float64 `json:"x,omitempty"`
	Y        float64 `json:"y,omitempty"`
	// A blast's scatter: its roll, whether it hit, the bearing and
	// distance it moved, and where it landed.
	Seq     uint64  `json:"seq,omitempty"`
	Hit     bool    `json:"hit,omitempty"`
	Bearing int     `json:"bearing,omitempty"` // degrees clockwise from +y
	Drift   float64 `json:"drift,omitempty"`
	FinalX  float64 `json:"final_x,omitempty"`
	FinalY  float64 `json:"final_y,omitempty"`
	// Done once resolved; Under are the target models it covers (a hit
	// each).
	Done  bool     `json:"done,omitempty"`
	Under []string `json:"under,omitempty"`
	// Others are the models of other units a blast covers where it lands,
	// friend or foe, unit by unit (revision 2): each takes a hit, resolved
	// once the attack is over (strays.go).
	Others []UnitHits `json:"others,omitempty"`
	// Measure is the measurement of the models under it (its placement's
	// for a template, the one taken where a blast landed), 0 from
	// positions.
	Measure uint64 `json:"measure,omitempty"`
}

// UnitHits are models of one unit hit by a marker.
type UnitHits struct {
	Unit   string   `json:"unit"`
	Models []string `json:"models"`
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
	if a.Markers != nil {
		c.Markers = make([]Marker, len(a.Markers))
		for i, m := range a.Markers {
			m.Under = slices.Clone(m.Under)
			m.Others = cloneHits(m.Others)
			c.Markers[i] = m
		}
	}
	if a.Wound != nil {
		w := *a.Wound
		c.Wound = &w
	}
	return &c
}

// cloneHits deep-copies a list of UnitHits (nil stays nil).
func cloneHits(hs []UnitHits) []UnitHits {
	if hs == nil {
		return nil
	}
	out := make([]UnitHits, len(hs))
	for i, h := range hs {
		out[i] = UnitHits{Unit: h.Unit, Models: slices.Clone(h.Models)}
	}
	return out
}
