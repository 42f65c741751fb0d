package replay_test

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/ed6e"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/replay"
)

// lines tells g's events and fails t unless every want is one of them.
func lines(t *testing.T, g *projtest.Game, want ...string) []string {
	t.Helper()
	got, err := replay.Narrate(g.Rules, g.Events)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !contains(got, w) {
			t.Errorf("missing line %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	return got
}

func squad(id, name, player string, n int, x float64, m events.ModelSpec, ws ...events.WeaponSpec) events.UnitSpec {
	var carry []string
	if len(ws) > 0 {
		carry = []string{ws[0].ID}
	}
	return projtest.Column(events.UnitSpec{ID: id, Name: name, Player: player, Weapons: ws}, n, x, m, carry...)
}

var (
	marine = events.ModelSpec{Name: "Marine", WS: 4, BS: 4, S: 4, T: 4, W: 1, I: 4, A: 1, Ld: 8, Sv: 3}
	ork    = events.ModelSpec{Name: "Ork Boy", WS: 4, BS: 2, S: 3, T: 4, W: 1, I: 2, A: 2, Ld: 7, Sv: 6}
)

// Issue 16, item 7: the 6e charge roll says what it decided.
func TestChargeRollTellsItsOutcome(t *testing.T) {
	g := projtest.New(t, ed6e.Rules{}, projtest.Setup(ed6e.Edition,
		squad("tac", "Tactical Squad", "alice", 1, 10, marine), squad("boyz", "Ork Boyz", "bob", 1, 10+8+25/25.4, ork)))
	g.ToPhase(projector.PhaseAssault)
	g.Do(projtest.Alice, projector.Command{Type: ed6e.CmdCharge, Unit: "tac", Target: "boyz"})
	g.Roll(3, 4)
	lines(t, g, `Alice rolls 2 D6 to charge: 3 4 [manual] — 7": needed 8.0" — the charge fails`, "Alice: Tactical Squad charges Ork Boyz")
}

// Issue 16, item 7: focus fire is in the declaration and the summary, with
// the wounds lost to it.
func TestFocusFireAndItsLostWoundsAreTold(t *testing.T) {
	bolter := events.WeaponSpec{ID: "bolter", Name: "bolter", Range: 24, Type: ed6e.Assault, Shots: 1, S: 4, AP: 4}
	boyz := squad("boyz", "Ork Boyz", "bob", 3, 20, ork)
	boyz.Models[1].X, boyz.Models[2].X = 31, 31 // in the wood: 5+ cover
	su := projtest.Setup(ed6e.Edition, squad("tac", "Tactical Squad", "alice", 3, 10, marine, bolter), boyz)
	su.Terrain = []events.TerrainSpec{projtest.Rect("wood", events.TerrainWoods, 30, 0, 40, 20)}
	g := projtest.New(t, ed6e.Rules{}, su)
	g.ToPhase(projector.PhaseShooting)
	c := projtest.Shoot("tac", "boyz")
	c.FocusFire = "none"
	g.Do(projtest.Alice, c)
	g.Roll(6, 6, 6)
	g.Roll(6, 6, 6)
	lines(t, g,
		"Alice: Tactical Squad shoots at Ork Boyz — 3 bolters, 3 shots; 3 of 3 target models in range and sight; focus fire on the models with no cover: 1 model may take the wounds",
		"Turn 1 — Tactical Squad fires 3 bolters (3 shots) at Ork Boyz: 3 hits on 3+, 3 wounds on 4+, no save — 1 model removed (Ork Boy); focus fire on the models with no cover; 2 wounds lost: no model in range and sight that focus fire allows was left to take them")
}

// Issue 16, item 7: "1 shot", "1 casualty", "1 terrain piece".
func TestOneIsSingular(t *testing.T) {
	bp := events.WeaponSpec{ID: "bp", Name: "bolt pistol", Range: 12, Type: ed3e.Pistol, S: 4}
	su := projtest.Setup(ed3e.Edition, squad("tac", "Tactical Squad", "alice", 1, 10, marine, bp), squad("boyz", "Ork Boyz", "bob", 2, 15, ork))
	su.Terrain = []events.TerrainSpec{projtest.Rect("wood", events.TerrainWoods, 40, 0, 50, 20)}
	g := projtest.New(t, ed3e.Rules{}, su)
	g.ToPhase(projector.PhaseShooting)
	g.Do(projtest.Alice, projtest.Shoot("tac", "boyz"))
	g.Roll(6)
	g.Roll(6)
	g.Roll(1)
	if p := g.State.Pending.Text; !strings.Contains(p, "chooses 1 casualty from Ork Boyz") {
		t.Fatalf("pending %q", p)
	}
	got := lines(t, g, "Alice: Tactical Squad shoots at Ork Boyz — a bolt pistol, 1 shot; 2 of 2 target models in range and sight")
	if !strings.Contains(got[0], "(3e, 72x48\" table, 1 terrain piece)") {
		t.Fatalf("created: %q", got[0])
	}
}
