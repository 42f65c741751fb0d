package ed3e

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

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
//
// choice names a model's weapon, or kit.NoWeapon to leave it out. A model
// it does not name fires the first weapon it carries that may fire now —
// after the unit moved, not a Heavy one (docs/rules/3e.md#moving-and-shooting:
// the Heavy weapon stays silent, the rest of the unit fires) — unless
// exact: the fold of a recorded declaration, which names every firing
// model.
func planShooting(s *projector.State, u, t *projector.Unit, choice map[string]string, exact bool) (plan, error) {
	// Checked in map order, and again sorted to name the first bad entry
	// (always the same one) only when there is one: a recorded
	// declaration's choice is sound, and sorting it cost more than the check.
	if err := checkChoice(u, choice, maps.Keys(choice)); err != nil {
		return plan{}, checkChoice(u, choice, slices.Values(slices.Sorted(maps.Keys(choice))))
	}
	world := s.World(WoodsVisibility)
	tb := s.UnitBodies(t) // the target's models on the table, in unit order
	fbs := s.UnitBodies(u)
	pl := plan{weapons: make(map[string]string, len(fbs))}
	var (
		eligible = make([]bool, len(tb))
		quiet    []string // models left silent by their Heavy weapon
		order    []near
	)
	j := 0
	for _, m := range u.Models {
		if !m.Alive() {
			continue
		}
		fb := fbs[j]
		j++
		wid, ok := firingWeapon(u, m, choice, exact)
		if !ok {
			if heavy := heavyOnly(u, m, choice, exact); heavy != "" {
				quiet = append(quiet, heavy)
			}
			continue
		}
		w := u.Weapon(wid)
		if w == nil {
			return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s carries weapon %q, which unit %s does not define", m.ID, wid, u.DisplayName())
		}
		reach := reachOf(w, u.Moved)
		// The closest visible target model decides whether the model fires
		// and how often: look at target models nearest first and stop at
		// the first one it can see, or once they are out of reach.
		closest := -1
		order = byDistance(order, fb, tb)
		for k, n := range order {
			if n.d > reach+geom.Eps {
				break
			}
			if world.CanSee(fb, tb[n.i], u.Player, t.ID) {
				closest = k
				break
			}
		}
		if closest < 0 {
			continue
		}
		// A target model may become a casualty if some firer both sees it
		// and has it within reach: the closest one it sees, and those
		// further off within reach that no firer has been seen to see yet
		// (the nearer ones it cannot see).
		eligible[order[closest].i] = true
		for _, n := range order[closest+1:] {
			if n.d > reach+geom.Eps {
				break
			}
			if !eligible[n.i] && world.CanSee(fb, tb[n.i], u.Player, t.ID) {
				eligible[n.i] = true
			}
		}
		pl.weapons[m.ID] = wid
		pl.shooters = append(pl.shooters, projector.Shooter{
			Model: m.ID, Weapon: wid, Shots: shots(w, order[closest].d), BS: m.BS, S: w.S, AP: w.AP, Range: reach,
		})
	}
	if len(pl.shooters) == 0 {
		return plan{}, whyNoShooter(world, u, t, tb, choice, exact, quiet)
	}
	for i, ok := range eligible {
		if ok {
			pl.eligible = append(pl.eligible, tb[i].ID)
		}
	}
	return pl, nil
}

// checkChoice checks a declaration's choice of weapons, model by model in
// the order ids gives, and refuses the first bad entry.
func checkChoice(u *projector.Unit, choice map[string]string, ids iter.Seq[string]) error {
	for mid := range ids {
		wid := choice[mid]
		m := u.Model(mid)
		if m == nil || !m.Alive() {
			return projector.Refuse(projector.CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), mid)
		}
		if wid == kit.NoWeapon {
			continue
		}
		w := u.Weapon(wid)
		if !slices.Contains(m.Weapons, wid) || w == nil {
			return projector.Refuse(projector.CodeUnknownWeapon, "model %s does not carry weapon %q", mid, wid)
		}
		if silenced(u, w) {
			return projector.Refuse(projector.CodeHeavyMoved,
				"%s moved this turn: %s's Heavy weapon (%s) may fire only if the unit did not move; name another weapon it carries, or %q to leave it out",
				u.DisplayName(), mid, w.DisplayName(), kit.NoWeapon)
		}
	}
	return nil
}

// silenced reports whether w may not fire because its unit moved: a Heavy
// weapon fires only if the unit did not move.
func silenced(u *projector.Unit, w *events.WeaponSpec) bool { return u.Moved && w.Type == Heavy }

// firingWeapon is the weapon model m fires in a declaration (see
// planShooting), and false when it fires none.
func firingWeapon(u *projector.Unit, m *projector.Model, choice map[string]string, exact bool) (string, bool) {
	if wid, named := choice[m.ID]; named || exact {
		return wid, named && wid != kit.NoWeapon
	}
	for _, wid := range m.Weapons {
		if w := u.Weapon(wid); w == nil || !silenced(u, w) {
			return wid, true // an undefined weapon is refused by the caller
		}
	}
	return "", false
}

// heavyOnly names the Heavy weapon that leaves m silent ("dev-1's missile
// launcher") when m fires nothing only because its unit moved; "" when m
// was left out or carries nothing.
func heavyOnly(u *projector.Unit, m *projector.Model, choice map[string]string, exact bool) string {
	if _, named := choice[m.ID]; named || exact || len(m.Weapons) == 0 {
		return ""
	}
	return m.ID + "'s " + u.Weapon(m.Weapons[0]).DisplayName()
}

// near is a target body's index and its distance from a firer.
type near struct {
	i int
	d float64
}

// byDistance orders target bodies nearest first (ties by index), into
// buf's array when it is large enough.
func byDistance(buf []near, from geom.Body, tb []geom.Body) []near {
	ns := buf[:0]
	for i := range tb {
		ns = append(ns, near{i, geom.BaseDistance(from, tb[i])})
	}
	// An insertion sort: stable, allocation-free, and a unit has a few
	// dozen models at most.
	for i := 1; i < len(ns); i++ {
		x := ns[i]
		j := i
		for ; j > 0 && cmp.Compare(ns[j-1].d, x.d) > 0; j-- { // as slices.SortStableFunc with cmp.Compare
			ns[j] = ns[j-1]
		}
		ns[j] = x
	}
	return ns
}

// whyNoShooter explains a declaration no model can fire: every model with
// a weapon was silenced by its Heavy weapon after moving, or nothing of
// the target is visible, or nothing visible is in range. It is only
// computed for a refusal, so it may look at every pair.
func whyNoShooter(world geom.World, u, t *projector.Unit, tb []geom.Body, choice map[string]string, exact bool, quiet []string) error {
	var why kit.Reasons
	armed := false
	for _, m := range u.AliveModels() {
		wid, ok := firingWeapon(u, m, choice, exact)
		w := u.Weapon(wid)
		if !ok || w == nil {
			continue
		}
		armed = true
		v := kit.Look(world, projector.Body(u, m), tb, u.Player, t.ID)
		why.NoteSight(v.Why)
		if i := v.First(); i >= 0 {
			why.NoteRange("%s's %s reaches %g\" but %s is %.1f\" away", m.ID, w.DisplayName(), reachOf(w, u.Moved), tb[i].ID, v.Dist[i])
		}
	}
	if !armed && len(quiet) > 0 {
		return projector.Refuse(projector.CodeHeavyMoved,
			"%s moved this turn: Heavy weapons fire only if the unit did not move, and no other model can fire (%s)",
			u.DisplayName(), strings.Join(quiet, ", "))
	}
	if !armed {
		return projector.Refuse(projector.CodeUnknownWeapon, "no model of %s fires a weapon", u.DisplayName())
	}
	err := why.Refuse(u, t, "model")
	if r, ok := projector.AsRefusal(err); ok && len(quiet) > 0 {
		r.Reason += fmt.Sprintf("; the unit moved, so its Heavy weapons stay silent (%s)", strings.Join(quiet, ", "))
	}
	return err
}

// halfRange is half of w's range: where Rapid Fire's two shots reach, and
// all a moved Rapid Fire weapon reaches.
func halfRange(w *events.WeaponSpec) float64 { return w.Range / 2 }

// reachOf is how far w fires: a moved rapid-fire weapon only up to half
// range.
func reachOf(w *events.WeaponSpec, moved bool) float64 {
	if moved && w.Type == RapidFire {
		return halfRange(w)
	}
	return w.Range
}

// shots is the number of shots a weapon fires at a target model closest
// away (docs/rules/3e.md#weapon-types, default): Rapid Fire
// RapidFireShots up to half range, else RapidFireFarShots (only reached if
// the unit did not move: reachOf); Assault N and Heavy N fire N; Pistol
// PistolShots.
func shots(w *events.WeaponSpec, closest float64) int {
	switch w.Type {
	case RapidFire:
		if closest <= halfRange(w)+geom.Eps {
			return RapidFireShots
		}
		return RapidFireFarShots
	case Pistol:
		return PistolShots
	}
	return max(w.Shots, 1)
}
