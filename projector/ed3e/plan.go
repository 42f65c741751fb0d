package ed3e

import (
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
func planShooting(tbl *kit.Table, u, t *projector.Unit, choice map[string]string, exact bool) (plan, error) {
	// Checked in map order, and again sorted to name the first bad entry
	// (always the same one) only when there is one: a recorded
	// declaration's choice is sound, and sorting it cost more than the check.
	if err := checkChoice(u, choice, maps.Keys(choice)); err != nil {
		return plan{}, checkChoice(u, choice, slices.Values(slices.Sorted(maps.Keys(choice))))
	}
	sg := tbl.Sighting(u, t)
	targets := sg.Targets()
	pl := plan{weapons: make(map[string]string, len(u.Models))}
	var (
		firers []kit.Reach
		quiet  []string // models left silent by their Heavy weapon
	)
	for _, m := range u.Models {
		if !m.Alive() {
			continue
		}
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
		// The closest target model it sees decides whether the model fires
		// and how often.
		closest, ok := sg.Range(m, reach)
		if !ok {
			continue
		}
		firers = append(firers, kit.Reach{Model: m, Reach: reach})
		pl.weapons[m.ID] = wid
		pl.shooters = append(pl.shooters, projector.Shooter{
			Model: m.ID, Weapon: wid, Shots: shots(w, closest), BS: m.BS, S: w.S, AP: w.AP, Range: reach,
		})
	}
	if len(pl.shooters) == 0 {
		sg.Check()
		return plan{}, whyNoShooter(sg, u, t, choice, exact, quiet)
	}
	// A target model may become a casualty if some firer both sees it and
	// has it within reach.
	for i, m := range targets {
		if sg.InRange(i, firers) {
			pl.eligible = append(pl.eligible, m.ID)
		}
	}
	sg.Check()
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

// whyNoShooter explains a declaration no model can fire: every model with
// a weapon was silenced by its Heavy weapon after moving, or nothing of
// the target is visible, or nothing visible is in range. It is only
// computed for a refusal, so it may look at every pair.
func whyNoShooter(sg *kit.Sighting, u, t *projector.Unit, choice map[string]string, exact bool, quiet []string) error {
	var why kit.Reasons
	armed := false
	for _, m := range u.AliveModels() {
		wid, ok := firingWeapon(u, m, choice, exact)
		w := u.Weapon(wid)
		if !ok || w == nil {
			continue
		}
		armed = true
		seen, whyNot := sg.Sees(m)
		why.NoteSight(whyNot)
		if seen {
			id, d := sg.FirstSeen(m)
			why.NoteRange("%s's %s reaches %g\" but %s is %.1f\" away", m.ID, w.DisplayName(), reachOf(w, u.Moved), id, d)
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
