package ed3e

import (
	"fmt"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

var (
	alice = projtest.Player("alice")
	bob   = projtest.Player("bob")
)

func boltgun() events.WeaponSpec {
	return events.WeaponSpec{ID: "boltgun", Name: "boltgun", Range: 24, Type: RapidFire, S: 4}
}

// marines: n models in a column at x, BS4, each with weapon w.
func marines(id string, n int, x float64, ws ...events.WeaponSpec) events.UnitSpec {
	u := events.UnitSpec{ID: id, Name: "Tactical Squad", Player: "alice", Weapons: ws}
	for i := 0; i < n; i++ {
		u.Models = append(u.Models, events.ModelSpec{ID: fmt.Sprintf("%s-%d", id, i+1), BS: 4, S: 4, T: 4, W: 1, Sv: 3,
			Height: 1.5, BaseMM: 25, X: x, Y: 10 + float64(i)*1.2, Weapons: []string{ws[0].ID}})
	}
	return u
}

// boyz: n Orks in a column at x, T4 Sv6.
func boyz(id string, n int, x float64) events.UnitSpec {
	u := events.UnitSpec{ID: id, Name: "Ork Boyz", Player: "bob"}
	for i := 0; i < n; i++ {
		u.Models = append(u.Models, events.ModelSpec{ID: fmt.Sprintf("%s-%d", id, i+1), BS: 2, S: 3, T: 4, W: 1, Sv: 6,
			Height: 1.5, BaseMM: 25, X: x, Y: 10 + float64(i)*1.2})
	}
	return u
}

func setup(units ...events.UnitSpec) events.MatchCreated {
	return events.MatchCreated{Edition: Edition,
		Players: []events.PlayerSpec{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}},
		Units:   units}
}

// toShooting starts alice's turn 1 and goes to the shooting phase.
func toShooting(g *projtest.Game) {
	g.T.Helper()
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
}

func shoot(unit, target string) projector.Command {
	return projector.Command{Type: projector.CmdShoot, Unit: unit, Target: target}
}

func newGame(t *testing.T, units ...events.UnitSpec) *projtest.Game {
	return projtest.New(t, Rules{}, setup(units...))
}

// same asserts the live state equals a fresh fold of the recorded events.
func same(t *testing.T, g *projtest.Game) {
	t.Helper()
	live, err := g.State.Hash()
	if err != nil {
		t.Fatal(err)
	}
	re, _ := g.Refold().Hash()
	if live != re {
		t.Fatalf("replayed state differs from live state")
	}
}

func ones(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func newGameFrom(t *testing.T, su events.MatchCreated) *projtest.Game {
	return projtest.New(t, Rules{}, su)
}
