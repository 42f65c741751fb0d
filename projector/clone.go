package projector

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of s that shares nothing mutable with it, for
// what-if play and simulation from a point of a match, and for every
// reader of the recorder's live state.
//
// A clone is the same state: it hashes as s does. The canonical encoding
// tells a nil slice from an empty one (a field without omitempty encodes
// nil as nil and an empty slice as an empty array), so every slice keeps
// its nil-ness here (slices.Clone does; make(len) does not). An attack
// that has asked for no dice yet (a 6e blast before its scatter roll, a
// template attack that hit nothing) has nil Steps; a clone that made them
// empty hashed differently, and the recorder's live state (a clone) then
// differed from every re-fold (issue 22).
//
// Shared, never copied: what the setup fixed and nothing mutates — the
// terrain, a unit's keywords and weapon profiles, a model's weapons and
// keywords (TestCloneSharesNothingMutable lists them).
func (s *State) Clone() *State {
	c := *s
	c.memo = memo{}
	c.Players = slices.Clone(s.Players)
	c.Terrain = s.Terrain // terrain never changes after creation
	if s.Units != nil {
		c.Units = make([]*Unit, len(s.Units))
		for i, u := range s.Units {
			c.Units[i] = u.clone()
		}
	}
	c.Tokens, c.Keys = maps.Clone(s.Tokens), maps.Clone(s.Keys)
	if r := s.Pending.Reroll; r != nil {
		rr := *r
		rr.Indices = slices.Clone(r.Indices)
		c.Pending.Reroll = &rr
	}
	c.Pending.Facts = slices.Clone(s.Pending.Facts)
	c.Attack = s.Attack.Clone()
	c.LastAttack = s.LastAttack.Clone()
	c.Tally = slices.Clone(s.Tally)
	c.Dice.Commits = slices.Clone(s.Dice.Commits)
	for i := range c.Dice.Commits {
		c.Dice.Commits[i].Players = slices.Clone(c.Dice.Commits[i].Players)
	}
	if s.EndOffer != nil {
		o := *s.EndOffer
		c.EndOffer = &o
	}
	if r := s.Dice.Request; r != nil {
		cr := *r
		cr.Contributions = slices.Clone(r.Contributions)
		c.Dice.Request = &cr
	}
	c.Dice.PlayerSeeds = slices.Clone(s.Dice.PlayerSeeds)
	c.Dice.Manual = slices.Clone(s.Dice.Manual)
	c.Disputes = slices.Clone(s.Disputes)
	for i := range c.Disputes {
		c.Disputes[i].Values = slices.Clone(c.Disputes[i].Values)
		c.Disputes[i].Models = slices.Clone(c.Disputes[i].Models)
		c.Disputes[i].Facts = slices.Clone(c.Disputes[i].Facts)
	}
	c.Measures = slices.Clone(s.Measures)
	for i := range c.Measures {
		c.Measures[i].Facts = slices.Clone(c.Measures[i].Facts)
	}
	c.Skipped = slices.Clone(s.Skipped)
	if s.Ext != nil {
		c.Ext = s.Ext.CloneExt()
	}
	if s.Branch != nil {
		b := *s.Branch
		c.Branch = &b
	}
	if s.LastRoll != nil {
		r := *s.LastRoll
		r.Values = slices.Clone(r.Values)
		c.LastRoll = &r
	}
	return &c
}

// Clone returns a deep copy of u: its models, and what it is engaged with.
func (u *Unit) Clone() *Unit { return u.clone() }

func (u *Unit) clone() *Unit {
	c := *u
	// One block for all the models: simulations clone states by the
	// hundred thousand, and an allocation per model dominated their cost.
	if u.Models != nil {
		c.Models = make([]*Model, len(u.Models))
		block := make([]Model, len(u.Models))
		for i, m := range u.Models {
			block[i] = *m
			c.Models[i] = &block[i]
		}
	}
	c.Engaged = slices.Clone(u.Engaged)
	return &c
}

// Clone deep-copies an attack (nil stays nil).
func (a *Attack) Clone() *Attack {
	if a == nil {
		return nil
	}
	c := *a
	c.Shooters = slices.Clone(a.Shooters)
	c.Eligible = slices.Clone(a.Eligible)
	c.Assigned = slices.Clone(a.Assigned)
	c.Casualties = slices.Clone(a.Casualties)
	c.Measures = slices.Clone(a.Measures)
	if a.Ext != nil {
		c.Ext = a.Ext.CloneExt()
	}
	if a.Steps != nil { // nil stays nil: see State.Clone
		c.Steps = make([]DiceStep, len(a.Steps))
		for i, d := range a.Steps {
			d.Models = slices.Clone(d.Models)
			d.Values = slices.Clone(d.Values)
			c.Steps[i] = d
		}
	}
	return &c
}
