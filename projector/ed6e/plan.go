package ed6e

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

const eps = geom.Eps

// plan is what a shooting or Overwatch declaration means on the table:
// which models fire what, which of them snap fire, which target models may
// take wounds, and every target model's cover. Decide and Evolve both
// compute it from the same state, so only the declaration is recorded.
type plan struct {
	weapons  map[string]string // firing model → weapon, every firing model listed
	shooters []projector.Shooter
	snap     []bool // per shooter: fires snap shots
	eligible []string
	cover    []Cover // every model of the target on the table
}

// fire is how a unit fires.
type fire struct {
	snapAll   bool // every shot is a snap shot: forced snap fire, Overwatch
	overwatch bool // Overwatch, for the reasons given
	// exact: the fold of a recorded declaration, which names every firing
	// model's weapon: no other model fires.
	exact bool
}

// planShooting applies range and sight as in 3e (each model measures its
// own range to the closest target model it can see; target models out of
// range of every firer, or out of sight, cannot take wounds) with 6e's
// snap shots, and records each target model's cover save.
//
// choice names a model's weapon, or kit.NoWeapon to leave it out. A model
// it does not name fires its first ranged weapon that may fire now: one
// that can snap fire when its shots are snap shots (a Heavy weapon of a
// model that moved, forced snap fire, Overwatch); a model with none sits
// out.
func planShooting(tbl *kit.Table, u, t *projector.Unit, choice map[string]string, f fire) (plan, error) {
	s := tbl.State()
	for _, mid := range slices.Sorted(maps.Keys(choice)) { // sorted: the first bad entry named is always the same
		wid := choice[mid]
		m := u.Model(mid)
		if m == nil || !m.Alive() {
			return plan{}, projector.Refuse(projector.CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), mid)
		}
		if wid == kit.NoWeapon {
			continue
		}
		w := u.Weapon(wid)
		if !slices.Contains(m.Weapons, wid) || w == nil {
			return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s does not carry weapon %q", mid, wid)
		}
		if w.Type == Melee {
			return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "%s's %s is a close-combat weapon: it does not shoot", mid, weaponName(w))
		}
	}
	sg := tbl.Sighting(u, t)
	targets := sg.Targets()
	pl := plan{weapons: map[string]string{}}
	armed, snapWhy := 0, ""
	var (
		why    kit.Reasons
		firers []kit.Reach // the models that fire, and their reach
	)
	for _, m := range u.AliveModels() {
		wid, named := choice[m.ID]
		switch {
		case named && wid == kit.NoWeapon, !named && f.exact:
			continue
		case !named:
			if wid, snapWhy = defaultWeapon(s, u, m, f, snapWhy); wid == "" {
				continue
			}
		}
		w := u.Weapon(wid)
		if w == nil {
			return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s carries weapon %q, which unit %s does not define", m.ID, wid, u.DisplayName())
		}
		snap := snaps(s, u, m, w, f)
		if why := snapProblem(w); snap && why != "" {
			return plan{}, projector.Refuse(CodeCannotSnap, "%s's %s is %s and cannot snap fire (%s)", m.ID, weaponName(w), why, snapCause(u, m, w, f))
		}
		armed++
		reach := reachOf(w, u.Moved)
		sg.Look(m) // every line of sight counts for cover
		closest, _ := sg.Range(m, math.Inf(1))
		seen, whyNot := sg.Sees(m)
		why.NoteSight(whyNot)
		if !seen {
			continue
		}
		if closest > reach+eps {
			why.NoteRange("%s's %s reaches %g\" but the closest visible target model is %.1f\" away", m.ID, weaponName(w), reach, closest)
			continue
		}
		firers = append(firers, kit.Reach{Model: m, Reach: reach})
		bs := m.BS
		if snap {
			bs = SnapBS
		}
		pl.weapons[m.ID] = wid
		pl.shooters = append(pl.shooters, projector.Shooter{
			Model: m.ID, Weapon: wid, Shots: shotsFor(w, u.Moved, closest), BS: bs, S: w.S, AP: w.AP, Range: reach,
		})
		pl.snap = append(pl.snap, snap)
	}
	switch {
	case armed == 0 && snapWhy != "":
		return plan{}, projector.Refuse(CodeCannotSnap, "no model of %s can fire: %s", u.DisplayName(), snapWhy)
	case armed == 0:
		return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "no model of %s carries a ranged weapon", u.DisplayName())
	case len(pl.shooters) == 0:
		sg.Check()
		return plan{}, why.Refuse(u, t, "model")
	}
	var eligible []*projector.Model
	for i, m := range targets {
		if sg.InRange(i, firers) {
			pl.eligible = append(pl.eligible, m.ID)
			eligible = append(eligible, m)
		}
	}
	cover := make([]Cover, len(targets))
	for i, m := range targets {
		cover[i] = Cover{Model: m.ID}
		if kind, what := sg.Cover(i, coverSaveOf); kind != projector.ValueNone {
			cover[i] = Cover{Model: m.ID, Save: coverSaveOf(kind), Why: fmt.Sprintf("%s %d+", what, coverSaveOf(kind))}
		}
	}
	sg.Check()
	tbl.Order(u, t, pl.shooters, eligible)
	if goneToGround(s, t.ID) {
		for i := range cover {
			groundCover(&cover[i])
		}
	}
	pl.cover = cover
	return pl, nil
}

// snaps reports whether model m of u fires w as snap shots: every shot
// when f says so (forced snap fire, Overwatch), and a Heavy or artillery
// weapon of a model that moved this turn (docs/rules/6e.md#snap-shots: the
// source speaks of the model that moves, not its unit; artillery cannot
// snap fire, so it does not fire then).
func snaps(s *projector.State, u *projector.Unit, m *projector.Model, w *events.WeaponSpec, f fire) bool {
	return f.snapAll || ((w.Type == Heavy || w.Type == Artillery) && slices.Contains(ed(s).Moved, modelKey(u.ID, m.ID)))
}

// snapCause says why m's shots are snap shots, for a refusal.
func snapCause(u *projector.Unit, m *projector.Model, w *events.WeaponSpec, f fire) string {
	switch {
	case f.overwatch:
		return "Overwatch is all snap shots"
	case f.snapAll:
		return u.DisplayName() + " is forced to snap fire"
	}
	if w.Type == Artillery {
		return m.ID + " moved, and after moving artillery would fire snap shots, as a Heavy weapon does"
	}
	return m.ID + " moved, so its Heavy weapon fires snap shots"
}

// defaultWeapon is the weapon a model fires when the declaration does not
// name one: its first ranged weapon that may fire — one that can snap
// fire, when it would fire snap shots. A model with none sits out; why
// keeps the first reason one did.
func defaultWeapon(s *projector.State, u *projector.Unit, m *projector.Model, f fire, why string) (string, string) {
	for _, wid := range m.Weapons {
		w := u.Weapon(wid)
		if w == nil {
			return wid, why // refused by the caller
		}
		if w.Type == Melee {
			continue
		}
		if p := snapProblem(w); p != "" && snaps(s, u, m, w, f) {
			if why == "" {
				why = fmt.Sprintf("%s's %s is %s and cannot snap fire (%s)", m.ID, weaponName(w), p, snapCause(u, m, w, f))
			}
			continue
		}
		return wid, why
	}
	return "", why
}

// coverSaveOf is the cover save a cover fact's kind gives (default
// table, docs/rules/6e.md#cover); 0 for none.
func coverSaveOf(kind string) int {
	switch kind {
	case events.TerrainWoods:
		return CoverWoods
	case events.TerrainRuins:
		return CoverRuins
	case events.TerrainFort:
		return CoverFort
	case events.TerrainWire:
		return CoverWire
	case "area":
		return CoverArea
	case kit.CoverModels:
		return CoverModels
	}
	return 0
}

// coverSave is model id's cover save in attack a (0 = none).
func coverSave(a *projector.Attack, id string) int {
	for _, c := range edAttack(a).Cover {
		if c.Model == id {
			return c.Save
		}
	}
	return 0
}
