package ed6e

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
	move       = projtest.Move
	rect       = projtest.Rect
	same       = projtest.Same
	ones       = projtest.Ones
)

func boltgun() events.WeaponSpec {
	return events.WeaponSpec{ID: "boltgun", Name: "boltgun", Range: 24, Type: RapidFire, S: 4, AP: 5}
}

// bolter fires one shot at any range, without AP (so 6+ armour saves stay
// in play): simple counts.
func bolter() events.WeaponSpec {
	return events.WeaponSpec{ID: "bolter", Name: "bolter", Range: 24, Type: Assault, Shots: 1, S: 4}
}

// marines: alice's n models in a column at x (y = 10, 11.2, ...), BS4 WS4
// I4 Sv3, each carrying the first weapon.
func marines(id string, n int, x float64, ws ...events.WeaponSpec) events.UnitSpec {
	return projtest.Column(events.UnitSpec{ID: id, Name: "Tactical Squad", Player: "alice", Weapons: ws}, n, x,
		events.ModelSpec{Name: "Marine", WS: 4, BS: 4, S: 4, T: 4, W: 1, I: 4, A: 1, Ld: 8, Sv: 3}, first(ws)...)
}

// boyz: bob's n Orks in a column at x, WS4 BS2 S3 T4 I2 A2 Ld7 Sv6.
func boyz(id string, n int, x float64, ws ...events.WeaponSpec) events.UnitSpec {
	return projtest.Column(events.UnitSpec{ID: id, Name: "Ork Boyz", Player: "bob", Weapons: ws}, n, x,
		events.ModelSpec{Name: "Ork Boy", WS: 4, BS: 2, S: 3, T: 4, W: 1, I: 2, A: 2, Ld: 7, Sv: 6}, first(ws)...)
}

// first is the id of the first weapon, the one a model carries.
func first(ws []events.WeaponSpec) []string {
	if len(ws) == 0 {
		return nil
	}
	return []string{ws[0].ID}
}

func setup(units ...events.UnitSpec) events.MatchCreated { return projtest.Setup(Edition, units...) }

// withEdges names Alice's and Bob's own table edges in su.
func withEdges(su events.MatchCreated, alice, bob string) events.MatchCreated {
	su.Players[0].Edge, su.Players[1].Edge = alice, bob
	return su
}

func newGame(t *testing.T, units ...events.UnitSpec) *projtest.Game {
	return projtest.New(t, Rules{}, setup(units...))
}

func newGameFrom(t *testing.T, su events.MatchCreated) *projtest.Game {
	return projtest.New(t, Rules{}, su)
}

// toShooting starts alice's turn 1 and goes to the shooting phase.
func toShooting(g *projtest.Game) { g.ToPhase(projector.PhaseShooting) }

// toAssault starts alice's turn 1 and goes to the assault phase.
func toAssault(g *projtest.Game) { g.ToPhase(projector.PhaseAssault) }

// alive lists the ids of a unit's models on the table.
func alive(g *projtest.Game, unit string) []string {
	var out []string
	for _, m := range g.State.Unit(unit).AliveModels() {
		out = append(out, m.ID)
	}
	return out
}

// pending asserts the match waits for kind from player.
func pending(t *testing.T, g *projtest.Game, kind, player string) projector.Pending {
	t.Helper()
	p := g.State.Pending
	if p.Kind != kind || p.Player != player {
		t.Fatalf("pending %s by %s, want %s by %s (%s)", p.Kind, p.Player, kind, player, p.Text)
	}
	return p
}
