package ed11e

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
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
)

// script is the match script format (docs/script.md, replay/script.go),
// read here on its own so that this package's tests do not depend on the
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

func readScript(t *testing.T, path string) script {
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
	if sc.Version != 1 || sc.Match.Tokens != nil {
		t.Fatalf("%s: version %d, tokens %v", path, sc.Version, sc.Match.Tokens)
	}
	return sc
}

// playScript plays a match script in memory, as `matchrec play` does
// through the recorder: each step as its player (or the judge), expected
// refusals checked (and the match unchanged by them), digital rolls made
// with seeded dice.
func playScript(t *testing.T, path string) *projtest.Game {
	t.Helper()
	sc := readScript(t, path)
	g := projtest.New(t, Rules{}, sc.Match)
	dice := sim.NewDice(7)
	for i, st := range sc.Steps {
		actor := projtest.Player(st.As)
		if st.As == "judge" {
			actor = events.Actor{Kind: events.ActorJudge}
		}
		c := st.Cmd
		if c.Type == projector.CmdRoll && c.Digital && len(c.Values) == 0 {
			c.Source = events.SourceDigital
			for n := 0; n < g.State.Pending.Dice; n++ {
				c.Values = append(c.Values, dice.D6())
			}
		}
		if st.ExpectRefusal != "" {
			g.Refused(actor, c, st.ExpectRefusal)
			continue
		}
		if err := g.Try(actor, c); err != nil {
			t.Fatalf("step %d (as %s, %s): %v", i+1, st.As, c.Type, err)
		}
		if testing.Verbose() {
			t.Logf("step %d: next: %s", i+1, g.State.Pending.Text)
		}
	}
	return g
}

// The 11e example match: all four shooting types, a MONSTER in close
// quarters, indirect fire at a hidden unit, variable attacks and damage;
// the replayed state equals the live one.
func TestExampleMatch(t *testing.T) {
	g := playScript(t, filepath.Join("..", "..", "examples", "11e-shooting-types.yaml"))
	same(t, g)
	var kinds []string
	monsterCQ, hiddenIndirect, variableDamage := false, false, false
	s := projector.New("m1")
	for _, e := range g.Events {
		if err := projector.Apply(Rules{}, s, e); err != nil {
			t.Fatal(err)
		}
		if e.Type == events.TypeShootingDeclared {
			a := s.Attack
			if a == nil {
				a = s.LastAttack
			}
			kinds = append(kinds, a.Type)
			if a.Type == Indirect {
				hiddenIndirect = hiddenIndirect || hidden(s, a)
			}
			u := s.Unit(a.Firer)
			monsterCQ = monsterCQ || (a.Type == CloseQuarters && projector.HasKeyword(u.Keywords, KwMonster))
		}
		if s.Attack != nil && s.Attack.Stage == stageDamage {
			variableDamage = true
		}
	}
	for _, k := range Types {
		if !slices.Contains(kinds, k) {
			t.Errorf("the example never uses %s shooting (uses %v)", k, kinds)
		}
	}
	if !monsterCQ || !hiddenIndirect || !variableDamage {
		t.Errorf("monster in close quarters %v, indirect at a hidden unit %v, variable damage %v", monsterCQ, hiddenIndirect, variableDamage)
	}
	if !g.State.Ended {
		t.Error("the example should end the match")
	}
}

// hidden reports whether no firing model of attack a can see any model of
// its target (at the declaration, i.e. now).
func hidden(s *projector.State, a *projector.Attack) bool {
	u, t := s.Unit(a.Firer), s.Unit(a.Target)
	var tb []geom.Body
	for _, m := range t.AliveModels() {
		tb = append(tb, projector.Body(t, m))
	}
	for _, sh := range a.Shooters {
		l := look(sightWorld(s), projector.Body(u, u.Model(sh.Model)), tb, u.Player, t.ID)
		if slices.Contains(l.vis, true) {
			return false
		}
	}
	return true
}
