package ed11e

// Every value this edition uses where seed 003 and docs/rules/11e.md are
// silent, or that docs/rules/11e.md#defaults-at-a-glance marks "(default)"
// or "(engine)" (as docs/rules/README.md#how-to-read-an-edition-file
// defines them), is here and only here, so that a table or a later reading
// of the rules changes one file.

// Movement.
const (
	// Move is the move allowance of a model whose profile has none.
	Move = 6.0
	// AdvanceDice is the advance roll: an advancing unit adds it to its
	// Move (the standard modern rule). It is rolled as a recorded D6.
	AdvanceDice = "D6"
)

// Engagement (engine): a unit is engaged with an enemy unit while any of
// its models is within EngagementRange of a model of that unit, measured
// between the closest points of the bases. It is derived from positions
// after every move and every attack, never declared, so the log cannot
// disagree with the table.
const EngagementRange = 1.0

// Sight (engine): in this edition models do not block visibility; only
// terrain does (blocking pieces, and woods seen into up to their
// visibility, as in projector/geom). WoodsVisibility fills woods that do
// not say.
const WoodsVisibility = 6.0

// Cover (default, the text refers to 13.08 without printing it): the
// target has the benefit of cover against a firing model when every
// target model that model can see within range is obscured by terrain
// (geom: standing in, or seen across, a non-blocking terrain piece), and
// always against an [INDIRECT FIRE] attack of indirect shooting. Cover
// worsens the BS by 1 (docs/rules/11e.md#cover), it is not a hit modifier, so the ±1 cap
// does not apply to it.
const CoverBSPenalty = 1

// HitModCap bounds the sum of hit-roll modifiers
// (docs/rules/11e.md#hit-modifiers: capped at
// +1/−1).
const HitModCap = 1

// Keywords (matched by projector.HasKeyword: case and brackets ignored).
const (
	KwMonster  = "MONSTER"
	KwVehicle  = "VEHICLE"
	KwAssault  = "ASSAULT"
	KwHeavy    = "HEAVY"
	KwBlast    = "BLAST"
	KwCQ       = "CLOSE-QUARTERS"
	KwIndirect = "INDIRECT FIRE"
	// KwStealth on a target unit (default, from the standard modern rule):
	// subtract 1 from hit rolls of ranged attacks against it.
	KwStealth = "STEALTH"
	// KwPlusOneHit on a weapon or its unit (engine): an ability adding 1
	// to the hit roll, such as a leader's. The engine models no specific
	// abilities; this keyword records that one applies.
	KwPlusOneHit = "+1 TO HIT"
	// [HEAVY] (engine, the standard modern rule): add 1 to the hit roll
	// if the unit remained stationary this turn.
	HeavyStationaryBonus = 1
	// StealthPenalty is KwStealth's modifier.
	StealthPenalty = -1
	// CQPenalty is close-quarters shooting's MONSTER/VEHICLE modifier.
	CQPenalty = -1
)

// Re-roll sources (engine): keywords on the weapon or on its unit. A
// re-roll is offered to the roller after the roll; the roller picks the
// dice (or all the rule allows) or declines. No die is re-rolled twice.
const (
	// RerollHitOnes: re-roll hit rolls of 1 (unmodified 1s).
	KwRerollHitOnes = "RE-ROLL HIT ROLLS OF 1"
	// KwRerollHits: re-roll hit rolls (any; the default pick is the failed ones).
	KwRerollHits = "RE-ROLL HIT ROLLS"
	// KwTwinLinked (weapon, the standard modern rule): re-roll wound rolls.
	KwTwinLinked = "TWIN-LINKED"
)

// Re-roll rules, as recorded in reroll.chosen's Source.
const (
	RuleHitOnes = "re-roll hit rolls of 1"
	RuleHits    = "re-roll hit rolls"
	RuleWounds  = "re-roll wound rolls"
)

// Indirect fire thresholds (docs/rules/11e.md#indirect-shooting): the lowest unmodified hit roll
// that can hit.
const (
	IndirectMinUnmod        = 6 // 1–5 fail
	IndirectSpottedMinUnmod = 4 // 1–3 fail: stationary, and another friendly unit sees the target
)

// Weapon profile defaults.
const (
	// DefaultAttacks: a weapon with neither Attacks nor Shots makes one
	// attack per model.
	DefaultAttacks = "1"
	// DefaultDamage: a weapon without D deals 1 damage.
	DefaultDamage = "1"
)

// AP (default): the save worsens by |AP| whether the profile writes AP
// as −1 (modern) or 1; AP never improves a save.

// Toughness of a mixed unit (engine): wound rolls use the highest T among
// the target's models on the table, which favours the defender and never
// depends on allocation made later.

// Shooting (default): the whole unit shoots at one target per declaration;
// each model fires every ranged weapon it carries that the shooting type
// allows, unless the declaration's weapons map names its weapons
// (comma-separated ids, or "none"). A weapon fires only if a target model
// it may target is within its range (and visible, unless it is an
// [INDIRECT FIRE] weapon in indirect shooting).

// Actions (default): a unit of the active player, on the battlefield, may
// start an action in any phase of its turn while no attack is resolving;
// the only restriction the seed gives is enforced: a unit that shot this
// phase cannot start one until the phase ends (the end step included).

// Allocation (default): one attack at a time; the defender chooses unless
// there is no choice (one model left, or exactly one model that has lost
// wounds); every model of the target unit may be chosen.
