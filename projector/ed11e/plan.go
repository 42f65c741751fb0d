package ed11e

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/rules"
)

// plan is what a shooting declaration means on the table: which models
// fire which weapons, and how each attack rolls to hit. Decide and Evolve
// both compute it from the same state, so none of it is recorded but the
// declaration (with every firing model's weapons named).
type plan struct {
	weapons  map[string]string // firing model → its firing weapons, comma-separated
	shooters []projector.Shooter
	groups   []Group
	engaged  bool
	t        int
}

// sightWorld is the table as this edition sees it: terrain only (models do
// not block, defaults.go).
func sightWorld(s *projector.State) geom.World {
	var w geom.World
	for _, t := range s.Terrain {
		w.Areas = append(w.Areas, geom.AreaFromTerrain(t, WoodsVisibility))
	}
	return w
}

// planShooting works out a declaration of shooting type kind by unit u at
// target t. choice names weapons per model (comma-separated ids, or
// "none"); a model left out fires every weapon it may, unless exact (the
// fold of a recorded declaration, which lists every firing model).
func planShooting(tbl *kit.Table, u, t *projector.Unit, kind string, choice map[string]string, exact bool) (plan, error) {
	s := tbl.State()
	keys := make([]string, 0, len(choice))
	for k := range choice {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad entry reported never depends on map order
	chosen := map[string][]string{}
	for _, mid := range keys {
		m := u.Model(mid)
		if m == nil || !m.Alive() {
			return plan{}, projector.Refuse(projector.CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), mid)
		}
		ids := []string{}
		for _, wid := range strings.Split(choice[mid], ",") {
			if wid = strings.TrimSpace(wid); wid == "" || wid == kit.NoWeapon {
				continue
			}
			if !slices.Contains(m.Weapons, wid) || u.Weapon(wid) == nil {
				return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s does not carry weapon %q", mid, wid)
			}
			if slices.Contains(ids, wid) {
				return plan{}, projector.Refuse(projector.CodeBadCommand, "model %s names weapon %q twice: each weapon makes its attacks once", mid, wid)
			}
			ids = append(ids, wid)
		}
		chosen[mid] = ids
	}
	sg := tbl.Sighting(u, t)
	pl := plan{weapons: map[string]string{}, engaged: engagedWith(u, t.ID), t: toughness(t)}
	stat := stationary(u)
	spot := -1 // lazily: 1 when a friendly unit sees the target
	var why kit.Reasons
	for _, m := range u.AliveModels() {
		ids, explicit := chosen[m.ID]
		if !explicit {
			if exact {
				continue
			}
			ids = m.Weapons
		}
		sg.Look(m)
		closest, _ := sg.Range(m, math.Inf(1))
		seen, whyNot := sg.Sees(m)
		why.NoteSight(whyNot)
		mv := isMV(u, m)
		var fired []string
		for _, wid := range ids {
			w := u.Weapon(wid)
			if w == nil {
				return plan{}, projector.Refuse(projector.CodeUnknownWeapon, "model %s carries weapon %q, which unit %s does not define", m.ID, wid, u.DisplayName())
			}
			bar := weaponBar(kind, w, mv, pl.engaged, t.DisplayName())
			if bar == "" && (w.Range <= 0 || w.BS <= 0) {
				bar = fmt.Sprintf("%s is not a ranged weapon with a BS (range %g, BS %d)", w.DisplayName(), w.Range, w.BS)
			}
			if bar != "" {
				if explicit {
					return plan{}, projector.Refuse(projector.CodeNotEligible, "%s: %s", m.ID, bar)
				}
				why.NoteBar(bar)
				continue
			}
			attacks, dmg, err := profile(w)
			if err != nil {
				return plan{}, projector.Refuse(projector.CodeBadCommand, "weapon %s: %v", w.DisplayName(), err)
			}
			indirect := kind == Indirect && projector.HasKeyword(w.Keywords, KwIndirect)
			reach := closest <= w.Range+geom.Eps
			if !reach && indirect {
				reach = sg.Nearest(m) <= w.Range+geom.Eps // [INDIRECT FIRE] may target units not visible (10.07)
			}
			if !reach {
				if seen || indirect {
					why.NoteRange("%s's %s reaches %g\", and no target model it may target is that close", m.ID, w.DisplayName(), w.Range)
				}
				continue
			}
			g := Group{Weapon: w.ID, Name: w.DisplayName(), BS: w.BS, S: w.S, AP: w.AP, D: dmg.String(), Attacks: attacks.String(),
				Cover: indirect || sg.Covered(m, w.Range), Indirect: indirect, Reroll: hitReroll(u, w), WReroll: woundReroll(w),
				AttStep: -1, HitStep: -1, WndStep: -1}
			var mods []string
			g.Mod, mods = hitMod(u, t, w, kind, mv, pl.engaged, stat)
			if indirect {
				g.Reroll = "" // hit rolls cannot be re-rolled (10.07)
				g.MinUnmod = IndirectMinUnmod
				if stat && sg.Spotted(func() bool { return spotted(s, tbl.World(), u, t, &spot) }) {
					g.MinUnmod = IndirectSpottedMinUnmod
				}
			}
			g.Need = HitNeed(g.BS, g.Cover, g.Mod, g.MinUnmod)
			g.Label = groupLabel(w, g, mods)
			sh := len(pl.shooters)
			pl.shooters = append(pl.shooters, projector.Shooter{Model: m.ID, Weapon: w.ID, BS: w.BS, S: w.S, AP: w.AP, Range: w.Range})
			if !attacks.Variable() {
				pl.shooters[sh].Shots = attacks.Plus
			}
			pl.addGroup(g, sh)
			fired = append(fired, w.ID)
		}
		if len(fired) > 0 {
			pl.weapons[m.ID] = strings.Join(fired, ",")
		}
	}
	if len(pl.shooters) == 0 {
		sg.Check()
		return plan{}, why.Refuse(u, t, "weapon")
	}
	sg.Check()
	return pl, nil
}

// addGroup puts shooter sh into the group of attacks that roll like g.
func (pl *plan) addGroup(g Group, sh int) {
	for i := range pl.groups {
		o := &pl.groups[i]
		if o.Weapon == g.Weapon && o.Need == g.Need && o.Mod == g.Mod && o.Cover == g.Cover &&
			o.Indirect == g.Indirect && o.MinUnmod == g.MinUnmod && o.Reroll == g.Reroll {
			o.Shooters = append(o.Shooters, sh)
			return
		}
	}
	g.Shooters = []int{sh}
	pl.groups = append(pl.groups, g)
}

// profile parses a weapon's attacks and damage (defaults.go for missing ones).
func profile(w *events.WeaponSpec) (attacks, dmg rules.Expr, err error) {
	a := w.Attacks
	if a == "" && w.Shots > 0 {
		a = fmt.Sprint(w.Shots)
	}
	if attacks, err = rules.ParseExpr(cmp.Or(a, DefaultAttacks)); err != nil {
		return attacks, dmg, fmt.Errorf("attacks: %v", err)
	}
	if dmg, err = rules.ParseExpr(cmp.Or(w.D, DefaultDamage)); err != nil {
		return attacks, dmg, fmt.Errorf("damage: %v", err)
	}
	return attacks, dmg, nil
}

// hitMod sums the hit-roll modifiers of an attack (capped by HitNeed) and
// says what they are.
func hitMod(u, t *projector.Unit, w *events.WeaponSpec, kind string, mv, engaged, stat bool) (int, []string) {
	mod, why := 0, []string(nil)
	add := func(v int, what string) {
		mod += v
		why = append(why, fmt.Sprintf("%+d %s", v, what))
	}
	if kind == CloseQuarters && mv && !(engaged && projector.HasKeyword(w.Keywords, KwCQ)) {
		add(CQPenalty, "MONSTER/VEHICLE in close quarters")
	}
	if projector.HasKeyword(w.Keywords, KwHeavy) && stat {
		add(HeavyStationaryBonus, "[HEAVY], stationary")
	}
	if projector.HasKeyword(w.Keywords, KwPlusOneHit) || projector.HasKeyword(u.Keywords, KwPlusOneHit) {
		add(1, "ability")
	}
	if projector.HasKeyword(t.Keywords, KwStealth) {
		add(StealthPenalty, "target has STEALTH")
	}
	return mod, why
}

func hitReroll(u *projector.Unit, w *events.WeaponSpec) string {
	has := func(k string) bool { return projector.HasKeyword(w.Keywords, k) || projector.HasKeyword(u.Keywords, k) }
	switch {
	case has(KwRerollHits):
		return RuleHits
	case has(KwRerollHitOnes):
		return RuleHitOnes
	}
	return ""
}

func woundReroll(w *events.WeaponSpec) string {
	if projector.HasKeyword(w.Keywords, KwTwinLinked) {
		return RuleWounds
	}
	return ""
}

// spotted reports (computing it once, into *memo) whether another unit of
// the firing side sees a model of the target (indirect fire's 1–3 rule:
// seed 003 sets "your unit" apart from the "friendly units" that see the
// target, so the firing unit does not spot for itself).
func spotted(s *projector.State, w geom.World, u, t *projector.Unit, memo *int) bool {
	if *memo < 0 {
		var tb []geom.Body
		for _, m := range t.AliveModels() {
			tb = append(tb, projector.Body(t, m))
		}
		*memo = 0
		for _, f := range s.Units {
			if f.Player != u.Player || f.ID == u.ID {
				continue
			}
			for _, m := range f.AliveModels() {
				for _, b := range tb {
					if w.Sight(projector.Body(f, m), b, u.Player, b.Unit).Visible {
						*memo = 1
						return true
					}
				}
			}
		}
	}
	return *memo == 1
}

// toughness is the T the wound rolls use: the highest among the target's
// models on the table (defaults.go).
func toughness(t *projector.Unit) int {
	best := 0
	for _, m := range t.AliveModels() {
		best = max(best, m.T)
	}
	return best
}

func groupLabel(w *events.WeaponSpec, g Group, mods []string) string {
	parts := []string{fmt.Sprintf("%s BS%d+", w.DisplayName(), g.BS)}
	if g.Cover {
		parts = append(parts, "cover")
	}
	if len(mods) > 0 {
		m := strings.Join(mods, " ")
		if capMod(g.Mod) != g.Mod {
			m += fmt.Sprintf(" (capped at %+d)", capMod(g.Mod))
		}
		parts = append(parts, m)
	}
	if g.MinUnmod > 0 {
		parts = append(parts, fmt.Sprintf("indirect: 1–%d fail", g.MinUnmod-1))
	}
	return strings.Join(parts, ", ")
}
