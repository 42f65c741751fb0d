package ed11e

import (
	"fmt"

	"github.com/matchrec/matchrec/projector"
)

// Choose answers this edition's choices for simulations (a sim.Chooser):
// every offered re-roll is taken on every die it allows, and each attack
// is allocated to the first model that may take it, in unit order.
func Choose(s *projector.State) (projector.Command, error) {
	a := s.Attack
	if a == nil {
		return projector.Command{}, fmt.Errorf("no attack waits for a choice (%s)", s.Pending.Text)
	}
	switch s.Pending.Kind {
	case WaitReroll:
		return projector.Command{Type: projector.CmdReroll}, nil
	case WaitAllocate:
		t := s.Unit(a.Target)
		if w := wounded(t); len(w) > 0 {
			return projector.Command{Type: CmdAllocate, Model: w[0].ID}, nil
		}
		for _, m := range t.Models {
			if m.Alive() {
				return projector.Command{Type: CmdAllocate, Model: m.ID}, nil
			}
		}
	}
	return projector.Command{}, fmt.Errorf("ed11e cannot answer %q (%s)", s.Pending.Kind, s.Pending.Text)
}

var (
	_ projector.Chooser    = Rules{}
	_ projector.ShootKinds = Rules{}
)

// Choose is the edition's projector.Chooser (see the Choose function).
func (Rules) Choose(s *projector.State) (projector.Command, error) { return Choose(s) }

// ShootKinds lists the shooting types for generated play.
func (Rules) ShootKinds() []string { return Types }
