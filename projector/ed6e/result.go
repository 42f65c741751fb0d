package ed6e

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/rules"
)

// After the last Initiative step (steps 3–5 of
// docs/rules/6e.md#fight-sub-phase: docs/rules/6e.md#combat-result,
// docs/rules/6e.md#morale, docs/rules/6e.md#sweeping-advances,
// docs/rules/6e.md#falling-back and
// docs/rules/6e.md#pile-in-and-consolidation): the side that caused more
// unsaved wounds wins; each losing unit still locked takes a Morale test,
// 2D6 at most its Ld minus the difference. A unit that fails is swept
// away if the winner's D6 + Initiative equals or beats its own, and
// otherwise falls back out of the combat: its 2D6 roll, then its models'
// moves toward its table edge (fallback.go). Units no longer locked then
// consolidate D6", never ending within 1" of the enemy (D3" and only not
// into base contact before revision 2); units still locked pile in up to
// 3".

const (
	purposeMorale      = "morale"
	purposeSweep       = "sweeping advance"
	purposeConsolidate = "consolidate"
)

// combatResult works out who won and starts the Morale tests.
func combatResult(s *projector.State, cb *Combat) {
	ed(s).Moves = nil
	cb.Alive, cb.Struck = nil, nil
	best, second := -1, -1
	for i, c := range cb.Caused {
		switch {
		case best < 0 || c.Wounds > cb.Caused[best].Wounds:
			best, second = i, best
		case second < 0 || c.Wounds > cb.Caused[second].Wounds:
			second = i
		}
	}
	if best < 0 || second < 0 || cb.Caused[best].Wounds == cb.Caused[second].Wounds {
		consolidations(s, cb) // a draw: nobody tests
		return
	}
	cb.Winner, cb.Loser = cb.Caused[best].Player, cb.Caused[second].Player
	cb.Diff = cb.Caused[best].Wounds - cb.Caused[second].Wounds
	for _, id := range cb.Units {
		u := s.Unit(id)
		if u.Player == cb.Loser && !u.Destroyed() && locked(s, u) {
			ld := highest(u, func(m *projector.Model) int { return m.Ld })
			cb.Tests = append(cb.Tests, Morale{Unit: id, Ld: ld, Need: ld - cb.Diff})
		}
	}
	cb.Test = 0
	if len(cb.Tests) == 0 {
		consolidations(s, cb)
		return
	}
	cb.Stage = stageMorale
}

// evolveCombatRoll folds a Morale, sweeping advance or consolidation roll.
func evolveCombatRoll(s *projector.State, seq uint64, p *events.DiceRolled) error {
	cb := ed(s).Combat
	switch cb.Stage {
	case stageMorale:
		t := &cb.Tests[cb.Test]
		if len(p.Values) != MoraleDice || p.Purpose != purposeMorale {
			return fmt.Errorf("a Morale test is %dD6", MoraleDice)
		}
		t.Seq, t.Roll = seq, slices.Clone(p.Values)
		t.Passed = sum(p.Values) <= t.Need
		if t.Passed {
			nextTest(s, cb)
			return nil
		}
		startSweep(s, cb, t)
	case stageSweep:
		t := &cb.Tests[cb.Test]
		if len(p.Values) != SweepDice || p.Purpose != purposeSweep {
			return fmt.Errorf("a sweeping advance roll is %dD6", SweepDice)
		}
		if t.SweepWin == 0 {
			t.SweepWin = sum(p.Values)
			return nil
		}
		t.SweepOwn = sum(p.Values)
		u := s.Unit(t.Unit)
		if t.SweepWin+t.WinI >= t.SweepOwn+t.OwnI {
			t.Caught = true
			destroy(s, u)
		} else {
			t.Fled = true
			fallBack(s, u, "it lost the combat, failed its Morale test and escaped the sweeping advance")
		}
		nextTest(s, cb)
	case stageConsolidate:
		for i := range cb.Consolidate {
			if c := &cb.Consolidate[i]; c.Roll == 0 {
				c.Seq, c.Roll = seq, sum(p.Values)
				c.Distance = float64(consolidation(s).Eval(p.Values))
				break
			}
		}
		if consolidationDue(cb) == nil {
			openEndMoves(s, cb)
		}
	default:
		return fmt.Errorf("the combat waits for no roll")
	}
	return nil
}

// startSweep begins the roll-off of a unit that failed its test against
// the first winning unit locked with it; with none, it simply falls back.
func startSweep(s *projector.State, cb *Combat, t *Morale) {
	u := s.Unit(t.Unit)
	for _, w := range lockedWith(s, u) {
		if w.Player == cb.Winner {
			t.Sweeper = w.ID
			t.WinI = lowest(w, func(m *projector.Model) int { return m.I })
			t.OwnI = lowest(u, func(m *projector.Model) int { return m.I })
			cb.Stage = stageSweep
			return
		}
	}
	t.Fled = true
	fallBack(s, u, "it lost the combat and failed its Morale test")
	nextTest(s, cb)
}

func nextTest(s *projector.State, cb *Combat) {
	cb.Test++
	if cb.Test < len(cb.Tests) {
		cb.Stage = stageMorale
		return
	}
	consolidations(s, cb)
}

// destroy removes every model of a unit caught by a sweeping advance.
func destroy(s *projector.State, u *projector.Unit) {
	for _, m := range u.AliveModels() {
		m.Removed = true
		s.AddTally(u.Player, func(t *projector.Tally) { t.ModelsLost++ })
	}
	unlock(s, u)
}

// consolidations lists the units of the combat no longer locked, but for
// those that fell back; each rolls its distance before the moves open.
func consolidations(s *projector.State, cb *Combat) {
	fled := func(id string) bool {
		for _, t := range cb.Tests {
			if t.Unit == id && t.Fled {
				return true
			}
		}
		return false
	}
	for _, id := range cb.Units {
		if u := s.Unit(id); !u.Destroyed() && !locked(s, u) && !fled(id) {
			cb.Consolidate = append(cb.Consolidate, Consolidation{Unit: id})
		}
	}
	if consolidationDue(cb) != nil {
		cb.Stage = stageConsolidate
		return
	}
	openEndMoves(s, cb)
}

// consolidation is the consolidation move's dice: ConsolidateDistance,
// or ConsolidateDistanceRound2 before revision 2.
func consolidation(s *projector.State) rules.Expr {
	d := ConsolidateDistance
	if !round3(s) {
		d = ConsolidateDistanceRound2
	}
	e, _ := rules.ParseExpr(d) // constants that parse (TestConsolidationDistance)
	return e
}

// consolidationDue is the next unit to roll its consolidation, or nil.
func consolidationDue(cb *Combat) *Consolidation {
	for i := range cb.Consolidate {
		if cb.Consolidate[i].Roll == 0 {
			return &cb.Consolidate[i]
		}
	}
	return nil
}

// openEndMoves lets the consolidating units move their distance and the units
// still locked pile in; they stay open until the active player moves on.
func openEndMoves(s *projector.State, cb *Combat) {
	cb.Stage = stageMoves
	ed(s).Moves = nil
	if s.Measured() {
		return // the table makes these moves, and records none
	}
	for _, id := range cb.Units {
		u := s.Unit(id)
		allow, kind := 0.0, movePileIn
		for _, c := range cb.Consolidate {
			if c.Unit == id {
				allow, kind = c.Distance, moveConsolidate
			}
		}
		if kind == movePileIn && locked(s, u) {
			allow = PileIn
		}
		if allow == 0 {
			continue
		}
		for _, m := range u.AliveModels() {
			if kind == movePileIn && touching(s, u, m) {
				continue
			}
			ed(s).Moves = append(ed(s).Moves, AssaultMove{Kind: kind, Unit: id, Model: m.ID, X: m.X, Y: m.Y, Allow: allow})
		}
	}
}

// touching reports whether m touches a model of a unit u is locked with.
func touching(s *projector.State, u *projector.Unit, m *projector.Model) bool {
	_, d := closestEnemy(projector.Body(u, m), lockedWith(s, u))
	return d <= BaseContact+eps
}

func highest(u *projector.Unit, f func(*projector.Model) int) int {
	best := 0
	for i, m := range u.AliveModels() {
		if v := f(m); i == 0 || v > best {
			best = v
		}
	}
	return best
}

func lowest(u *projector.Unit, f func(*projector.Model) int) int {
	best := 0
	for i, m := range u.AliveModels() {
		if v := f(m); i == 0 || v < best {
			best = v
		}
	}
	return best
}

func sum(vs []int) int {
	n := 0
	for _, v := range vs {
		n += v
	}
	return n
}
