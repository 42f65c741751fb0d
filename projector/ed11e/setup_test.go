package ed11e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

var (
	alice = projtest.Player("alice")
	bob   = projtest.Player("bob")
)

// gun is a ranged weapon: 24", 1 attack, BS bs, S s, AP 0, D 1, keywords kw.
func gun(id string, bs, s int, kw ...string) events.WeaponSpec {
	return events.WeaponSpec{ID: id, Name: id, Range: 24, Attacks: "1", BS: bs, S: s, D: "1", Keywords: kw}
}

// squad: n models of player in a column at x (y = 10, 11.2, ...), T4 W1
// Sv4+, 25mm bases, each carrying every weapon given.
func squad(id, player string, n int, x float64, ws ...events.WeaponSpec) events.UnitSpec {
	u := events.UnitSpec{ID: id, Name: id, Player: player, Weapons: ws}
	var ids []string
	for _, w := range ws {
		ids = append(ids, w.ID)
	}
	for i := 0; i < n; i++ {
		u.Models = append(u.Models, events.ModelSpec{ID: fmt.Sprintf("%s-%d", id, i+1), T: 4, W: 1, Sv: 4,
			Height: 1.5, BaseMM: 25, X: x, Y: 10 + float64(i)*1.2, Weapons: ids})
	}
	return u
}

// with applies f to every model of u.
func with(u events.UnitSpec, f func(m *events.ModelSpec)) events.UnitSpec {
	for i := range u.Models {
		f(&u.Models[i])
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

func rect(id, kind string, x0, y0, x1, y1 float64) events.TerrainSpec {
	return events.TerrainSpec{ID: id, Kind: kind, Polygon: [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}}
}

// toShooting starts alice's turn 1 and goes to the shooting phase.
func toShooting(g *projtest.Game) {
	g.T.Helper()
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
}

func shoot(unit, target, kind string) projector.Command {
	return projector.Command{Type: projector.CmdShoot, Unit: unit, Target: target, Kind: kind}
}

func move(unit, model string, x, y float64) projector.Command {
	return projector.Command{Type: projector.CmdMove, Unit: unit, Model: model, X: projtest.Ptr(x), Y: projtest.Ptr(y)}
}

func allocate(model string) projector.Command {
	return projector.Command{Type: CmdAllocate, Model: model}
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

// pending asserts the match waits for kind from player, with need and dice
// when they are not 0.
func pending(t *testing.T, g *projtest.Game, kind, player, purpose string, dice, need int) {
	t.Helper()
	p := g.State.Pending
	if p.Kind != kind || p.Player != player || p.Purpose != purpose || (dice != 0 && p.Dice != dice) || (need != 0 && p.Need != need) {
		t.Fatalf("pending %+v, want %s by %s for %s, %d dice, need %d", p, kind, player, purpose, dice, need)
	}
}

// types returns the event types recorded from index from on.
func types(g *projtest.Game, from int) []events.Type {
	var out []events.Type
	for _, e := range g.Events[from:] {
		out = append(out, e.Type)
	}
	return out
}

// A weapon whose attacks or damage is no dice expression is refused when
// the match is created, naming it.
func TestSetupWithBadProfileIsRefused(t *testing.T) {
	for _, w := range []events.WeaponSpec{
		{ID: "odd", Range: 24, Attacks: "D7", BS: 4, S: 4, D: "1"},
		{ID: "odd", Range: 24, Attacks: "1", BS: 4, S: 4, D: "lots"},
	} {
		su := setup(squad("a", "alice", 1, 10, w), squad("b", "bob", 1, 20))
		_, err := projector.Decide(Rules{}, projector.New("m1"), events.Actor{Kind: events.ActorSystem},
			projector.Command{Type: projector.CmdCreate, Setup: &su})
		if r, ok := projector.AsRefusal(err); !ok || r.Code != projector.CodeBadRequest || !strings.Contains(r.Reason, "unit a weapon odd") {
			t.Errorf("%+v: %v", w, err)
		}
	}
}
