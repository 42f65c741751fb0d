package projector

import "slices"

// Clone returns a deep copy of s that shares nothing mutable with it, for
// what-if play and simulation from a point of a match.
func (s *State) Clone() *State {
	c := *s
	c.memo = memo{}
	c.Players = slices.Clone(s.Players)
	c.Terrain = s.Terrain // terrain never changes after creation
	c.Units = make([]*Unit, len(s.Units))
	for i, u := range s.Units {
		c.Units[i] = u.clone()
	}
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
	c.Measures = slices.Clone(s.Measures) // their facts are never changed in place
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
	c.Models = make([]*Model, len(u.Models))
	block := make([]Model, len(u.Models))
	for i, m := range u.Models {
		block[i] = *m
		c.Models[i] = &block[i]
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
	c.Steps = make([]DiceStep, len(a.Steps))
	for i, d := range a.Steps {
		d.Models = slices.Clone(d.Models)
		d.Values = slices.Clone(d.Values)
		c.Steps[i] = d
	}
	return &c
}
