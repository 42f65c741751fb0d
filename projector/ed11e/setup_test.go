package ed11e

import (
	"strings"
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

// gun is a ranged weapon: 24", 1 attack, BS bs, S s, AP 0, D 1, keywords kw.
func gun(id string, bs, s int, kw ...string) events.WeaponSpec {
	return events.WeaponSpec{ID: id, Name: id, Range: 24, Attacks: "1", BS: bs, S: s, D: "1", Keywords: kw}
}

// squad: n models of player in a column at x (y = 10, 11.2, ...), T4 W1
// Sv4+, 25mm bases, each carrying every weapon given.
func squad(id, player string, n int, x float64, ws ...events.WeaponSpec) events.UnitSpec {
	var ids []string
	for _, w := range ws {
		ids = append(ids, w.ID)
	}
	return projtest.Column(events.UnitSpec{ID: id, Name: id, Player: player, Weapons: ws}, n, x,
		events.ModelSpec{T: 4, W: 1, Sv: 4}, ids...)
}

// with applies f to every model of u.
func with(u events.UnitSpec, f func(m *events.ModelSpec)) events.UnitSpec {
	for i := range u.Models {
		f(&u.Models[i])
	}
	return u
}

func setup(units ...events.UnitSpec) events.MatchCreated { return projtest.Setup(Edition, units...) }

func newGame(t *testing.T, units ...events.UnitSpec) *projtest.Game {
	return projtest.New(t, Rules{}, setup(units...))
}

// toShooting starts alice's turn 1 and goes to the shooting phase.
func toShooting(g *projtest.Game) { g.ToPhase(projector.PhaseShooting) }

func allocate(model string) projector.Command {
	return projector.Command{Type: CmdAllocate, Model: model}
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
