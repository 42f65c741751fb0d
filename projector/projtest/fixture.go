package projtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// The fixtures every edition's rules tests build their matches from: two
// players, units in columns, the opening of a turn, the commands tests
// make most, and the check that a live state folds again the same.

// Alice and Bob play the fixtures' matches; Alice plays first.
var (
	Alice = Player("alice")
	Bob   = Player("bob")
)

// Setup is a match of edition between Alice and Bob with units (the
// defaults fill the rest: table, first player).
func Setup(edition string, units ...events.UnitSpec) events.MatchCreated {
	return events.MatchCreated{Edition: edition,
		Players: []events.PlayerSpec{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}},
		Units:   units}
}

// Column is unit u with n models like m in a column at x (y = 10, 11.2,
// …), on 25 mm bases 1.5" tall, named "<unit>-1", "<unit>-2", …, each
// carrying the weapons carry (ids of u.Weapons).
func Column(u events.UnitSpec, n int, x float64, m events.ModelSpec, carry ...string) events.UnitSpec {
	for i := 0; i < n; i++ {
		mi := m
		mi.ID = fmt.Sprintf("%s-%d", u.ID, i+1)
		mi.Height, mi.BaseMM = 1.5, 25
		mi.X, mi.Y = x, 10+float64(i)*1.2
		mi.Weapons = slices.Clone(carry)
		u.Models = append(u.Models, mi)
	}
	return u
}

// Rect is a rectangular terrain piece of kind from (x0, y0) to (x1, y1).
func Rect(id, kind string, x0, y0, x1, y1 float64) events.TerrainSpec {
	return events.TerrainSpec{ID: id, Kind: kind, Polygon: [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}}
}

// ToPhase starts Alice's turn 1 and goes to phase.
func (g *Game) ToPhase(phase string) {
	g.T.Helper()
	g.Do(Alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(Alice, projector.Command{Type: projector.CmdPhase, Phase: phase})
}

// Shoot is unit's shoot command at target (kind, for an edition whose
// shooting has kinds).
func Shoot(unit, target string, kind ...string) projector.Command {
	c := projector.Command{Type: projector.CmdShoot, Unit: unit, Target: target}
	if len(kind) > 0 {
		c.Kind = kind[0]
	}
	return c
}

// Move is the command that moves model of unit to (x, y).
func Move(unit, model string, x, y float64) projector.Command {
	return projector.Command{Type: projector.CmdMove, Unit: unit, Model: model, X: Ptr(x), Y: Ptr(y)}
}

// Ones is n dice all showing v.
func Ones(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Same fails t unless g's live state equals a fresh fold of its recorded
// events: replay equals live.
func Same(t testing.TB, g *Game) {
	t.Helper()
	live, err := g.State.Hash()
	if err != nil {
		t.Fatal(err)
	}
	re, err := g.Refold().Hash()
	if err != nil {
		t.Fatal(err)
	}
	if live != re {
		t.Fatalf("replayed state differs from live state")
	}
}
