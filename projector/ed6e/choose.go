package ed6e

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
)

// Choose, on the rules, is the optional chooser ability (projector.Chooser):
// simulations and generated matches find the edition's answers there.
func (Rules) Choose(s *projector.State) (projector.Command, error) { return Choose(s) }

// Choose answers this edition's choices in simulations (a sim.Chooser):
// it declines Look Out, Sir and Overwatch, resolves the wound pools in the
// order listed, places each template or blast on the first target model
// (closest to the firer) where the rules allow it, moves the first
// charger into base contact, moves falling-back models where they must go,
// and strikes with the unit the combat waits for at the first enemy unit
// of the combat.
func Choose(s *projector.State) (projector.Command, error) {
	switch s.Pending.Kind {
	case WaitPlace:
		return placeChoice(s)
	case WaitChargeMove:
		ch := ed(s).Charge
		u := s.Unit(ch.Unit)
		if c, ok := intoContact(u, u.Model(ch.First), []*projector.Unit{s.Unit(ch.Target)}, ch.Distance); ok {
			return c, nil
		}
	case WaitFallBack:
		fb := falling(s)
		u := s.Unit(fb.Unit)
		for _, m := range u.AliveModels() {
			if !slices.Contains(fb.Moved, m.ID) {
				p := fallBackPoint(s, u, m, fb)
				return projector.Command{Type: projector.CmdMove, Unit: u.ID, Model: m.ID, X: &p.X, Y: &p.Y}, nil
			}
		}
	case WaitLookOutSir, WaitOverwatch:
		return projector.Command{Type: projector.CmdDecline}, nil
	case WaitPools:
		idx := make([]int, s.Pending.Count)
		for i := range idx {
			idx[i] = i
		}
		return projector.Command{Type: CmdPools, Indices: idx}, nil
	case WaitStrike:
		cb := ed(s).Combat
		u := dueUnits(s, cb)[0]
		return projector.Command{Type: CmdStrike, Unit: u.ID, Target: combatEnemies(s, cb, u)[0].ID}, nil
	}
	return projector.Command{}, fmt.Errorf("6e: no automatic answer to %q (%s)", s.Pending.Kind, s.Pending.Text)
}

// placeChoice places the marker the attack waits for on the first target
// model, closest to its firer first, where the rules allow it.
func placeChoice(s *projector.State) (projector.Command, error) {
	a := s.Attack
	m := currentMarker(a)
	u, t := s.Unit(a.Firer), s.Unit(a.Target)
	fb := projector.Body(u, u.Model(m.Model))
	ms := t.AliveModels()
	slices.SortStableFunc(ms, func(x, y *projector.Model) int {
		return cmp.Compare(geom.BaseDistance(fb, projector.Body(t, x)), geom.BaseDistance(fb, projector.Body(t, y)))
	})
	for _, tm := range ms {
		if placementProblem(kit.NewPositions(s, world(s)), a, m, geom.Point{X: tm.X, Y: tm.Y}) == "" {
			x, y := tm.X, tm.Y
			return projector.Command{Type: CmdPlace, X: &x, Y: &y}, nil
		}
	}
	return projector.Command{}, fmt.Errorf("6e: %s's marker cannot be placed on any model of %s", m.Model, t.DisplayName())
}
