// Package ed6e is the 6e edition (docs/rules/6e.md, seed 000): shooting with
// the BS table and its re-rolls, snap shots, wound pools allocated to the
// closest model, cover saves, Look Out, Sir and focus fire; and the
// assault phase: charges with Overwatch and a 2D6 charge roll, then
// combats fought by Initiative steps with the Weapon Skill table, the
// combat result, Morale, sweeping advances, pile-ins and consolidation.
//
// What it reads of a match's setup:
//   - models: WS, BS, S, T, W, I, A, Ld, Sv (armour), Inv (invulnerable),
//     Keywords CHARACTER and INDEPENDENT CHARACTER (or IC);
//   - players: Edge, their own table edge (default: opposite edges);
//   - weapons: Type rapid-fire, assault, heavy, pistol, salvo, artillery
//     (never snap shots) or melee; Range, Shots, S (0 on a melee weapon:
//     the model's), AP (0 = none); Keywords TEMPLATE, BLAST, LARGE BLAST
//     (markers: they cannot snap fire), NO-BS (cannot snap fire, hits
//     automatically), PINNING and MASTER-CRAFTED; no other word
//     (setup.go: Lexicon);
//   - terrain kinds for cover: woods, ruins, fortification, razor-wire,
//     any other non-blocking kind as area terrain; blocking gives none.
//
// Every number it uses is in defaults.go. The pipeline of an attack (hit,
// re-roll, wound, pools, allocation, saves) is shared by shooting,
// Overwatch and close combat (attack.go, allocate.go); what the match
// waits for is derived from the state in one place (pending.go).
package ed6e

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Commands of this edition, besides the common ones and shoot, roll and
// decline (which declines Overwatch or Look Out, Sir).
const (
	CmdCharge     = "charge"     // Unit declares a charge against Target
	CmdOverwatch  = "overwatch"  // the charged unit (Unit) fires Overwatch (Weapons optional)
	CmdLookOutSir = "lookoutsir" // attempt Look Out, Sir, moving the wound to Model on a success
	CmdPools      = "pools"      // order the wound pools: Indices into the pending list
	CmdFight      = "fight"      // choose the combat Unit is locked in
	CmdStrike     = "strike"     // Unit's models of the current Initiative strike Target
	CmdPlace      = "place"      // place the template or blast the attack waits for at (X, Y) (Model optional)
)

// Pending kinds of this edition, besides declare and roll.
const (
	WaitOverwatch  = "overwatch"   // the charged unit's owner fires Overwatch or declines
	WaitLookOutSir = "lookoutsir"  // the character's owner attempts Look Out, Sir or declines
	WaitPools      = "pools"       // the attacker orders the wound pools
	WaitChargeMove = "charge-move" // the attacker moves the first charger into base contact
	WaitStrike     = "strike"      // a unit piles in and strikes at its Initiative step
	WaitPlace      = "place"       // the attacker places a template or blast marker
	WaitFallBack   = "fall-back"   // a falling-back unit's owner moves its models
)

// Refusal codes of this edition.
const (
	CodeCannotSnap      = "cannot_snap_fire"
	CodeBadFocusFire    = "bad_focus_fire"
	CodeNoLookOutSir    = "look_out_sir_not_allowed"
	CodeInitiativeOrder = "initiative_order"
)

// KindSnap is the kind (Attack.Kind) of an attack fired as snap shots:
// forced snap fire, and every Overwatch.
const KindSnap = "snap"

// Rules is the 6e edition.
type Rules struct{}

var (
	_ projector.Rules     = Rules{}
	_ projector.Commander = Rules{}
)

// Edition is "6e".
func (Rules) Edition() string { return Edition }

// Revision is the rules revision new 6e matches are played under
// (projector.Revisioner; docs/rules/6e.md#revisions):
//
//	0: the first rules (matches recorded before revisions existed).
//	1: rules round 2 — templates and blasts placed and scattered, Morale
//	   and Pinning from shooting, fall-back moves of units that flee.
//	2: rules round 3 — the 6th-edition rulebook where the source is
//	   silent: consolidation D6" ending more than 1" from the enemy, +1
//	   Attack for a charging model, a blast hits every model under it,
//	   friend or foe; each side's own table edge from the setup.
func (Rules) Revision() int { return revisionRound3 }

// revisionRound2 and revisionRound3 are the revisions that brought rules
// rounds 2 and 3's changes that an older history would not refold the
// same under.
const (
	revisionRound2 = 1
	revisionRound3 = 2
)

// round2 reports whether s is played under rules round 2 or later.
func round2(s *projector.State) bool { return s.Rules >= revisionRound2 }

// round3 reports whether s is played under rules round 3 or later.
func round3(s *projector.State) bool { return s.Rules >= revisionRound3 }

// Commands lists the command types 6e takes besides the common ones.
func (Rules) Commands() []string {
	return []string{projector.CmdShoot, CmdCharge, CmdOverwatch, CmdFight, CmdStrike, CmdLookOutSir, CmdPools,
		projector.CmdDistribute, projector.CmdCasualties, projector.CmdReroll, projector.CmdDecline}
}

// Phases of a 6e player turn; the assault phase has a charge and a fight
// sub-phase (State.Subphase).
func (Rules) Phases() []string {
	return []string{projector.PhaseMovement, projector.PhaseShooting, projector.PhaseAssault}
}

// DefaultMove is 6".
func (Rules) DefaultMove() float64 { return Move }

// Decide handles this edition's commands and guards the common ones that
// would skip a required step.
func (Rules) Decide(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	switch c.Type {
	case projector.CmdShoot:
		return decideShoot(s, actor, c)
	case projector.CmdRoll:
		return projector.DecideRoll(s, actor, c)
	case projector.CmdDecline:
		return decideDecline(s, actor)
	case CmdLookOutSir:
		return decideLookOutSir(s, actor, c)
	case CmdPools:
		return decidePools(s, actor, c)
	case CmdCharge:
		return decideCharge(s, actor, c)
	case CmdOverwatch:
		return decideOverwatch(s, actor, c)
	case CmdFight:
		return decideFight(s, actor, c)
	case CmdStrike:
		return decideStrike(s, actor, c)
	case CmdPlace:
		return decidePlace(s, actor, c)
	case projector.CmdMove:
		return decideMove(s, actor, c)
	case projector.CmdNextTurn:
		return nil, guardNextTurn(s, actor)
	case projector.CmdPhase:
		return nil, guardOpen(s, actor)
	case projector.CmdDistribute, projector.CmdCasualties:
		return nil, projector.Refuse(projector.CodeWrongStep, "in 6e wounds go to the closest model: there is no distribution or casualty choice; the match waits for: %s", s.Pending.Text)
	case projector.CmdReroll:
		return nil, projector.Refuse(projector.CodeWrongStep, "in 6e the re-rolls a rule grants are asked for by the match itself; the match waits for: %s", s.Pending.Text)
	}
	return nil, projector.ErrNotHandled
}

// Evolve folds the events, then derives what the match waits for.
func (Rules) Evolve(s *projector.State, e *events.Event, p events.Payload) error {
	var err error
	switch p := p.(type) {
	case *events.MatchCreated:
		// The core has made the 6e state (NewStateExt).
		ed(s).Edges = tableEdges(s, p)
	case *events.TurnStarted:
		old := ed(s)
		phaseEnds(s)
		s.Ext = &State{Edges: old.Edges, Checks: old.Checks, FallBack: old.FallBack, Pinned: turnOfPins(old.Pinned, p.Player)}
	case *events.PhaseStarted:
		closeOpen(s)
		phaseEnds(s)
		ed(s).Subphase = ""
		if p.Phase == projector.PhaseAssault {
			ed(s).Subphase = SubCharge
		}
	case *events.MatchEnded:
		closeOpen(s)
	case *events.ModelMoved:
		evolveMoved(s, p)
	case *events.ShootingDeclared:
		err = evolveShooting(s, e.Seq, p)
	case *events.DiceRolled:
		projector.NoteRoll(s, e.Seq, p)
		err = evolveRoll(s, e.Seq, p)
	case *LookOutSirDeclared:
		err = evolveLookOutSir(s, p)
	case *LookOutSirDeclined:
		err = evolveLookOutSirDeclined(s, p)
	case *WoundPoolsOrdered:
		err = evolvePools(s, p)
	case *ChargeDeclared:
		err = evolveCharge(s, e.Seq, p)
	case *OverwatchDeclared:
		err = evolveOverwatch(s, e.Seq, p)
	case *OverwatchDeclined:
		err = evolveOverwatchDeclined(s, p)
	case *CombatChosen:
		err = evolveCombat(s, e.Seq, p)
	case *StrikeDeclared:
		err = evolveStrike(s, e.Seq, p)
	case *MarkerPlaced:
		err = evolvePlaced(s, p)
	case *MarkerDeclined:
		err = evolveDeclinedMarker(s, p)
	case *events.Measured:
		err = evolveMeasured(s, e.Seq, p)
	default:
		return nil
	}
	if err != nil {
		return err
	}
	refreshPending(s)
	return nil
}

// Sub-phases of the assault phase.
const (
	SubCharge = "charge"
	SubFight  = "fight"
)
