package ed6e

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

const exampleScript = "6e-grot-wood-assault.yaml"

// playScript plays a script in memory with the real script reader.
func playScript(t *testing.T, path string) *projtest.Game {
	t.Helper()
	return projtest.PlayScript(t, Rules{}, path)
}

// The example match does what its header says, and replay equals live.
func TestExampleMatch(t *testing.T) {
	g := playScript(t, filepath.Join("..", "..", "examples", exampleScript))
	same(t, g)
	s := g.State
	if !s.Ended || s.Winner != "alice" {
		t.Fatal("the example should end with Alice the winner")
	}
	grukk, nob1 := s.Unit("nobz").Model("grukk"), s.Unit("nobz").Model("nob-1")
	if grukk.WoundsLeft != 2 || nob1.WoundsLeft != 1 {
		t.Errorf("Look Out, Sir: Grukk %d wounds, nob-1 %d", grukk.WoundsLeft, nob1.WoundsLeft)
	}
	if got := alive(g, "boyz"); !slices.Equal(got, []string{"boy-8", "boy-9", "boss"}) {
		t.Errorf("boyz left %v", got)
	}
	if got := alive(g, "tac"); len(got) != 8 || slices.Contains(got, "tac-1") || slices.Contains(got, "tac-2") {
		t.Errorf("tac left %v", got)
	}
	seen := map[events.Type]bool{} // only looked up
	for _, e := range g.Events {
		seen[e.Type] = true
	}
	for _, ty := range []events.Type{TypeLookOutSirDeclared, TypeLookOutSirDeclined, TypeChargeDeclared,
		TypeOverwatchDeclared, TypeCombatChosen, TypeStrikeDeclared, TypeWoundPoolsOrdered} {
		if !seen[ty] {
			t.Errorf("the example records no %s", ty)
		}
	}
	if s.Unit("boyz").Engaged != nil || s.Unit("tac").Engaged != nil {
		t.Error("the Boyz fled: nobody is locked")
	}
}

// The same match measured at the table (geometry measured: no positions
// at all, every declaration with its facts, the measure steps answered,
// a measurement contested and amended after the end) ends exactly as the
// positioned one does.
func TestMeasuredExampleEndsAsThePositionedOne(t *testing.T) {
	pos := playScript(t, filepath.Join("..", "..", "examples", exampleScript))
	m := playScript(t, filepath.Join("..", "..", "examples", "6e-measured-grot-wood.yaml"))
	same(t, m)
	if !m.State.Measured() || len(m.State.Measures) == 0 {
		t.Fatal("the measured example measures nothing")
	}
	ruled := m.AsRuled()
	if a, b := projtest.Outcome(pos.State), projtest.Outcome(ruled); a != b {
		t.Fatalf("the measured example ends otherwise:\n%s\n---\n%s", a, b)
	}
	for _, ms := range ruled.Measures {
		if ms.Status == projector.RollUnconfirmed {
			t.Errorf("measurement %d was never confirmed", ms.Seq)
		}
	}
	if d := ruled.Disputes; len(d) != 2 || d[0].Decision != events.RulingAmend || d[1].Decision != events.RulingUphold {
		t.Fatalf("disputes %+v", d)
	}
}
