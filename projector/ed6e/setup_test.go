package ed6e

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
	u := events.UnitSpec{ID: id, Name: "Tactical Squad", Player: "alice", Weapons: ws}
	for i := 0; i < n; i++ {
		m := events.ModelSpec{ID: fmt.Sprintf("%s-%d", id, i+1), Name: "Marine", WS: 4, BS: 4, S: 4, T: 4, W: 1, I: 4, A: 1, Ld: 8, Sv: 3,
			Height: 1.5, BaseMM: 25, X: x, Y: 10 + float64(i)*1.2}
		if len(ws) > 0 {
			m.Weapons = []string{ws[0].ID}
		}
		u.Models = append(u.Models, m)
	}
	return u
}

// boyz: bob's n Orks in a column at x, WS4 BS2 S3 T4 I2 A2 Ld7 Sv6.
func boyz(id string, n int, x float64, ws ...events.WeaponSpec) events.UnitSpec {
	u := events.UnitSpec{ID: id, Name: "Ork Boyz", Player: "bob", Weapons: ws}
	for i := 0; i < n; i++ {
		m := events.ModelSpec{ID: fmt.Sprintf("%s-%d", id, i+1), Name: "Ork Boy", WS: 4, BS: 2, S: 3, T: 4, W: 1, I: 2, A: 2, Ld: 7, Sv: 6,
			Height: 1.5, BaseMM: 25, X: x, Y: 10 + float64(i)*1.2}
		if len(ws) > 0 {
			m.Weapons = []string{ws[0].ID}
		}
		u.Models = append(u.Models, m)
	}
	return u
}

func setup(units ...events.UnitSpec) events.MatchCreated {
	return events.MatchCreated{Edition: Edition,
		Players: []events.PlayerSpec{{ID: "alice", Name: "Alice"}, {ID: "bob", Name: "Bob"}},
		Units:   units}
}

func newGame(t *testing.T, units ...events.UnitSpec) *projtest.Game {
	return projtest.New(t, Rules{}, setup(units...))
}

func newGameFrom(t *testing.T, su events.MatchCreated) *projtest.Game {
	return projtest.New(t, Rules{}, su)
}

// toShooting starts alice's turn 1 and goes to the shooting phase.
func toShooting(g *projtest.Game) {
	g.T.Helper()
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
}

// toAssault starts alice's turn 1 and goes to the assault phase.
func toAssault(g *projtest.Game) {
	g.T.Helper()
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
}

func shoot(unit, target string) projector.Command {
	return projector.Command{Type: projector.CmdShoot, Unit: unit, Target: target}
}

func move(unit, model string, x, y float64) projector.Command {
	return projector.Command{Type: projector.CmdMove, Unit: unit, Model: model, X: projtest.Ptr(x), Y: projtest.Ptr(y)}
}

// same asserts the live state equals a fresh fold of the recorded events.
func same(t *testing.T, g *projtest.Game) {
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

func ones(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func rect(id, kind string, x0, y0, x1, y1 float64) events.TerrainSpec {
	return events.TerrainSpec{ID: id, Kind: kind, Polygon: [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}}
}

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
