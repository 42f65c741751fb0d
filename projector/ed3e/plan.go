package ed3e

import (
	"fmt"
	"math"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
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
		if !carries(m, wid) || u.Weapon(wid) == nil {
			return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s does not carry weapon %q", mid, wid)
		}
	}
	world := s.World(WoodsVisibility)
	targets := t.AliveModels()
	var tb []geom.Body
	for _, m := range targets {
		tb = append(tb, projector.Body(t, m))
	}
	pl := plan{weapons: map[string]string{}}
	inReach := map[string]bool{}
	anySeen, sightWhy, rangeWhy := false, "", ""
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
				"%s moved this turn: %s's Heavy weapon (%s) may fire only if the unit did not move", u.DisplayName(), m.ID, weaponName(w))
		}
		reach := w.Range
		if u.Moved && w.Type == RapidFire {
			reach = w.Range / 2 // a moved rapid-fire weapon fires only up to half range
		}
		fb := projector.Body(u, m)
		closest := math.Inf(1)
		var seen []int
		for i := range tb {
			res := world.Sight(fb, tb[i], u.Player, t.ID)
			if !res.Visible {
				if sightWhy == "" {
					sightWhy = fmt.Sprintf("%s cannot see %s: %s", m.ID, tb[i].ID, res.Reason)
				}
				continue
			}
			anySeen = true
			seen = append(seen, i)
			closest = min(closest, geom.BaseDistance(fb, tb[i]))
		}
		if len(seen) == 0 {
			continue
		}
		if closest > reach+geom.Eps {
			if rangeWhy == "" {
				rangeWhy = fmt.Sprintf("%s's %s reaches %g\" but the closest visible target model is %.1f\" away", m.ID, weaponName(w), reach, closest)
			}
			continue
		}
		for _, i := range seen {
			if geom.BaseDistance(fb, tb[i]) <= reach+geom.Eps {
				inReach[tb[i].ID] = true
			}
		}
		pl.weapons[m.ID] = wid
		pl.shooters = append(pl.shooters, projector.Shooter{
			Model: m.ID, Weapon: wid, Shots: shots(w, u.Moved, closest), BS: m.BS, S: w.S, AP: w.AP, Range: reach,
		})
	}
	if !anySeen {
		return plan{}, projector.Refuse(projector.CodeNotVisible, "%s cannot see any model of %s (%s)", u.DisplayName(), t.DisplayName(), sightWhy)
	}
	if len(pl.shooters) == 0 {
		return plan{}, projector.Refuse(projector.CodeOutOfRange, "no model of %s has %s within range (%s)", u.DisplayName(), t.DisplayName(), rangeWhy)
	}
	for _, m := range targets {
		if inReach[m.ID] {
			pl.eligible = append(pl.eligible, m.ID)
		}
	}
	return pl, nil
}

// shots is the number of shots a weapon fires (RULES.md weapon types,
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

func carries(m *projector.Model, wid string) bool {
	for _, w := range m.Weapons {
		if w == wid {
			return true
		}
	}
	return false
}

func weaponName(w *events.WeaponSpec) string {
	if w.Name != "" {
		return w.Name
	}
	return w.ID
}
