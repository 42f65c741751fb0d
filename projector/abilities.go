package projector

import (
	"slices"

	"github.com/matchrec/matchrec/events"
)

// An edition is a Rules value; everything else it may do is an optional
// ability below, found by type assertion where it is needed, so an edition
// implements only what it has (3e has no events of its own, no state of
// its own and no choices but the common ones). Each is listed, with what
// it is for, in the package doc's checklist.

// EventFamily is an optional ability of an edition that records events of
// its own: their type names and zero payloads. Whoever decodes a match's
// events decodes them with Vocabulary(rules).
type EventFamily interface {
	EventFamily() events.Family
}

// Vocabulary is the event types a match of edition r may record: the core
// families and the edition's own (EventFamily).
func Vocabulary(r Rules) events.Vocabulary {
	if f, ok := r.(EventFamily); ok {
		return events.Core().With(f.EventFamily())
	}
	return events.Core()
}

// Narration is an optional ability of an edition that records events of
// its own, or reads core events its own way: the line a player reads for
// an event. The narrator asks it first for every event, so an edition
// tells its own events and may tell a core one (a shooting declaration
// with its kind of shooting); ok false leaves the line to the narrator's
// common one. s is the state after the event, actor the display name of
// who recorded it.
type Narration interface {
	Narrate(s *State, actor string, p events.Payload) (line string, ok bool)
}

// RollNarration is an optional ability of an edition whose rolls decide
// more than successes (a charge, a Morale test, a scatter): what roll p
// decided, read from s, the state just after it, for the narrator to add
// to the roll's line (`7": needed 8.0" — the charge fails`); "" adds
// nothing.
type RollNarration interface {
	RollOutcome(s *State, p *events.DiceRolled) string
}

// AttackNarration is an optional ability of an edition whose attacks do
// more than the common summary tells (focus fire and the wounds it lost,
// where a blast landed): notes the narrator adds to attack a's summary.
type AttackNarration interface {
	AttackNotes(s *State, a *Attack) []string
}

// RollExplainer is an optional ability of an edition: a judge's account of
// any of its rolls (matchrec audit --roll) — an attack's dice, a charge, a
// scatter, a Morale test, an advance. before is the state roll p is folded
// into, after the state it gives (as played, or as a ruling amended it).
type RollExplainer interface {
	ExplainRoll(before, after *State, p *events.DiceRolled) RollReason
}

// RollReason is a roll explained: what it is for, every input to what it
// decides with the rule it comes from, the rule's section, and what the
// dice decided.
type RollReason struct {
	// For says what the roll is for ("Tactical Squad's charge distance
	// against Ork Boyz").
	For string `json:"for"`
	// Inputs are the numbers and facts the roll is read against, each
	// with its source ("BS4: hits on 3+ (the BS table)").
	Inputs []string `json:"inputs"`
	// Rule is the section of docs/rules/<edition>.md the roll follows
	// ("docs/rules/6e.md#charge-distance"), or several, " and "-joined.
	Rule string `json:"rule"`
	// Decided is what the dice decided, in words ("9\": needed 6.0\" — the
	// charge reaches"); "" leaves it to the count of successes.
	Decided string `json:"decided,omitempty"`
}

// Chooser is an optional ability of an edition: it answers the edition's
// own choices (allocations, re-rolls, …) for simulations and generated
// matches with a legal, simple default.
type Chooser interface {
	Choose(s *State) (Command, error)
}

// Planner is an optional ability of an edition whose turns hold more than
// shooting (moves, charges, combats), for generated play: the active
// player's next free declaration in the current phase, as a simple player
// makes it, or ok false when there is none left and the player goes on
// (shooting, the next phase, the next turn). Every command it gives is one
// the rules accept.
type Planner interface {
	Plan(s *State) (c Command, ok bool)
}

// Armory is an optional ability of an edition whose rules read weapons
// the common random armies lack (templates, blasts): profiles its
// generated matches draw their units' weapons from too.
type Armory interface {
	Armory() []events.WeaponSpec
}

// ShootKinds is an optional ability of an edition whose shoot command
// names a kind of shooting (11e shooting types): the kinds to try, in order.
type ShootKinds interface {
	ShootKinds() []string
}

// ChargeRoll is a charge as its roll decided it: what the analytics'
// charges table keeps of each.
type ChargeRoll struct {
	Seq      uint64 // the charge's declaring event
	Unit     string
	Target   string
	Dice     []int
	Needed   float64 // inches the charge had to cover
	Distance float64 // inches the roll gave
	Success  bool
}

// Charges is an optional ability of an edition whose units charge with a
// roll: when roll is a charge roll, the charge it decided, read from s,
// the state just after it (ok false for any other roll).
type Charges interface {
	ChargeRolled(s *State, roll *events.DiceRolled) (ChargeRoll, bool)
}

// Measurer is an optional ability of an edition that plays matches
// measured at the table (projector/facts.go): Answer is what the models'
// positions in s say of a fact a measure step of its asks for (need), for
// a positioned match's transcripts and the tests that play every
// positioned scenario measured too; ok false for a fact positions cannot
// answer. PositionsOnly lists the pending kinds only a positioned match
// has (moves the table makes in a measured one: a charge move, a fall
// back).
type Measurer interface {
	Answer(s *State, need FactNeed) (value string, ok bool)
	PositionsOnly() []string
}

// Commander is an optional ability of an edition: the command types its
// Decide takes besides the common ones (CommonCommands), so a refusal of an
// unknown type can list what is valid.
type Commander interface {
	Commands() []string
}

// CommonCommands are the command types every edition takes.
var CommonCommands = []string{CmdNextTurn, CmdPhase, CmdMove, CmdRoll, CmdEnd, CmdConcede,
	CmdSeedCommit, CmdSeedReveal, CmdConfirm, CmdContest, CmdDispute, CmdRule, CmdReveal, CmdExcuse, CmdMeasure}

// CommandTypes lists the command types an edition takes, its own first.
func CommandTypes(r Rules) []string {
	var out []string
	if c, ok := r.(Commander); ok {
		out = append(out, c.Commands()...)
	}
	for _, t := range CommonCommands {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
