package ed11e

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

// The four shooting types (docs/rules/11e.md#shooting-types, 10.04–10.07):
// when a unit is eligible
// for each, and which weapons and targets each allows.

// isMV reports whether model m of unit u is a MONSTER or VEHICLE model
// (the keyword on the unit or on the model).
func isMV(u *projector.Unit, m *projector.Model) bool {
	for _, k := range []string{KwMonster, KwVehicle} {
		if projector.HasKeyword(u.Keywords, k) || projector.HasKeyword(m.Keywords, k) {
			return true
		}
	}
	return false
}

// unitIsMV reports whether any model of u on the table is MONSTER/VEHICLE.
func unitIsMV(u *projector.Unit) bool {
	for _, m := range u.AliveModels() {
		if isMV(u, m) {
			return true
		}
	}
	return false
}

// hasWeapon reports whether a model of u on the table carries a weapon
// with keyword kw.
func hasWeapon(u *projector.Unit, kw string) bool {
	for _, m := range u.AliveModels() {
		for _, wid := range m.Weapons {
			if w := u.Weapon(wid); w != nil && projector.HasKeyword(w.Keywords, kw) {
				return true
			}
		}
	}
	return false
}

// stationary reports whether u remained stationary this turn: no model
// moved and it did not advance.
func stationary(u *projector.Unit) bool { return !u.Moved && !u.Advanced }

// ineligible returns why u cannot make shooting type kind, or "".
func ineligible(u *projector.Unit, kind string) string {
	name := u.DisplayName()
	engaged := len(u.Engaged) > 0
	var why []string
	// it: the unit's pronoun, agreeing with its name ("Cadian Guardsmen
	// … they have"); is, has: its verbs.
	it := kit.Verb(name, "it", "they")
	is, has := it+" "+kit.Verb(name, "is", "are"), it+" "+kit.Verb(name, "has", "have")
	switch kind {
	case Normal:
		if engaged {
			why = append(why, is+" engaged")
		}
		if u.Advanced {
			why = append(why, it+" advanced this turn")
		}
	case Assault:
		if engaged {
			why = append(why, is+" engaged")
		}
		if !u.Advanced {
			why = append(why, it+" made no advance move this turn")
		}
		if !hasWeapon(u, KwAssault) {
			why = append(why, has+" no [ASSAULT] weapon")
		}
	case CloseQuarters:
		if !engaged {
			why = append(why, is+" not engaged")
		}
		if u.Advanced {
			why = append(why, it+" advanced this turn")
		}
		if !hasWeapon(u, KwCQ) && !unitIsMV(u) {
			why = append(why, has+" no [CLOSE-QUARTERS] weapon and "+kit.Verb(name, "is not a MONSTER or VEHICLE", "are not MONSTERS or VEHICLES"))
		}
	case Indirect:
		if engaged {
			why = append(why, is+" engaged")
		}
		if u.Advanced {
			why = append(why, it+" advanced this turn")
		}
		if !hasWeapon(u, KwIndirect) {
			why = append(why, has+" no [INDIRECT FIRE] weapon")
		}
	default:
		return fmt.Sprintf("%q is not a shooting type (%s)", kind, strings.Join(Types, ", "))
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("%s not eligible for %s shooting (%s): %s", kit.Does(name, "is", "are"), kind, section(kind), strings.Join(why, ", "))
}

// eligibleTypes lists the shooting types u may make.
func eligibleTypes(u *projector.Unit) []string {
	var out []string
	for _, k := range Types {
		if ineligible(u, k) == "" {
			out = append(out, k)
		}
	}
	return out
}

func section(kind string) string {
	switch kind {
	case Normal:
		return "10.04"
	case Assault:
		return "10.05"
	case CloseQuarters:
		return "10.06"
	}
	return "10.07"
}

// weaponBar returns why model m (MONSTER/VEHICLE or not) may not attack
// with w under shooting type kind, at a target the unit is or is not
// engaged with; "" when it may.
func weaponBar(kind string, w *events.WeaponSpec, mv, engaged bool, target string) string {
	name := w.DisplayName()
	switch kind {
	case Assault:
		if !projector.HasKeyword(w.Keywords, KwAssault) {
			return fmt.Sprintf("assault shooting allows only [ASSAULT] weapons (10.05): %s is not one", name)
		}
	case CloseQuarters:
		if mv {
			if engaged && projector.HasKeyword(w.Keywords, KwBlast) {
				return fmt.Sprintf("a [BLAST] weapon (%s) cannot target %s, a unit its unit is engaged with (10.06)", name, target)
			}
			return ""
		}
		if !engaged {
			return fmt.Sprintf("in close-quarters shooting a model that is not a MONSTER or VEHICLE may only target units engaged with its unit (10.06): %s is not", target)
		}
		if !projector.HasKeyword(w.Keywords, KwCQ) {
			return fmt.Sprintf("in close-quarters shooting a model that is not a MONSTER or VEHICLE may only use [CLOSE-QUARTERS] weapons (10.06): %s is not one", name)
		}
	}
	return ""
}
