package projector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// Lexicon is an optional ability of an edition: the words of a setup its
// rules read — weapon types and keywords. A setup that names a word the
// edition does not know is refused when the match is created
// (decideCreate, checkWords), so a misspelt or foreign word (a 6e weapon of
// type "artilery", an 11e [ASSAULT] on a 3e weapon) is never ignored in
// silence: the reading of a setup is as strict as the script format's.
type Lexicon interface {
	Lexicon() Words
}

// Words are the words of a setup an edition reads. Keywords are compared
// as HasKeyword compares them: case and brackets ignored.
type Words struct {
	// WeaponTypes are the values a weapon's type may take; a weapon may
	// leave it empty. None: the edition reads no weapon type, and a
	// weapon that names one is refused.
	WeaponTypes []string
	// WeaponKeywords, UnitKeywords and ModelKeywords are the keywords the
	// edition reads on weapons, units and models.
	WeaponKeywords []string
	UnitKeywords   []string
	ModelKeywords  []string
	// ModelPrefixes are model keywords that take an argument after a
	// space ("CHARGE D6"); the edition checks the argument (SetupChecker).
	ModelPrefixes []string
	// OpenKeywords: unit and model keywords besides those listed are a
	// datasheet's own (INFANTRY, BATTLELINE): kept in the setup and read
	// by no rule. Weapon keywords and types are never open.
	OpenKeywords bool
}

// checkWords refuses the first word of p that w does not know, naming
// where it is, what the edition reads there and, for a near miss, the
// word meant.
func checkWords(edition string, w Words, p *events.MatchCreated) error {
	for _, u := range p.Units {
		for _, wp := range u.Weapons {
			where := fmt.Sprintf("unit %s weapon %s", u.ID, wp.ID)
			if wp.Type != "" && !slices.Contains(w.WeaponTypes, wp.Type) {
				if len(w.WeaponTypes) == 0 {
					return fmt.Errorf("%s: type %q: %s weapons have no type (their keywords say what they are)", where, wp.Type, edition)
				}
				return fmt.Errorf("%s: type %q is not a weapon type %s reads (%s)%s", where, wp.Type, edition, strings.Join(w.WeaponTypes, ", "), meant(wp.Type, w.WeaponTypes))
			}
			if err := knownKeywords(edition, where, "weapon", wp.Keywords, w.WeaponKeywords, nil); err != nil {
				return err
			}
		}
		if w.OpenKeywords {
			continue
		}
		if err := knownKeywords(edition, "unit "+u.ID, "unit", u.Keywords, w.UnitKeywords, nil); err != nil {
			return err
		}
		for _, m := range u.Models {
			if err := knownKeywords(edition, fmt.Sprintf("unit %s model %s", u.ID, m.ID), "model", m.Keywords, w.ModelKeywords, w.ModelPrefixes); err != nil {
				return err
			}
		}
	}
	return nil
}

// knownKeywords refuses the first of kws that is neither in known nor one
// of prefixes followed by an argument.
func knownKeywords(edition, where, what string, kws, known, prefixes []string) error {
	for _, kw := range kws {
		if HasKeyword(known, kw) || hasPrefixWord(kw, prefixes) {
			continue
		}
		all := slices.Clone(known)
		for _, p := range prefixes {
			all = append(all, p+" <...>")
		}
		if len(all) == 0 {
			return fmt.Errorf("%s: keyword %q: %s reads no %s keywords", where, kw, edition, what)
		}
		return fmt.Errorf("%s: keyword %q is not a %s keyword %s reads (%s)%s", where, kw, what, edition, strings.Join(all, ", "), meant(strings.ToUpper(trimKeyword(kw)), known))
	}
	return nil
}

// hasPrefixWord reports whether kw is one of prefixes, a space and an
// argument.
func hasPrefixWord(kw string, prefixes []string) bool {
	k := trimKeyword(kw)
	for _, p := range prefixes {
		if len(k) > len(p)+1 && strings.EqualFold(k[:len(p)], p) && k[len(p)] == ' ' {
			return true
		}
	}
	return false
}

// meant is a " (did you mean …?)" for a near miss, or "".
func meant(word string, known []string) string {
	if best := Suggest(word, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// Fit drops from units the weapon types and keywords w does not hold (a
// keyword w takes as a prefix and argument is kept) and returns what it
// dropped, as "unit U: KEYWORD" and "unit U weapon W: KEYWORD", in the
// units' order. It is for setups made from a source that names words of
// several editions — generated profiles, a list builder's roster — so
// that what the edition refuses (checkWords) is left out knowingly.
func (w Words) Fit(units []events.UnitSpec) (dropped []string) {
	keep := func(where string, kws, known, prefixes []string) []string {
		var out []string
		for _, k := range kws {
			if HasKeyword(known, k) || hasPrefixWord(k, prefixes) {
				out = append(out, k)
			} else {
				dropped = append(dropped, where+": "+k)
			}
		}
		return out
	}
	for i := range units {
		u := &units[i]
		if !w.OpenKeywords {
			u.Keywords = keep("unit "+u.ID, u.Keywords, w.UnitKeywords, nil)
			for j := range u.Models {
				m := &u.Models[j]
				m.Keywords = keep(fmt.Sprintf("unit %s model %s", u.ID, m.ID), m.Keywords, w.ModelKeywords, w.ModelPrefixes)
			}
		}
		for j := range u.Weapons {
			wp := &u.Weapons[j]
			where := fmt.Sprintf("unit %s weapon %s", u.ID, wp.ID)
			if wp.Type != "" && !slices.Contains(w.WeaponTypes, wp.Type) {
				dropped = append(dropped, where+": type "+wp.Type)
				wp.Type = ""
			}
			wp.Keywords = keep(where, wp.Keywords, w.WeaponKeywords, nil)
		}
	}
	return dropped
}
