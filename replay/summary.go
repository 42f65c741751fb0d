package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/projector"
)

// Summary tells a completed attack in one line, from its outcomes:
//
//	Turn 2 — Tactical Squad fires 9 boltguns and a heavy bolter (21 shots) at
//	Ork Boyz: 12 hits on 3+, 6 wounds on 4+, 2 saves on 6+ — 4 models removed
//	(Ork Boy ×4)
//
// Stages the attack never reached (no hits, so no wound roll) are left out.
func Summary(s *projector.State, a *projector.Attack) string {
	u, t := s.Unit(a.Firer), s.Unit(a.Target)
	firer, target := a.Firer, a.Target
	if u != nil {
		firer = u.DisplayName()
	}
	if t != nil {
		target = t.DisplayName()
	}
	// "fires 9 boltguns (9 shots) at", "fires Overwatch: 4 shootas (8
	// shots) at", "fights with a power sword and 4 close combat weapons
	// (6 attacks) against".
	verb, shots, at := "fires", "shots", "at"
	switch a.Type {
	case "", projector.AttackShooting:
	case projector.AttackOverwatch:
		verb = "fires Overwatch:"
	case projector.AttackMelee:
		verb, shots, at = "fights with", "attacks", "against"
	default:
		verb = a.Type + ":"
	}
	weapons := ""
	if u != nil {
		weapons = " " + firing(u, a)
	}
	var parts []string
	hits, wounds, saves := needs(a, "hit"), needs(a, "wound"), needs(a, "save")
	parts = append(parts, plural(a.Hits, "hit", "hits")+onNeed(hits))
	if a.Hits > 0 {
		if len(wounds) == 0 {
			parts = append(parts, "none can wound")
		} else {
			parts = append(parts, plural(a.Wounds, "wound", "wounds")+onNeed(wounds))
		}
	}
	if len(saves) > 0 {
		parts = append(parts, plural(a.Saves, "save", "saves")+onNeed(saves))
	} else if a.Wounds > 0 {
		parts = append(parts, "no save")
	}
	turn := s.Turn
	if a.Turn != 0 { // the turn it was declared in (an Overwatch is in the other player's)
		turn = a.Turn
	}
	out := fmt.Sprintf("Turn %d — %s %s%s (%d %s) %s %s: %s — %s", turn, firer, verb, weapons, a.Shots, shots, at, target,
		strings.Join(parts, ", "), casualties(s, a, t))
	return out
}

// firing describes what a unit fires: "9 boltguns and a heavy bolter".
func firing(u *projector.Unit, a *projector.Attack) string {
	var order []string
	count := map[string]int{}
	for _, sh := range a.Shooters {
		name := sh.Weapon
		if w := u.Weapon(sh.Weapon); w != nil {
			name = w.DisplayName()
		}
		if name == "" { // melee without a special weapon
			name = "close combat weapon"
		}
		if count[name] == 0 {
			order = append(order, name)
		}
		count[name]++
	}
	parts := make([]string, len(order))
	for i, name := range order {
		if n := count[name]; n == 1 {
			parts[i] = article(name) + " " + name
		} else {
			parts[i] = strconv.Itoa(n) + " " + pluralize(name)
		}
	}
	switch len(parts) {
	case 0:
		return "nothing"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// needs lists the distinct target numbers of an attack's steps of one
// purpose, in step order.
func needs(a *projector.Attack, purpose string) []int {
	var out []int
	for _, d := range a.Steps {
		if d.Purpose == purpose && d.Rolled() && !slices.Contains(out, d.Need) {
			out = append(out, d.Need)
		}
	}
	return out
}

func onNeed(ns []int) string {
	if len(ns) == 0 {
		return ""
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n) + "+"
	}
	return " on " + strings.Join(s, "/")
}

// casualties tells what the attack removed, grouping models by name.
func casualties(s *projector.State, a *projector.Attack, t *projector.Unit) string {
	if len(a.Casualties) == 0 {
		if a.Unsaved > 0 {
			return plural(a.Unsaved, "unsaved wound", "unsaved wounds") + ", no model removed"
		}
		return "no casualties"
	}
	var order []string
	count := map[string]int{}
	for _, id := range a.Casualties {
		name := id
		if _, m := s.FindModel(id); m != nil && m.Name != "" {
			name = m.Name
		}
		if count[name] == 0 {
			order = append(order, name)
		}
		count[name]++
	}
	var groups []string
	for _, name := range order {
		if n := count[name]; n > 1 {
			groups = append(groups, fmt.Sprintf("%s ×%d", name, n))
		} else {
			groups = append(groups, name)
		}
	}
	out := fmt.Sprintf("%s removed (%s)", plural(len(a.Casualties), "model", "models"), strings.Join(groups, ", "))
	if t != nil && t.Destroyed() {
		out += "; " + t.DisplayName() + " is destroyed"
	}
	return out
}

func article(name string) string {
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		return "an"
	}
	return "a"
}

// pluralize is English enough for weapon names: boltgun → boltguns,
// heavy bolter → heavy bolters, flamer → flamers, shoota → shootas.
func pluralize(name string) string {
	switch {
	case strings.HasSuffix(name, "s"), strings.HasSuffix(name, "z"):
		return name
	case strings.HasSuffix(name, "x"), strings.HasSuffix(name, "ch"), strings.HasSuffix(name, "sh"):
		return name + "es"
	}
	return name + "s"
}
