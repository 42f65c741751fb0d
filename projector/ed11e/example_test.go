package ed11e

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/geom"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/projector/projtest"
)

// playScript plays a match script in memory with the real script reader.
func playScript(t *testing.T, path string) *projtest.Game {
	t.Helper()
	return projtest.PlayScript(t, Rules{}, path)
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
			kinds = append(kinds, a.Kind)
			if a.Kind == Indirect {
				hiddenIndirect = hiddenIndirect || hidden(s, a)
			}
			u := s.Unit(a.Firer)
			monsterCQ = monsterCQ || (a.Kind == CloseQuarters && projector.HasKeyword(u.Keywords, KwMonster))
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
		if kit.Look(sightWorld(s), projector.Body(u, u.Model(sh.Model)), tb, u.Player, t.ID).Seen() {
			return false
		}
	}
	return true
}
