package ed6e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// HitNeed is the first hit roll's target for a BS
// (docs/rules/6e.md#roll-to-hit): BS1 6+ …
// BS5 2+, and 2+ from BS6 on; BS 0 or less cannot hit (7+).
func HitNeed(bs int) int {
	return bsRow(bs).hit
}

// RerollNeed is the target of the re-roll of a 1 that BS6 and above grant
// (BS6 6+, BS7 5+, BS8 4+, BS9 3+, BS10 2+), or 0 below BS6.
func RerollNeed(bs int) int {
	return bsRow(bs).reroll
}

func bsRow(bs int) struct{ hit, reroll int } {
	switch {
	case bs <= 0:
		return bsTable[0]
	case bs >= len(bsTable):
		return bsTable[len(bsTable)-1]
	}
	return bsTable[bs]
}

// PHit is the exact chance one shot at bs hits, counting the BS6+ re-roll
// of a 1 (no re-roll for snap shots: they are fired at SnapBS).
func PHit(bs int) float64 {
	return rules.P(HitNeed(bs)) + rules.P(1)/6*rules.P(RerollNeed(bs))
}

// WSHitNeed is the close-combat hit roll for attacker WS att against
// target WS def (default table).
func WSHitNeed(att, def int) int {
	switch {
	case att > def:
		return WSHitHigher
	case def > wsOutclassFactor*att:
		return WSHitOutclassed
	}
	return WSHitNotHalf
}

// snapProblem says why w cannot snap fire, or "" when it can
// (docs/rules/6e.md#snap-shots: artillery, templates, blast weapons and
// weapons that do not use BS cannot).
func snapProblem(w *events.WeaponSpec) string {
	switch {
	case w.Type == Artillery:
		return "an artillery weapon"
	case projector.HasKeyword(w.Keywords, KwTemplate):
		return "a template weapon"
	case projector.HasKeyword(w.Keywords, KwBlast):
		return "a blast weapon"
	case projector.HasKeyword(w.Keywords, KwNoBS):
		return "a weapon that does not use BS"
	}
	return ""
}

// autoHits reports whether w hits without a hit roll, Shots times: a
// weapon that does not use BS (KwNoBS). Templates and blasts hit the
// models under their markers (markers.go).
func autoHits(w *events.WeaponSpec) bool {
	return projector.HasKeyword(w.Keywords, KwNoBS)
}

func masterCrafted(w *events.WeaponSpec) bool {
	return w != nil && projector.HasKeyword(w.Keywords, KwMasterCrafted)
}

func isCharacter(m *projector.Model) bool {
	return hasAny(m.Keywords, KwCharacter) || isIndependent(m)
}

func isIndependent(m *projector.Model) bool { return hasAny(m.Keywords, KwIndependent) }

func hasAny(kws []string, names []string) bool {
	for _, n := range names {
		if projector.HasKeyword(kws, n) {
			return true
		}
	}
	return false
}

// shotsFor is the number of shots of weapon w (see the weapon types in
// defaults.go); closest is the distance to the closest visible target
// model.
func shotsFor(w *events.WeaponSpec, moved bool, closest float64) int {
	n := max(w.Shots, 1)
	switch w.Type {
	case RapidFire:
		if closest <= w.Range/2+eps {
			return RapidFireShots
		}
		return 1
	case Salvo:
		if moved {
			return (n + 1) / 2
		}
	}
	return n
}

// reachOf is how far w fires: a moved salvo weapon only to half range.
func reachOf(w *events.WeaponSpec, moved bool) float64 {
	if moved && w.Type == Salvo {
		return w.Range / 2
	}
	return w.Range
}

// weaponName names a weapon; nil is the close combat weapon a model
// without one fights with.
func weaponName(w *events.WeaponSpec) string {
	if w == nil {
		return CloseCombatWeapon
	}
	return w.DisplayName()
}

// meleeWeapon is the first close-combat weapon m carries, or nil.
func meleeWeapon(u *projector.Unit, m *projector.Model) *events.WeaponSpec {
	for _, id := range m.Weapons {
		if w := u.Weapon(id); w != nil && w.Type == Melee {
			return w
		}
	}
	return nil
}

// apLabel prints an AP: "-" for none.
func apLabel(ap int) string {
	if ap <= 0 {
		return "-"
	}
	return fmt.Sprint(ap)
}
