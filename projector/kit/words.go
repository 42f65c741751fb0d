package kit

import (
	"math"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/projector"
)

// How the editions' narration and the narrator put numbers and names into
// English: "1 shot" and "2 shots", "Ork Boyz shoot" and "Tactical Squad
// shoots", "9 boltguns and a heavy bolter".

// Count is n things: "1 shot", "20 shots", "0 models".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Plural reports whether a unit's name reads as a plural noun ("Ork
// Boyz", "Devastators") rather than a singular one ("Tactical Squad", "Nob
// Mob", "Squad S", "Chaplain Cassius"): its noun — its last word that is
// not a designation (a letter or two, a number, a Roman numeral: "Squad
// S", "Squad 2", "Squad IV") — ends in s or z, but not in ss, us or is.
// A name of designations only ("S", "A1") is one unit: singular. Plurals
// without an s are known by their ending (Guardsmen, Skitarii) or by name
// (Gretchin, Kroot).
func Plural(name string) bool {
	words := strings.Fields(name)
	for len(words) > 0 && designation(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return false
	}
	w := strings.ToLower(words[len(words)-1])
	switch {
	case strings.HasSuffix(w, "men"), strings.HasSuffix(w, "ii"), w == "gretchin", w == "kroot":
		return true
	}
	for _, single := range []string{"ss", "us", "is"} {
		if strings.HasSuffix(w, single) {
			return false
		}
	}
	return strings.HasSuffix(w, "s") || strings.HasSuffix(w, "z")
}

// Possessive is a unit's name with its possessive: "Tactical Squad's",
// "Chaplain Cassius's", "Cadian Guardsmen's", but "Veterans'" and "Ork
// Boyz'" — a plural name that ends in its s or z takes the apostrophe
// alone.
func Possessive(name string) string {
	if Plural(name) && (strings.HasSuffix(name, "s") || strings.HasSuffix(name, "z")) {
		return name + "'"
	}
	return name + "'s"
}

// designation reports whether a word of a name labels rather than names:
// one or two letters, anything with a digit, or a Roman numeral.
func designation(w string) bool {
	if len(w) <= 2 || strings.ContainsAny(w, "0123456789") {
		return true
	}
	return strings.Trim(w, "IVXLC") == "" && strings.ToUpper(w) == w
}

// Does is name followed by the verb that agrees with it: Does("Ork Boyz",
// "shoots", "shoot") is "Ork Boyz shoot".
func Does(name, singular, plural string) string {
	return name + " " + Verb(name, singular, plural)
}

// Verb is the form of a verb that agrees with name, for a second verb of
// the same subject: "Ork Boyz pile in and strike".
func Verb(name, singular, plural string) string {
	if Plural(name) {
		return plural
	}
	return singular
}

// Firing describes what an attack's models fire or fight with, weapon by
// weapon in the order they come: "9 boltguns and a heavy bolter".
func Firing(u *projector.Unit, a *projector.Attack) string {
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
			parts[i] = Article(name) + " " + name
		} else {
			parts[i] = strconv.Itoa(n) + " " + Pluralize(name)
		}
	}
	return List(parts, "nothing")
}

// List joins parts as English does: "a", "a and b", "a, b and c"; none
// when there are no parts.
func List(parts []string, none string) string {
	switch len(parts) {
	case 0:
		return none
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Article is "a" or "an" before name.
func Article(name string) string {
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) {
		return "an"
	}
	return "a"
}

// Pluralize is English enough for weapon names: boltgun → boltguns,
// heavy bolter → heavy bolters, flamer → flamers, shoota → shootas.
func Pluralize(name string) string {
	switch {
	case strings.HasSuffix(name, "s"), strings.HasSuffix(name, "z"):
		return name
	case strings.HasSuffix(name, "x"), strings.HasSuffix(name, "ch"), strings.HasSuffix(name, "sh"):
		return name + "es"
	}
	return name + "s"
}

// Inches prints a measurement without noise: 6, 4.5, 3.25.
func Inches(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}
