package roster

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// family is a stat line: the characteristics a game system's profiles
// carry, which decides how they map onto a match's models and weapons.
type family int

const (
	classic family = iota + 1 // WS BS S T W I A Ld Sv; weapons Range S AP Type (3rd–7th edition)
	modern                    // M T Sv W Ld OC; weapons Range A BS/WS S AP D Keywords (10th–11th)
)

// The BSData game systems whose ids are known (their names say the
// edition too, which is what an unknown id is read by): the BattleScribe
// and New Recruit ids of the Warhammer 40,000 data sets.
var knownSystems = map[string]int{
	"96e2-b781-50d7-3d18":                  3,  // Warhammer 40k 3rd Edition
	"e1ebd931-a209-3ce4-87b4-d9918d25530b": 7,  // Warhammer 40,000 7th Edition
	"28ec-711c-d87f-3aeb":                  9,  // Warhammer 40,000 8th/9th Edition
	"sys-352e-adc2-7639-d6a9":              10, // Warhammer 40,000 10th Edition
	"sys-352e-adc2-7639-d610":              11, // Warhammer 40,000 11th Edition
}

var (
	is40k       = regexp.MustCompile(`(?i)\bwarhammer\s*40\s*[,.]?\s*(000|k)\b|\bwh40k\b`)
	editionName = regexp.MustCompile(`(?i)\b(\d{1,2})(st|nd|rd|th)\s+ed(ition)?\b`)
)

// accepts says, for each match edition, the stat line it reads and the
// game systems' editions it takes, its own first.
var accepts = map[string]struct {
	family   family
	editions []int
}{
	"3e":  {classic, []int{3, 4, 5, 6, 7}},
	"6e":  {classic, []int{6, 7, 3, 4, 5}},
	"11e": {modern, []int{11, 10}},
}

// SuggestEdition is the match edition that reads r's profiles best: 3e
// for a 3rd-edition roster, 6e for 4th to 7th, 11e for 10th and 11th.
func SuggestEdition(r *Roster) (string, error) {
	n, err := systemEdition(r)
	if err != nil {
		return "", err
	}
	switch {
	case n == 3:
		return "3e", nil
	case n >= 4 && n <= 7:
		return "6e", nil
	case n == 10 || n == 11:
		return "11e", nil
	}
	return "", fmt.Errorf("%w: %s is a %s roster: matchrec reads the stat lines of the 3rd to 7th and of the 10th and 11th editions", ErrGameSystem, r.File, describe(r))
}

// systemEdition is the edition of Warhammer 40,000 r's game system is.
func systemEdition(r *Roster) (int, error) {
	if n, ok := knownSystems[r.GameSystemID]; ok {
		return n, nil
	}
	name := r.GameSystemName
	if !is40k.MatchString(name) {
		return 0, fmt.Errorf("%w: %s is a %s roster, not one of Warhammer 40,000", ErrGameSystem, r.File, describe(r))
	}
	m := editionName.FindStringSubmatch(name)
	if m == nil {
		return 0, fmt.Errorf("%w: %s: game system %s says no edition of Warhammer 40,000", ErrGameSystem, r.File, describe(r))
	}
	n, _ := strconv.Atoi(m[1])
	return n, nil
}

func describe(r *Roster) string {
	name := r.GameSystemName
	if name == "" {
		name = "unnamed game system"
	}
	if r.GameSystemID != "" {
		return fmt.Sprintf("%q (id %s)", name, r.GameSystemID)
	}
	return fmt.Sprintf("%q", name)
}

// checkSystem says whether a match of edition reads r's profiles, which
// stat line they are, and a note when the roster is of a neighbouring
// edition of the same stat line.
func checkSystem(r *Roster, edition string) (family, string, error) {
	acc, ok := accepts[edition]
	if !ok {
		return 0, "", fmt.Errorf("%w: edition %q: rosters are read for 3e, 6e and 11e", ErrGameSystem, edition)
	}
	n, err := systemEdition(r)
	if err != nil {
		return 0, "", err
	}
	for i, e := range acc.editions {
		if e != n {
			continue
		}
		note := ""
		if i > 0 {
			note = fmt.Sprintf("a %s-edition roster read for %s %s match: its profiles share the %s stat line; its points and special rules are its edition's",
				ordinal(n), article(edition), edition, familyName(acc.family))
		}
		return acc.family, note, nil
	}
	var eds []string
	for _, e := range acc.editions {
		eds = append(eds, ordinal(e))
	}
	return 0, "", fmt.Errorf("%w: %s is a %s roster (%s edition); %s %s match reads rosters of the %s stat line (%s editions)",
		ErrGameSystem, r.File, describe(r), ordinal(n), article(edition), edition, familyName(acc.family), strings.Join(eds, ", "))
}

// article is "an" before an edition said with a vowel ("an 11e match").
func article(edition string) string {
	if strings.HasPrefix(edition, "11") || strings.HasPrefix(edition, "8") {
		return "an"
	}
	return "a"
}

func familyName(f family) string {
	if f == modern {
		return "M T Sv W Ld OC"
	}
	return "WS BS S T W I A Ld Sv"
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return strconv.Itoa(n) + "th"
}
