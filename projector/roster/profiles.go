package roster

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// kind is what a profile describes, by its type and characteristics.
type kind int

const (
	kindUnknown kind = iota
	kindModel        // a model's characteristics (typeName Unit)
	kindWeapon       // a weapon's (Weapon, Ranged Weapons, Melee Weapons)
	kindVehicle      // armour values, hull or structure points: no editions here plays them
	kindInfo         // text only: abilities, wargear, psychic powers, transport capacity
)

// infoTypes are profile types that only describe (read for nothing, left
// out), armourChars the characteristics of vehicle profiles.
var (
	infoTypes = []string{"abilities", "ability", "wargear", "wargear item", "psyker", "psychic power", "psychic powers",
		"transport", "keywords", "rules", "unit composition", "orders", "enhancement", "enhancements", "stratagem",
		"detachment rule", "warlord trait", "relic", "prayer", "power", "explodes", "damage"}
	armourChars = []string{"front", "side", "rear", "front armor", "front armour", "side armor", "side armour",
		"rear armor", "rear armour", "hp", "hull points", "structure points", "armour", "armor"}
	textChars  = []string{"description", "capacity", "details", "effect", "ability", "abilities", "other", "text"}
	modelTypes = []string{"unit", "model", "models"}
)

func classify(p *Profile) kind {
	t := strings.ToLower(p.Type)
	for _, c := range p.Characteristics {
		if slices.Contains(armourChars, strings.ToLower(c.Name)) {
			return kindVehicle
		}
	}
	switch {
	case slices.Contains(modelTypes, t):
		return kindModel
	case strings.Contains(t, "weapon"):
		return kindWeapon
	case t == "vehicle" || t == "walker" || strings.Contains(t, "super heavy") || t == "flyer":
		return kindVehicle
	case slices.Contains(infoTypes, t):
		return kindInfo
	}
	for _, c := range p.Characteristics {
		if !slices.Contains(textChars, strings.ToLower(c.Name)) {
			return kindUnknown
		}
	}
	return kindInfo
}

// charNames lists a profile's characteristic names, for messages.
func charNames(p *Profile) string {
	var n []string
	for _, c := range p.Characteristics {
		n = append(n, c.Name)
	}
	return strings.Join(n, " ")
}

// get returns the value of the first of names p has (case ignored).
func (p *Profile) get(names ...string) (string, bool) {
	for _, n := range names {
		for _, c := range p.Characteristics {
			if strings.EqualFold(c.Name, n) {
				return c.Value, true
			}
		}
	}
	return "", false
}

// profileErr is an ErrProfile naming where: the selection's path, the
// profile and the characteristic.
func profileErr(path string, p *Profile, format string, args ...any) error {
	return fmt.Errorf("%w: %s: profile %q (%s): %s", ErrProfile, path, p.Name, p.Type, fmt.Sprintf(format, args...))
}

// value is the required characteristic of the first of names p has.
func value(path string, p *Profile, names ...string) (string, error) {
	v, ok := p.get(names...)
	if !ok {
		return "", profileErr(path, p, "no %s characteristic (it has %s)", names[0], charNames(p))
	}
	return v, nil
}

// dashed reads a required characteristic that may be a dash (none):
// dash reports one, which is an error unless dashOK.
func dashed(path string, p *Profile, dashOK bool, need string, names ...string) (v string, dash bool, err error) {
	if v, err = value(path, p, names...); err != nil {
		return "", false, err
	}
	if !isDash(v) {
		return v, false, nil
	}
	if !dashOK {
		return v, true, profileErr(path, p, "%s is %q: %s", names[0], v, need)
	}
	return v, true, nil
}

// stat reads a required whole-number characteristic; dash (a model that
// has none) gives 0 when dashOK.
func stat(path string, p *Profile, dashOK bool, names ...string) (int, error) {
	v, dash, err := dashed(path, p, dashOK, "a model needs a number there", names...)
	if err != nil || dash {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, profileErr(path, p, "%s %q is not a number", names[0], v)
	}
	return n, nil
}

// target reads a D6 target number ("3+"); dash gives 0 (none) when dashOK.
func target(path string, p *Profile, dashOK bool, names ...string) (int, error) {
	v, dash, err := dashed(path, p, dashOK, "the edition needs a target number (2+ to 6+)", names...)
	if err != nil || dash {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), "+"))
	if err != nil || n < 2 || n > 7 {
		return 0, profileErr(path, p, "%s %q is not a target number (2+ to 6+)", names[0], v)
	}
	return n, nil
}

func isDash(v string) bool {
	switch strings.TrimSpace(v) {
	case "-", "–", "—", "":
		return true
	}
	return false
}

// inches reads a distance: `24"`, `24”`, `24`.
func inches(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	v = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(v, `"`), "''"), "”")
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil && f >= 0
}

// invulnRe finds an invulnerable save in a rule's or ability's text:
// "4+ invulnerable save", "Invulnerable Save (5+)".
var invulnRe = regexp.MustCompile(`(?i)([2-6])\+\s*invulnerable\s+save|invulnerable\s+save[^0-9]{0,12}([2-6])\+`)

// invulnerable is the best invulnerable save the rules and info profiles
// of sels (and their upgrades) give, 0 for none.
func invulnerable(sels ...*Selection) int {
	best := 0
	take := func(text string) {
		m := invulnRe.FindStringSubmatch(text)
		if m == nil {
			return
		}
		n, _ := strconv.Atoi(m[1] + m[2])
		if best == 0 || n < best {
			best = n
		}
	}
	var walk func(s *Selection, top bool)
	walk = func(s *Selection, top bool) {
		if !top && isModelSelection(s) {
			return // another model's own
		}
		for _, r := range s.Rules {
			take(r.Name + " " + r.Description)
		}
		for i := range s.Profiles {
			p := &s.Profiles[i]
			if p.Hidden || classify(p) != kindInfo {
				continue
			}
			if strings.Contains(strings.ToLower(p.Name), "invulnerable") {
				for _, c := range p.Characteristics {
					take(p.Name + " " + c.Value)
					if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(c.Value), "+")); err == nil && n >= 2 && n <= 6 && (best == 0 || n < best) {
						best = n
					}
				}
				continue
			}
			for _, c := range p.Characteristics {
				take(c.Value)
			}
		}
		for i := range s.Selections {
			walk(&s.Selections[i], false)
		}
	}
	for _, s := range sels {
		walk(s, true)
	}
	return best
}

// isModelSelection: a selection that is one or more models (its type, or
// a model profile of its own on an upgrade, as some catalogues write them).
func isModelSelection(s *Selection) bool {
	if s.Type == "model" {
		return true
	}
	for i := range s.Profiles {
		if !s.Profiles[i].Hidden && classify(&s.Profiles[i]) == kindModel {
			return true
		}
	}
	return false
}
