package ed6e

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
)

// Morale and Pinning from shooting
// (docs/rules/6e.md#morale-and-pinning-from-shooting). The source says only
// that Overwatch «ne peut pas provoquer de test de moral ni de pilonnage»,
// so normal shooting does; the standard 6e triggers are the defaults: a
// unit that loses 25% or more of the models it had at the start of a
// shooting phase to shooting takes a Morale check at the end of that
// phase, and one that fails falls back; a unit that suffers an unsaved
// wound from an attack with a Pinning weapon takes a Pinning test right
// after that attack, once per phase, and one that fails goes to ground.
// Both are 2D6 at most the unit's Ld (its highest, engine).

// Check kinds (Check.Kind), which are also their rolls' purposes.
const (
	checkMorale  = "morale"
	checkPinning = "pinning"
)

// noteShotAt counts, when a shooting attack at t begins, the models t has
// if it has not been shot at yet this phase: its Morale check compares its
// losses with them.
func noteShotAt(s *projector.State, t *projector.Unit) {
	if !round2(s) {
		return
	}
	x := ed(s)
	for _, l := range x.Losses {
		if l.Unit == t.ID {
			return
		}
	}
	x.Losses = append(x.Losses, Loss{Unit: t.ID, Start: len(t.AliveModels())})
}

// afterShooting adds up what a shooting attack cost its target, and asks
// for its Pinning test when a Pinning weapon caused an unsaved wound.
func afterShooting(s *projector.State, a *projector.Attack) {
	if !round2(s) {
		return
	}
	x := ed(s)
	for i := range x.Losses {
		if x.Losses[i].Unit == a.Target {
			x.Losses[i].Lost += len(a.Casualties)
		}
	}
	t := s.Unit(a.Target)
	if !edAttack(a).Pinning || edAttack(a).Applied == 0 || t.Destroyed() || projector.HasKeyword(t.Keywords, KwVehicle) || goneToGround(s, t.ID) {
		return
	}
	for _, c := range x.Checks {
		if c.Unit == t.ID && c.Kind == checkPinning {
			return // once per phase
		}
	}
	ld := highest(t, func(m *projector.Model) int { return m.Ld })
	x.Checks = append(x.Checks, Check{Unit: t.ID, Kind: checkPinning, Need: ld,
		Why: "it suffered an unsaved wound from a Pinning weapon"})
}

// phaseEnds closes a phase: the checks made in it are dropped, and the
// losses to shooting become the Morale checks taken at its end.
func phaseEnds(s *projector.State) {
	x := ed(s)
	x.Checks = slices.DeleteFunc(x.Checks, func(c Check) bool { return c.Seq != 0 })
	for _, l := range x.Losses {
		u := s.Unit(l.Unit)
		if u == nil || u.Destroyed() || locked(s, u) || l.Lost == 0 || float64(l.Lost) < ShootingLossesForMorale*float64(l.Start) {
			continue
		}
		ld := highest(u, func(m *projector.Model) int { return m.Ld })
		x.Checks = append(x.Checks, Check{Unit: u.ID, Kind: checkMorale, Need: ld,
			Why: fmt.Sprintf("it lost %d of its %d models to shooting this phase", l.Lost, l.Start)})
	}
	x.Losses = nil
	if x.FallBack != nil && x.FallBack.Done {
		x.FallBack = nil
	}
}

// dueCheck is the next check to roll, or nil.
func dueCheck(s *projector.State) *Check {
	for i := range ed(s).Checks {
		if c := &ed(s).Checks[i]; c.Seq == 0 {
			return c
		}
	}
	return nil
}

// evolveCheckRoll folds a Morale check or Pinning test: a unit that fails
// its Morale check falls back, one that fails its Pinning test goes to
// ground.
func evolveCheckRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	c := dueCheck(s)
	if p.Purpose != c.Kind || len(p.Values) != MoraleDice {
		return fmt.Errorf("a %s test is %dD6", c.Kind, MoraleDice)
	}
	c.Seq, c.Roll = seq, slices.Clone(p.Values)
	c.Passed = sum(p.Values) <= c.Need
	u := s.Unit(c.Unit)
	switch {
	case c.Passed:
	case c.Kind == checkMorale:
		startFallBack(s, u, "it failed its Morale check")
	default:
		ed(s).Pinned = append(ed(s).Pinned, Pinned{Unit: u.ID, Player: u.Player})
	}
	return nil
}

// checkPending is what a due check waits for: its roll.
func checkPending(s *projector.State, c *Check) projector.Pending {
	u := s.Unit(c.Unit)
	what := "Morale check at the end of the shooting phase"
	if c.Kind == checkPinning {
		what = "Pinning test"
	}
	return projector.Pending{Kind: projector.WaitRoll, Player: u.Player, Dice: MoraleDice, Purpose: c.Kind,
		Text: fmt.Sprintf("%s rolls %dD6 for %s %s (%s): passes on %d or less (Ld %d)", s.PlayerName(u.Player), MoraleDice, kit.Possessive(u.DisplayName()), what, c.Why, c.Need, c.Need)}
}

// goneToGround reports whether unit id has gone to ground.
func goneToGround(s *projector.State, id string) bool {
	return slices.ContainsFunc(ed(s).Pinned, func(p Pinned) bool { return p.Unit == id })
}

// groundCover is a model's cover once its unit has gone to ground: better
// by GoneToGroundCover (2+ at best), or GoneToGroundNoCover without any.
func groundCover(c *Cover) {
	if c.Save == 0 {
		c.Save, c.Why = GoneToGroundNoCover, fmt.Sprintf("gone to ground %d+", GoneToGroundNoCover)
		return
	}
	c.Save = max(2, c.Save-GoneToGroundCover)
	c.Why = fmt.Sprintf("%s, gone to ground: %d+", c.Why, c.Save)
}

// turnOfPins keeps the units gone to ground until the end of their
// owner's next turn: a new turn of player starts.
func turnOfPins(pins []Pinned, player string) []Pinned {
	var out []Pinned
	for _, p := range pins {
		switch {
		case p.Player == player:
			p.OwnTurn = true
		case p.OwnTurn:
			continue // its owner's turn is over
		}
		out = append(out, p)
	}
	return out
}
