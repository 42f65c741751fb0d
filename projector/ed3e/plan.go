package ed3e

import (
	"cmp"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// plan is what a shooting declaration means on the table: which models
// fire what, and which target models may become casualties. Decide and
// Evolve both compute it from the same state, so it is never recorded.
type plan struct {
	weapons  map[string]string // firing model → weapon, every firing model listed
	shooters []projector.Shooter
	eligible []string
}

// planShooting applies steps 1 and 2 of the sequence (target, range):
// each model fires one weapon; a model fires only if a target model it can
// see is within its weapon's range, measured to the closest such model;
// target models out of range of every firer, or out of sight, cannot
// become casualties.
func planShooting(s *projector.State, u, t *projector.Unit, choice map[string]string) (plan, error) {
	for mid, wid := range choice {
		m := u.Model(mid)
		if m == nil || !m.Alive() {
			return plan{}, projector.Refuse(projector.CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), mid)
		}
		if !slices.Contains(m.Weapons, wid) || u.Weapon(wid) == nil {
			return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s does not carry weapon %q", mid, wid)
		}
	}
	world := s.World(WoodsVisibility)
	targets := t.AliveModels()
	tb := make([]geom.Body, len(targets))
	for i, m := range targets {
		tb[i] = projector.Body(t, m)
	}
	pl := plan{weapons: map[string]string{}}
	type firer struct {
		body  geom.Body
		reach float64
	}
	var firers []firer
	for _, m := range u.AliveModels() {
		wid := choice[m.ID]
		if wid == "" {
			if len(m.Weapons) == 0 {
				continue
			}
			wid = m.Weapons[0]
		}
		w := u.Weapon(wid)
		if w == nil {
			return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s carries weapon %q, which unit %s does not define", m.ID, wid, u.DisplayName())
		}
		if u.Moved && w.Type == Heavy {
			return plan{}, projector.Refuse(projector.CodeHeavyMoved,
				"%s moved this turn: %s's Heavy weapon (%s) may fire only if the unit did not move", u.DisplayName(), m.ID, w.DisplayName())
		}
		reach := reachOf(w, u.Moved)
		fb := projector.Body(u, m)
		// The closest visible target model decides whether the model fires
		// and how often: look at target models nearest first and stop at
		// the first one it can see, or once they are out of reach.
		closest := -1
		for _, i := range byDistance(fb, tb) {
			if geom.BaseDistance(fb, tb[i]) > reach+geom.Eps {
				break
			}
			if world.CanSee(fb, tb[i], u.Player, t.ID) {
				closest = i
				break
			}
		}
		if closest < 0 {
			continue
		}
		firers = append(firers, firer{fb, reach})
		pl.weapons[m.ID] = wid
		pl.shooters = append(pl.shooters, projector.Shooter{
			Model: m.ID, Weapon: wid, Shots: shots(w, u.Moved, geom.BaseDistance(fb, tb[closest])), BS: m.BS, S: w.S, AP: w.AP, Range: reach,
		})
	}
	if len(pl.shooters) == 0 {
		return plan{}, whyNoShooter(world, u, t, tb, choice)
	}
	// A target model may become a casualty if some firer both sees it and
	// has it within reach.
	for i, m := range targets {
		for _, f := range firers {
			if geom.BaseDistance(f.body, tb[i]) <= f.reach+geom.Eps && world.CanSee(f.body, tb[i], u.Player, t.ID) {
				pl.eligible = append(pl.eligible, m.ID)
				break
			}
		}
	}
	return pl, nil
}

// byDistance orders target bodies nearest first (ties by index).
func byDistance(from geom.Body, tb []geom.Body) []int {
	type near struct {
		i int
		d float64
	}
	ns := make([]near, len(tb))
	for i := range tb {
		ns[i] = near{i, geom.BaseDistance(from, tb[i])}
	}
	slices.SortStableFunc(ns, func(a, b near) int { return cmp.Compare(a.d, b.d) })
	idx := make([]int, len(ns))
	for k, n := range ns {
		idx[k] = n.i
	}
	return idx
}

// whyNoShooter explains a declaration no model can fire: nothing of the
// target is visible, or nothing visible is in range. It is only computed
// for a refusal, so it may look at every pair.
func whyNoShooter(world geom.World, u, t *projector.Unit, tb []geom.Body, choice map[string]string) error {
	var why kit.Reasons
	for _, m := range u.AliveModels() {
		wid := choice[m.ID]
		if wid == "" && len(m.Weapons) > 0 {
			wid = m.Weapons[0]
		}
		w := u.Weapon(wid)
		if w == nil {
			continue
		}
		v := kit.Look(world, projector.Body(u, m), tb, u.Player, t.ID)
		why.NoteSight(v.Why)
		if i := v.First(); i >= 0 {
			why.NoteRange("%s's %s reaches %g\" but %s is %.1f\" away", m.ID, w.DisplayName(), reachOf(w, u.Moved), tb[i].ID, v.Dist[i])
		}
	}
	return why.Refuse(u, t, "model")
}

// reachOf is how far w fires: a moved rapid-fire weapon only up to half
// range.
func reachOf(w *events.WeaponSpec, moved bool) float64 {
	if moved && w.Type == RapidFire {
		return w.Range / 2
	}
	return w.Range
}

// shots is the number of shots a weapon fires (docs/rules/3e.md#weapon-types,
// default): Rapid Fire 2 up to half range, else 1 if the unit did not move;
// Assault N and Heavy N fire N; Pistol 1.
func shots(w *events.WeaponSpec, moved bool, closest float64) int {
	n := max(w.Shots, 1)
	switch w.Type {
	case RapidFire:
		if closest <= w.Range/2+geom.Eps {
			return 2
		}
		return 1
	case Pistol:
		return 1
	}
	return n
}
