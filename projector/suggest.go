package projector

import (
	"fmt"
	"slices"
	"strings"
)

// Suggest returns the candidate closest to key, for a "did you mean"
// after a typo: the same letters in another case or without '_' and '-',
// else at most two edits away; "" when nothing is that close. Ties go to
// the candidate that sorts first, so the answer never depends on order.
func Suggest(key string, candidates []string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	k := norm(key)
	best, bestD := "", 3
	for _, c := range candidates {
		if c == key {
			continue
		}
		d := Distance(norm(c), k)
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// withSuggestion adds a "did you mean" to a refusal about an id the
// command names and the match does not have (a unit, a model, a weapon):
// the closest id the match does have. Other errors pass unchanged.
func withSuggestion(s *State, c Command, err error) error {
	r, ok := AsRefusal(err)
	if !ok {
		return err
	}
	switch r.Code {
	case CodeUnknownUnit, CodeUnknownModel, CodeUnknownWeapon, CodeBadCasualty, CodeBadDistribute, CodeNotEligible, CodeBadCommand:
	default:
		return err
	}
	if hint := suggestFor(s, c); hint != "" && !strings.Contains(r.Reason, "did you mean") {
		return &Refusal{Code: r.Code, Reason: r.Reason + " " + hint}
	}
	return err
}

// suggestFor names the first id of c that the match lacks and the id it
// most likely meant, or "".
func suggestFor(s *State, c Command) string {
	var units, models []string
	for _, u := range s.Units {
		units = append(units, u.ID)
	}
	modelsOf := func(u *Unit) []string {
		var out []string
		for _, m := range u.Models {
			if m.Alive() {
				out = append(out, m.ID)
			}
		}
		return out
	}
	for _, u := range s.Units {
		models = append(models, modelsOf(u)...)
	}
	hint := func(what, id string, cands []string) string {
		if id == "" || slices.Contains(cands, id) {
			return ""
		}
		if best := Suggest(id, cands); best != "" {
			return fmt.Sprintf("(did you mean %s %q?)", what, best)
		}
		return ""
	}
	for _, id := range []string{c.Unit, c.Target} {
		if h := hint("unit", id, units); h != "" {
			return h
		}
	}
	own := models // the models the command's unit has, when it names one
	var weapons []string
	if u := s.Unit(c.Unit); u != nil {
		own = modelsOf(u)
		for _, w := range u.Weapons {
			weapons = append(weapons, w.ID)
		}
	}
	if h := hint("model", c.Model, own); h != "" {
		return h
	}
	target := models // casualties and distributions name the target's models
	if a := s.Attack; a != nil {
		if t := s.Unit(a.Target); t != nil {
			target = modelsOf(t)
		}
	}
	for _, id := range c.Models {
		if h := hint("model", id, target); h != "" {
			return h
		}
	}
	mids := make([]string, 0, len(c.Weapons))
	for m := range c.Weapons {
		mids = append(mids, m)
	}
	slices.Sort(mids)
	for _, m := range mids {
		if h := hint("model", m, own); h != "" {
			return h
		}
		if h := hint("weapon", c.Weapons[m], weapons); h != "" {
			return h
		}
	}
	return ""
}
