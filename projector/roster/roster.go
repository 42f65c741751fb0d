// Package roster reads the army lists players build in BattleScribe or New
// Recruit — roster files, .ros (XML) and .rosz (the same zipped), of the
// public BattleScribe roster schema — into the units, models, weapons and
// keywords of a match of one edition (docs/rosters.md).
//
// A roster is what a list builder resolved from the BSData catalogues: the
// chosen selections (units, models, upgrades), each with the profiles it
// shows (a model's characteristics, a weapon's), its rules and its
// categories. Reading it takes three steps, each its own file:
//
//   - xml.go: the file into a Roster (Read, Parse): well-formed XML of
//     the roster schema, or a zip holding one;
//   - system.go: its game system against the match's edition: the
//     classic stat line (WS BS S T W I A Ld Sv; 3rd to 7th edition) for
//     3e and 6e, the modern one (M T Sv W Ld OC) for 11e;
//   - convert.go with classic.go and modern.go: the selections into
//     events.UnitSpec, every characteristic mapped onto the projector's
//     model and weapon fields, or refused with an error naming the
//     selection, the profile and the characteristic.
//
// Positions are not in a roster: a match script's deploy steps place the
// units (projector/script, deploy.go).
package roster

import "errors"

// Errors, each wrapped with what it is about.
var (
	// ErrInvalid: the file is not a readable roster (malformed XML, a zip
	// without a .ros, another kind of BattleScribe file, too large).
	ErrInvalid = errors.New("not a readable roster")
	// ErrGameSystem: the roster is of a game system the match's edition
	// cannot read (another game, or a stat line of other editions).
	ErrGameSystem = errors.New("roster of another game system")
	// ErrProfile: a profile the edition cannot use (a vehicle's armour, a
	// characteristic that is not a number, a weapon type it does not play).
	ErrProfile = errors.New("profile the edition cannot use")
)

// Namespace is the XML namespace of BattleScribe (and New Recruit) rosters.
const Namespace = "http://www.battlescribe.net/schema/rosterSchema"

// MaxBytes bounds a roster file, and the .ros inside a .rosz once unzipped:
// a list of a few thousand points is tens of kilobytes.
const MaxBytes = 8 << 20

// Roster is a roster file as read: its game system and its forces.
type Roster struct {
	File           string // the file it was read from (for messages)
	Name           string
	GameSystemID   string
	GameSystemName string
	Forces         []Force
}

// Force is a force (a detachment) of a roster, from one catalogue.
type Force struct {
	Name       string
	Catalogue  string
	Selections []Selection
	Forces     []Force
}

// Selection is one chosen entry: a unit, a model or an upgrade (a weapon,
// wargear), Number times, with what it shows and what it holds.
type Selection struct {
	Name       string
	CustomName string // the name the player gave it, if any
	Type       string // unit, model or upgrade
	Number     int
	Profiles   []Profile
	Rules      []Rule
	Categories []string
	Selections []Selection
}

// DisplayName is the player's name for the selection, else its own.
func (s *Selection) DisplayName() string {
	if s.CustomName != "" {
		return s.CustomName
	}
	return s.Name
}

// Profile is a profile a selection shows: a model's characteristics, a
// weapon's, an ability's text. Type is the profile type's name (Unit,
// Weapon, Ranged Weapons, Abilities, ...).
type Profile struct {
	Name            string
	Type            string
	Hidden          bool
	Characteristics []Characteristic
}

// Characteristic is one named value of a profile, as written ("3+", `24"`).
type Characteristic struct {
	Name  string
	Value string
}

// Rule is a special rule a selection has, with its text.
type Rule struct {
	Name        string
	Description string
}
