package ed6e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

const exampleScript = "6e-grot-wood-assault.yaml"

// script is the match script format (docs/script.md, replay/script.go),
// read here on its own so this package's tests do not depend on the
// replay package; `matchrec play` reads the same file with the real reader.
type script struct {
	Version int                 `json:"version"`
	Match   events.MatchCreated `json:"match"`
	Steps   []struct {
		As            string            `json:"as"`
		Cmd           projector.Command `json:"cmd"`
		ExpectRefusal string            `json:"expect_refusal"`
		Note          string            `json:"note"`
	} `json:"steps"`
}

// playScript plays a script in memory, each step as its player (or the
// judge); expected refusals must come, and leave the match unchanged.
func playScript(t *testing.T, path string) *projtest.Game {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	var sc script
	if err := dec.Decode(&sc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	g := projtest.New(t, Rules{}, sc.Match)
	for i, st := range sc.Steps {
		actor := projtest.Player(st.As)
		if st.As == "judge" {
			actor = events.Actor{Kind: events.ActorJudge}
		}
		if st.ExpectRefusal != "" {
			g.Refused(actor, st.Cmd, st.ExpectRefusal)
			continue
		}
		if err := g.Try(actor, st.Cmd); err != nil {
			t.Fatalf("step %d (as %s, %s): %v", i+1, st.As, st.Cmd.Type, err)
		}
		if testing.Verbose() {
			t.Logf("step %d: next: %s", i+1, g.State.Pending.Text)
		}
	}
	return g
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
	for _, ty := range []events.Type{events.TypeLookOutSirDeclared, events.TypeLookOutSirDeclined, events.TypeChargeDeclared,
		events.TypeOverwatchDeclared, events.TypeCombatChosen, events.TypeStrikeDeclared, events.TypeWoundPoolsOrdered} {
		if !seen[ty] {
			t.Errorf("the example records no %s", ty)
		}
	}
	if s.Unit("boyz").Engaged != nil || s.Unit("tac").Engaged != nil {
		t.Error("the Boyz fled: nobody is locked")
	}
}
