package ed6e

import (
	"cmp"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// What a simple player does in generated matches (projector.Planner and
// projector.Chooser): in the movement phase every unit without a Heavy
// weapon walks straight at the closest enemy and stops 2" short of it; in
// the assault phase a unit charges the first enemy unit within reach,
// its models follow the first charger into contact, and every combat is
// fought. Each command is tried against the rules before it is given.

var (
	_ projector.Planner = Rules{}
	_ projector.Armory  = Rules{}
)

// Armory is the weapons generated 6e armies draw from besides the common
// ones (projector.Armory): a blast and a template, so that generated
// matches place and scatter markers.
func (Rules) Armory() []events.WeaponSpec {
	return []events.WeaponSpec{
		{Name: "frag missile launcher", Range: 48, Type: Heavy, Shots: 1, S: 4, AP: 6, Keywords: []string{KwBlast}},
		{Name: "flamer", Range: 8, Type: Assault, Shots: 1, S: 4, AP: 5, Keywords: []string{KwTemplate}},
	}
}

// Plan is the active player's next free declaration (projector.Planner).
func (r Rules) Plan(s *projector.State) (projector.Command, bool) {
	if s.Ended || s.Active == "" || s.Pending.Kind != projector.WaitDeclare || mandatory(s) != "" {
		return projector.Command{}, false
	}
	me := events.Actor{Kind: events.ActorPlayer, ID: s.Active}
	legal := func(c projector.Command) bool {
		_, err := projector.Decide(r, s, me, c)
		return err == nil
	}
	var plans []func(*projector.State) []projector.Command
	switch s.Phase {
	case projector.PhaseMovement:
		plans = append(plans, advances)
	case projector.PhaseAssault:
		plans = append(plans, followers, charges, fights)
	}
	for _, plan := range plans {
		for _, c := range plan(s) {
			if legal(c) {
				return c, true
			}
		}
	}
	return projector.Command{}, false
}

// advances: each model of a unit without a Heavy weapon that has not moved
// walks up to its Move straight at the closest enemy model, stopping 2"
// short of it.
func advances(s *projector.State) []projector.Command {
	var out []projector.Command
	for _, u := range s.Units {
		if u.Player != s.Active || u.Destroyed() || locked(s, u) || goneToGround(s, u.ID) || carriesHeavy(u) {
			continue
		}
		for _, m := range u.AliveModels() {
			if slices.Contains(ed(s).Moved, modelKey(u.ID, m.ID)) {
				continue
			}
			from := projector.Body(u, m)
			to, d := closestEnemyBody(s, from, u.Player)
			if d <= 3 {
				continue
			}
			out = append(out, moveToward(u, m, from, to, min(cmp.Or(m.Move, Move), d-2)))
		}
	}
	return out
}

// carriesHeavy reports whether a model of u carries a Heavy weapon.
func carriesHeavy(u *projector.Unit) bool {
	for _, m := range u.AliveModels() {
		for _, id := range m.Weapons {
			if w := u.Weapon(id); w != nil && w.Type == Heavy {
				return true
			}
		}
	}
	return false
}

// closestEnemyBody is the enemy model closest to b, and the distance
// between their bases.
func closestEnemyBody(s *projector.State, b geom.Body, player string) (geom.Body, float64) {
	var best geom.Body
	bd := -1.0
	for _, o := range s.Units {
		if o.Player == player {
			continue
		}
		for _, m := range o.AliveModels() {
			ob := projector.Body(o, m)
			if d := geom.BaseDistance(b, ob); bd < 0 || d < bd-eps {
				best, bd = ob, d
			}
		}
	}
	return best, bd
}

// moveToward is the move of m straight from from toward to, travel inches.
func moveToward(u *projector.Unit, m *projector.Model, from, to geom.Body, travel float64) projector.Command {
	dir := to.Pos.Sub(from.Pos)
	p := from.Pos.Add(dir.Scale(travel / dir.Len()))
	x, y := p.X, p.Y
	return projector.Command{Type: projector.CmdMove, Unit: u.ID, Model: m.ID, X: &x, Y: &y}
}

// intoContact is the move of m straight toward the closest model of the
// units us, ending in base contact (or as far as allow reaches); a model
// already in contact stays where it is. ok is false when us has no model.
func intoContact(u *projector.Unit, m *projector.Model, us []*projector.Unit, allow float64) (projector.Command, bool) {
	from := projector.Body(u, m)
	var to geom.Body
	bd := -1.0
	for _, o := range us {
		for _, e := range o.AliveModels() {
			if d := geom.BaseDistance(from, projector.Body(o, e)); bd < 0 || d < bd-eps {
				to, bd = projector.Body(o, e), d
			}
		}
	}
	if bd < 0 {
		return projector.Command{}, false
	}
	return moveToward(u, m, from, to, max(0, min(allow-eps, bd-BaseContact/2))), true
}

// followers: after a successful charge, the other chargers still where
// they stood move toward the target.
func followers(s *projector.State) []projector.Command {
	ch := ed(s).Charge
	if ch == nil || ch.Stage != chargeRest {
		return nil
	}
	u, t := s.Unit(ch.Unit), s.Unit(ch.Target)
	var out []projector.Command
	for _, mv := range ed(s).Moves {
		m := u.Model(mv.Model)
		if mv.Kind != moveCharge || mv.Unit != u.ID || m == nil || !m.Alive() || m.X != mv.X || m.Y != mv.Y {
			continue
		}
		if _, d := closestEnemy(projector.Body(u, m), []*projector.Unit{t}); d <= BaseContact {
			continue // in contact already
		}
		if c, ok := intoContact(u, m, []*projector.Unit{t}, mv.Allow); ok {
			out = append(out, c)
		}
	}
	return out
}

// charges: each unit that may charge, at the first enemy unit in reach.
func charges(s *projector.State) []projector.Command {
	if ed(s).Subphase != SubCharge {
		return nil
	}
	var out []projector.Command
	for _, u := range s.Units {
		if u.Player != s.Active || u.Destroyed() || slices.Contains(ed(s).Charged, u.ID) {
			continue
		}
		for _, t := range s.Units {
			if t.Player == s.Active || t.Destroyed() {
				continue
			}
			if _, d := kit.Nearest(u, t); d <= ChargeRange+eps {
				out = append(out, projector.Command{Type: CmdCharge, Unit: u.ID, Target: t.ID})
			}
		}
	}
	return out
}

// fights: every combat not fought yet.
func fights(s *projector.State) []projector.Command {
	var out []projector.Command
	for _, cb := range combats(s) {
		if !slices.Contains(ed(s).Fought, cb[0]) {
			out = append(out, projector.Command{Type: CmdFight, Unit: cb[0]})
		}
	}
	return out
}
