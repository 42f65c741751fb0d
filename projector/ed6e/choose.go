package ed6e

import (
	"fmt"

	"github.com/matchrec/matchrec/projector"
)

// Choose, on the rules, is the optional chooser ability (projector.Chooser):
// simulations and generated matches find the edition's answers there.
func (Rules) Choose(s *projector.State) (projector.Command, error) { return Choose(s) }

// Choose answers this edition's choices in simulations (a sim.Chooser):
// it declines Look Out, Sir and Overwatch, resolves the wound pools in the
// order listed, and strikes with the unit the combat waits for at the
// first enemy unit of the combat. Charge moves are left to the caller.
func Choose(s *projector.State) (projector.Command, error) {
	switch s.Pending.Kind {
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
