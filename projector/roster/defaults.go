package roster

// What a roster does not say and a match needs, in one place (engine
// defaults: docs/rosters.md#what-is-not-in-a-roster).
const (
	// Bases and heights: a roster names no base size or model height.
	// Infantry stand on the classic 25 mm base (modern 32 mm), 1.5" tall;
	// a model with a big keyword (BigKeywords) on a 60 mm base, 3" tall.
	ClassicBaseMM  = 25.0
	ModernBaseMM   = 32.0
	InfantryHeight = 1.5
	BigBaseMM      = 60.0
	BigHeight      = 3.0

	// templateRange is the Range of a classic weapon whose Range says
	// "Template": the flame template's length (docs/rules/6e.md).
	templateRange = 8.0
)

// BigKeywords make a model big (base and height above).
var BigKeywords = []string{"MONSTER", "VEHICLE", "MONSTROUS CREATURE", "WALKER", "TITANIC"}

// skipCategories are categories that are no keywords: force organisation
// slots and list-builder bookkeeping.
var skipCategories = []string{"configuration", "uncategorised", "uncategorized", "hq", "troops", "elites",
	"fast attack", "heavy support", "lords of war", "dedicated transport", "fortification",
	"no force org slot", "no force org", "primary detachment", "unit"}
