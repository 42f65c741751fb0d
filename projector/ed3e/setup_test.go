package ed3e

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// The shared fixtures (projtest), and this edition's armies below.
var (
	alice, bob = projtest.Alice, projtest.Bob
	shoot      = projtest.Shoot
	same       = projtest.Same
	ones       = projtest.Ones
)

func boltgun() events.WeaponSpec {
	return events.WeaponSpec{ID: "boltgun", Name: "boltgun", Range: 24, Type: RapidFire, S: 4}
}

// marines: n models in a column at x, BS4, each with weapon w.
func marines(id string, n int, x float64, ws ...events.WeaponSpec) events.UnitSpec {
	return projtest.Column(events.UnitSpec{ID: id, Name: "Tactical Squad", Player: "alice", Weapons: ws}, n, x,
		events.ModelSpec{BS: 4, S: 4, T: 4, W: 1, Sv: 3}, ws[0].ID)
}

// boyz: n Orks in a column at x, T4 Sv6.
func boyz(id string, n int, x float64) events.UnitSpec {
	return projtest.Column(events.UnitSpec{ID: id, Name: "Ork Boyz", Player: "bob"}, n, x,
		events.ModelSpec{BS: 2, S: 3, T: 4, W: 1, Sv: 6})
}

func setup(units ...events.UnitSpec) events.MatchCreated { return projtest.Setup(Edition, units...) }

// toShooting starts alice's turn 1 and goes to the shooting phase.
func toShooting(g *projtest.Game) { g.ToPhase(projector.PhaseShooting) }

func newGame(t *testing.T, units ...events.UnitSpec) *projtest.Game {
	return projtest.New(t, Rules{}, setup(units...))
}

func newGameFrom(t *testing.T, su events.MatchCreated) *projtest.Game {
	return projtest.New(t, Rules{}, su)
}
