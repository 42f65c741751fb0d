package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

// Summary tells a completed attack in one line, from its outcomes:
//
//	Turn 2 — Tactical Squad fires 9 boltguns and a heavy bolter (21 shots) at
//	Ork Boyz: 12 hits on 3+, 6 wounds on 4+, 2 saves on 6+ — 4 models removed
//	(Ork Boy ×4)
//
// Stages the attack never reached (no hits, so no wound roll) are left out.
// rules, when it tells more of its attacks (projector.AttackNarration),
// adds its notes; it may be nil.
func Summary(rules projector.Rules, s *projector.State, a *projector.Attack) string {
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
	verb, shot, shots, at := kit.Does(firer, "fires", "fire"), "shot", "shots", "at"
	switch a.Type {
	case "", projector.AttackShooting:
	case projector.AttackOverwatch:
		verb = kit.Does(firer, "fires", "fire") + " Overwatch:"
	case projector.AttackMelee:
		verb, shot, shots, at = kit.Does(firer, "fights", "fight")+" with", "attack", "attacks", "against"
	default:
		verb = firer + " " + a.Type + ":"
	}
	weapons := ""
	if u != nil {
		weapons = " " + kit.Firing(u, a)
	}
	var parts []string
	hits, wounds, saves := needs(a, "hit"), needs(a, "wound"), needs(a, "save")
	parts = append(parts, kit.Count(a.Hits, "hit", "hits")+onNeed(hits))
	if a.Hits > 0 {
		if len(wounds) == 0 {
			parts = append(parts, "none can wound")
		} else {
			parts = append(parts, kit.Count(a.Wounds, "wound", "wounds")+onNeed(wounds))
		}
	}
	if len(saves) > 0 {
		parts = append(parts, kit.Count(a.Saves, "save", "saves")+onNeed(saves))
	} else if a.Wounds > 0 {
		parts = append(parts, "no save")
	}
	turn := s.Turn
	if a.Turn != 0 { // the turn it was declared in (an Overwatch is in the other player's)
		turn = a.Turn
	}
	count := " (" + kit.Count(a.Shots, shot, shots) + ")"
	if a.Shots == 0 && a.Hits > 0 { // hits its shots made on another attack's target (a blast that strayed)
		count = ""
	}
	out := fmt.Sprintf("Turn %d — %s%s%s %s %s: %s — %s", turn, verb, weapons, count, at, target,
		strings.Join(parts, ", "), casualties(s, a, t))
	if an, ok := rules.(projector.AttackNarration); ok {
		for _, note := range an.AttackNotes(s, a) {
			out += "; " + note
		}
	}
	return out
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
			return kit.Count(a.Unsaved, "unsaved wound", "unsaved wounds") + ", no model removed"
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
	out := fmt.Sprintf("%s removed (%s)", kit.Count(len(a.Casualties), "model", "models"), strings.Join(groups, ", "))
	if t != nil && t.Destroyed() {
		out += "; " + kit.Does(t.DisplayName(), "is", "are") + " destroyed"
	}
	return out
}
