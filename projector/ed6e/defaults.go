package ed6e

import "github.com/matchrec/matchrec/projector"

// Every value this edition uses, from docs/rules/6e.md (seed 000) and, where
// the text is silent, the engine's defaults, is here and only here, so a
// table or a later reading of the rules changes one file. "(default)"
// marks the rules' own defaults and "(engine)" the choices they do not make
// at all, as docs/rules/README.md#how-to-read-an-edition-file defines them.

// Edition id.
const Edition = "6e"

// Movement and sight.
const (
	// Move is the move allowance of a model whose profile has none (engine).
	Move = 6.0
	// WoodsVisibility is how far a model sees into woods whose piece does
	// not say: the 3e area rule, which geom.Sight applies to 6e too (engine).
	WoodsVisibility = 6.0
)

// Weapon types (events.WeaponSpec.Type) this edition reads (engine: the
// standard 6e profiles: docs/rules/6e.md#weapon-types).
const (
	RapidFire = "rapid-fire" // 2 shots up to half range, 1 up to full range, moved or not
	Assault   = "assault"    // Shots shots, moved or not
	Heavy     = "heavy"      // Shots shots; snap shots if the unit moved (docs/rules/6e.md#snap-shots)
	Pistol    = "pistol"     // Shots shots (at least 1), moved or not
	Salvo     = "salvo"      // stationary: Shots at full range; moved: half of them (rounded up) at half range
	Melee     = "melee"      // close-combat weapon: never shoots; S (0 = the model's) and AP in a fight
	// Artillery N: Shots shots, and never snap shots (the source: «comme
	// pour l'artillerie … ne peuvent pas servir à faire des tirs au jugé»):
	// it does not fire Overwatch or forced snap fire, nor after its model
	// moved, when it would fire as a Heavy weapon does, at BS1 (engine:
	// docs/rules/6e.md#weapon-types).
	Artillery = "artillery"
)

// RapidFireShots is what a rapid-fire weapon fires up to half its range
// (1 beyond) (engine, standard 6e).
const RapidFireShots = 2

// Weapon keywords (events.WeaponSpec.Keywords, matched by
// projector.HasKeyword: case and brackets ignored).
const (
	// KwTemplate and KwBlast weapons cannot snap fire
	// (docs/rules/6e.md#snap-shots; keywords: docs/rules/6e.md#weapon-types).
	// Each of their shots is a marker placed on the table and the models
	// under it are hit (docs/rules/6e.md#templates-and-blasts): a template
	// is laid from the firer's base, a blast placed over a target model and
	// scattered. KwLargeBlast (or LARGE-BLAST) makes a blast the large
	// marker.
	KwTemplate   = "TEMPLATE"
	KwBlast      = "BLAST"
	KwLargeBlast = "LARGE BLAST"
	// KwNoBS marks a weapon that does not use BS: it cannot snap fire
	// (docs/rules/6e.md#snap-shots) and hits automatically, Shots times.
	KwNoBS = "NO-BS"
	// KwMasterCrafted grants a re-roll of failed hit rolls that replaces
	// the BS6+ table and needs the same number as the first roll
	// (docs/rules/6e.md#master-crafted-weapons).
	KwMasterCrafted = "MASTER-CRAFTED"
)

// KwLargeBlastAlt is KwLargeBlast written with a hyphen.
const KwLargeBlastAlt = "LARGE-BLAST"

// KwVehicle on a unit: it never takes a Pinning test
// (docs/rules/6e.md#morale-and-pinning-from-shooting); on a unit or a
// model, it blocks sight as in 3e (projector.KwVehicle).
const KwVehicle = projector.KwVehicle

// Templates and blasts (docs/rules/6e.md#templates-and-blasts): the
// standard markers and scatter (default), and how a scatter is read from
// D6s (engine).
const (
	// TemplateLength is the flame template's length from its narrow end,
	// which touches the firer's base, to the end of its wide end; it is
	// the hull of a circle of TemplateNarrow width at the narrow end and
	// one of TemplateWide width at the wide end (default: the standard
	// teardrop, about 8" long).
	TemplateLength = 8.0
	TemplateNarrow = 0.5
	TemplateWide   = 2.5
	// BlastSmall and BlastLarge are the blast markers' diameters (default:
	// 3" and 5").
	BlastSmall = 3.0
	BlastLarge = 5.0
	// A blast scatters after it is placed (default): the scatter die shows
	// a hit (the marker stays) on one face in three, else an arrow; the
	// marker then moves 2D6" less the firer's BS (never below 0) in the
	// arrow's direction. The scatter is rolled as ScatterDice D6 (engine):
	// the first is the scatter die, a hit on 1 to ScatterHitFaces; the
	// first two together give the arrow's bearing, one of ScatterBearings
	// evenly spaced ((first − 3) × 6 + (second − 1)) × 15°, clockwise from
	// the table's +y direction; the last two are the distance.
	ScatterDice     = 4
	ScatterHitFaces = 2
	ScatterBearings = 24
)

// The charge distance of a model that charges differently
// (docs/rules/6e.md#charge-distance): a model keyword "CHARGE <dice>"
// ("CHARGE D6", "CHARGE 3D6") gives the dice its charge distance is rolled
// with (engine: the way a profile states it). The unit rolls once, as many
// D6 as its model that needs most; each model reads its own expression
// from the first dice of that roll, and the unit charges at the rate of
// its slowest model (the source).
const KwChargePrefix = "CHARGE"

// Morale and Pinning from shooting (docs/rules/6e.md#morale-and-pinning-from-shooting).
const (
	// ShootingLossesForMorale: a unit that loses this share of the models
	// it had at the start of a shooting phase to shooting takes a Morale
	// check at the end of that phase (default: 25%, standard 6e). The check
	// is 2D6 at most the unit's Ld (MoraleDice); Overwatch causes none (the
	// source).
	ShootingLossesForMorale = 0.25
	// KwPinning marks a weapon that pins: a unit that suffers an unsaved
	// wound from an attack with one takes a Pinning test (2D6 at most its
	// Ld, PinningDice) right after the attack, once per phase at most; one
	// that fails goes to ground (default, standard 6e). Vehicles never
	// test.
	KwPinning   = "PINNING"
	PinningDice = 2
	// A unit gone to ground has its cover saves improved by
	// GoneToGroundCover (a model without cover gets GoneToGroundNoCover)
	// and, in its owner's next turn, does not move or charge and fires
	// only snap shots (default, standard 6e).
	GoneToGroundCover   = 1
	GoneToGroundNoCover = 6
)

// Falling back (docs/rules/6e.md#falling-back): a unit that fails a Morale
// check and is not caught falls back FallBackDice D6 inches straight
// toward its own table edge (default, standard 6e); a unit whose roll
// reaches that edge falls off the table and is destroyed (default). A
// player's own table edge is the one closest to the middle of their models
// when the match was created (engine). Each model must end within
// FallBackTolerance of the point straight back the distance rolled
// (engine).
const (
	FallBackDice      = 2
	FallBackTolerance = 0.1
)

// CloseCombatWeapon is the weapon a model without a melee weapon fights
// with: its own Strength, no AP (engine). It names no profile of the unit.
const CloseCombatWeapon = "close combat weapon"

// MasterCraftedRerolls is how many failed hit rolls each model firing or
// striking with a master-crafted weapon re-rolls in an attack (engine: the
// standard "one failed roll to hit").
const MasterCraftedRerolls = 1

// Model keywords (events.ModelSpec.Keywords).
var (
	// KwCharacter: Look Out, Sir is offered for wounds allocated to it,
	// and saves against wounds allocated to it are rolled one at a time.
	KwCharacter = []string{"CHARACTER"}
	// KwIndependent: an independent character (a character too), whose
	// Look Out, Sir succeeds on LookOutSirNeedIC.
	KwIndependent = []string{"INDEPENDENT CHARACTER", "INDEPENDENT-CHARACTER", "IC"}
)

// Hit roll by Ballistic Skill (docs/rules/6e.md#roll-to-hit and
// docs/rules/6e.md#bs-6-and-above): bsTable[BS] is the first roll's
// target and the target of the re-roll of a 1 that BS6 and above grant
// (0 = no re-roll). BS above 10 reads as BS10; BS 0 cannot hit.
var bsTable = [...]struct{ hit, reroll int }{
	0:  {7, 0},
	1:  {6, 0},
	2:  {5, 0},
	3:  {4, 0},
	4:  {3, 0},
	5:  {2, 0},
	6:  {2, 6},
	7:  {2, 5},
	8:  {2, 4},
	9:  {2, 3},
	10: {2, 2},
}

// SnapBS is the BS snap shots are resolved at
// (docs/rules/6e.md#snap-shots). BS6+ re-rolls do not apply to snap shots
// (default): they are resolved as BS1, whose row has no re-roll. A
// master-crafted weapon's re-roll still applies.
const SnapBS = 1

// Wound roll: the wound chart (projector/rules). When the models a roll is
// against differ in Toughness, it uses the majority Toughness, the higher
// on a tie (engine).

// Saves: a model uses its best save: armour (Sv, lost when the AP is
// equal or better, i.e. 1 ≤ AP ≤ Sv), invulnerable (Inv, ignores AP), and
// cover (shooting only) (docs/rules/6e.md#saves; invulnerable and AP:
// engine, standard).

// Cover saves (default), by what obscures the model or the area it stands
// in (events.TerrainSpec.Kind). Blocking terrain gives none: it blocks.
const (
	CoverWoods  = 5 // woods
	CoverArea   = 5 // area terrain of any other non-blocking kind
	CoverRuins  = 4
	CoverFort   = 3 // fortifications
	CoverWire   = 6 // razor wire
	CoverModels = 5 // intervening models
)

// Focus fire names a cover save from FocusBest+ to FocusWorst+, or "none"
// (docs/rules/6e.md#focus-fire).
const (
	FocusBest  = 2
	FocusWorst = 6
)

// Look Out, Sir (docs/rules/6e.md#look-out-sir).
const (
	LookOutSirRange  = 6.0 // another model of the unit within this distance
	LookOutSirNeed   = 4   // 4+ moves the wound
	LookOutSirNeedIC = 2   // independent characters (default)
)

// Charge sub-phase (docs/rules/6e.md#charge-sub-phase and
// docs/rules/6e.md#charge-distance; ChargeRange: engine, the most 2D6 can
// give).
const (
	ChargeDice  = 2    // charge distance 2D6"
	ChargeRange = 12.0 // a unit may declare a charge against a unit this close
)

// Fight sub-phase.
const (
	// BaseContact: bases this close (inches) count as touching, for the
	// first charger's move and for who fights (engine tolerance).
	BaseContact = 0.1
	// Support: a model within this distance of a model of its unit in base
	// contact with the enemy also fights (engine, standard 6e).
	Support = 2.0
	// MinAttacks: a model whose profile gives no Attacks strikes this many
	// times (engine).
	MinAttacks = 1
	// PileIn: models not in base contact may move up to this far toward the
	// enemy at their Initiative step and after a combat (engine, standard).
	PileIn = 3.0
	// ConsolidateDistance: a unit left unlocked after its combat
	// consolidates up to this far, a dice expression (rules.Expr), and may
	// not end a model within ConsolidateEnemyGap of an enemy model
	// (default: the 6th-edition rulebook's D6" and 1", from rules round 3,
	// revision 2). Before, it was ConsolidateDistanceRound2 (a D3: a D6
	// halved, rounded up) and only base contact was forbidden.
	ConsolidateDistance       = "D6"
	ConsolidateEnemyGap       = 1.0
	ConsolidateDistanceRound2 = "D3"
	// ChargeBonusAttacks: a model of a unit whose charge reached this turn
	// strikes this many more times in the fight (default: the rulebook's
	// +1 Attack for charging, from revision 2).
	ChargeBonusAttacks = 1
	// MoraleDice: Morale is 2D6 at most Ld minus the combat result (default);
	// a unit tests on its highest Ld (engine).
	MoraleDice = 2
	// SweepDice: a losing unit that fails its Morale test is caught if the
	// winner's D6 + Initiative equals or beats its own D6 + Initiative; a
	// unit's Initiative is its lowest (engine, standard 6e). Caught units
	// are destroyed; the others fall back (FallBackDice).
	SweepDice = 1
)

// Close-combat hit roll by Weapon Skill (default): against the majority WS
// of the target unit (higher on a tie, engine).
const (
	WSHitHigher      = 3 // attacker's WS higher than the target's
	WSHitNotHalf     = 4 // equal or lower, but not less than half
	WSHitOutclassed  = 5 // the target's WS more than twice the attacker's
	wsOutclassFactor = 2
)
