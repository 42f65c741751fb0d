// Package ed3e is the 3e edition (docs/rules/3e.md, seed 002): the five-step
// shooting sequence, range from each model, line of sight with woods and
// intervening models, Heavy weapons and moving, to-hit 7−BS, the wound
// chart, armour saves, owner-chosen casualties among models in range and
// sight, and the mixed-Toughness hit rotation.
package ed3e

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// Edition id.
const Edition = "3e"

// Defaults of this edition, kept in one place
// (docs/rules/3e.md#defaults-at-a-glance marks them
// "(default)" or leaves them to the table).
const (
	// WoodsVisibility is how far a model sees into woods when the piece
	// does not say (the text's 6"; 2–3" dense, 8–12" sparse are variants).
	WoodsVisibility = 6.0
	// Move is the move allowance of a model whose profile has none.
	Move = 6.0
	// Weapon types (default).
	RapidFire = "rapid-fire" // 2 shots up to half range; 1 up to full range if the unit did not move
	Assault   = "assault"    // Shots shots after moving
	Heavy     = "heavy"      // Shots shots, only if the unit did not move
	Pistol    = "pistol"     // 1 shot, after moving
	// Shots of the weapon types that do not fire their Shots (default).
	RapidFireShots    = 2 // a Rapid Fire weapon up to half its range
	RapidFireFarShots = 1 // beyond half range (only if the unit did not move)
	PistolShots       = 1
	// WholeModels: unsaved wounds on models with more than one wound must
	// remove whole models where possible (default: the 3rd-edition
	// rulebook, where the source speaks only of one-wound models), from
	// rules revision 1 (docs/rules/3e.md#remove-casualties).
	WholeModels = true
)

// Revision is the rules revision new 3e matches are played under
// (projector.Revisioner; docs/rules/3e.md#revisions):
//
//	0: the first rules (matches recorded before revisions existed).
//	1: rules round 3 — the owner's casualties must remove whole models
//	   where possible (WholeModels).
func (Rules) Revision() int { return revisionRound3 }

// revisionRound3 is the revision that brought rules round 3's stricter
// choice of casualties: an older history may hold a choice it refuses.
const revisionRound3 = 1

// wholeModels reports whether s's casualties must remove whole models.
func wholeModels(s *projector.State) bool { return WholeModels && s.Rules >= revisionRound3 }

// Rules is the 3e edition.
type Rules struct{}

var (
	_ projector.Rules      = Rules{}
	_ projector.Commander  = Rules{}
	_ projector.Lexicon    = Rules{}
	_ projector.Revisioner = Rules{}
)

// Lexicon is what 3e reads of a setup (projector.Lexicon): the four
// weapon types (docs/rules/3e.md#weapon-types), no weapon keyword, and
// VEHICLE on a unit or model, which blocks sight
// (docs/rules/3e.md#line-of-sight); a setup naming another is refused.
func (Rules) Lexicon() projector.Words {
	vehicle := []string{projector.KwVehicle}
	return projector.Words{WeaponTypes: []string{RapidFire, Assault, Heavy, Pistol}, UnitKeywords: vehicle, ModelKeywords: vehicle}
}

// Edition is "3e".
func (Rules) Edition() string { return Edition }

// Commands lists the command types 3e takes besides the common ones.
func (Rules) Commands() []string {
	return []string{projector.CmdShoot, projector.CmdDistribute, projector.CmdCasualties}
}

// Phases of a 3e player turn.
func (Rules) Phases() []string {
	return []string{projector.PhaseMovement, projector.PhaseShooting, projector.PhaseAssault}
}

// DefaultMove is 6".
func (Rules) DefaultMove() float64 { return Move }

// HitNeed is the to-hit roll for a BS: 7−BS, never better than 2+
// (BS 0 or less cannot hit: 7+).
func HitNeed(bs int) int {
	if bs <= 0 {
		return 7
	}
	return max(2, 7-bs)
}

// Decide handles the shooting commands; turns, phases and moves are common.
func (r Rules) Decide(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	switch c.Type {
	case projector.CmdShoot:
		return decideShoot(s, actor, c)
	case projector.CmdRoll:
		return projector.DecideRoll(s, actor, c)
	case projector.CmdDistribute:
		return decideDistribute(s, actor, c)
	case projector.CmdCasualties:
		return decideCasualties(s, actor, c)
	}
	return nil, projector.ErrNotHandled
}

// Evolve folds the shooting events.
func (r Rules) Evolve(s *projector.State, e *events.Event, p events.Payload) error {
	switch p := p.(type) {
	case *events.ShootingDeclared:
		return evolveDeclared(s, e.Seq, p)
	case *events.DiceRolled:
		projector.NoteRoll(s, e.Seq, p)
		return evolveRoll(s, e.Seq, p)
	case *events.HitsDistributed:
		return evolveDistributed(s, p)
	case *events.CasualtiesChosen:
		return evolveCasualties(s, p)
	}
	return nil
}

func decideShoot(s *projector.State, actor events.Actor, c projector.Command) ([]events.Payload, error) {
	if err := kit.ActiveIn(s, actor, projector.PhaseShooting, "units shoot"); err != nil {
		return nil, err
	}
	u, err := kit.UnfiredUnit(s, actor, c.Unit)
	if err != nil {
		return nil, err
	}
	t, err := kit.Target(s, u, c.Target, "shoot at")
	if err != nil {
		return nil, err
	}
	tbl, err := kit.ForCommand(s, c, world(s))
	if err != nil {
		return nil, err
	}
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := plannedShooting(tbl, u, t, c.Weapons, false)
	if err := tbl.Err(shootWhat(u, t), err); err != nil {
		return nil, err
	}
	return tbl.Record(projector.CmdShoot, &events.ShootingDeclared{Unit: u.ID, Target: t.ID, Weapons: pl.weapons}), nil
}

// world is the table as 3e sees it, for the questions positions answer.
func world(s *projector.State) func() geom.World {
	return func() geom.World { return s.World(WoodsVisibility) }
}

// shootWhat names a shooting declaration, for the refusals of its facts.
func shootWhat(u, t *projector.Unit) string {
	return "the shoot of " + u.DisplayName() + " at " + t.DisplayName()
}

func evolveDeclared(s *projector.State, seq uint64, p *events.ShootingDeclared) error {
	u, t := s.Unit(p.Unit), s.Unit(p.Target)
	if u == nil || t == nil {
		return fmt.Errorf("unknown unit %s or target %s", p.Unit, p.Target)
	}
	tbl, m := kit.ForDeclared(s, projector.CmdShoot, world(s))
	tbl.WoodsVisibility = WoodsVisibility
	pl, err := plannedShooting(tbl, u, t, p.Weapons, true)
	if err := tbl.Err(shootWhat(u, t), err); err != nil {
		return fmt.Errorf("declaration no longer valid: %w", err)
	}
	a := &projector.Attack{
		Seq: seq, Type: projector.AttackShooting, Firer: u.ID, Target: t.ID,
		Attacker: u.Player, Defender: t.Player,
		Shooters: pl.shooters, Eligible: pl.eligible, Stage: stageHit,
	}
	if m != nil {
		a.Measures = []uint64{m.Seq}
	}
	planHits(s, a)
	s.Attack = a
	stages.Advance(s, a)
	return nil
}
