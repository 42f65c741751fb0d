package ed11e

import (
	"reflect"
	"testing"

	"github.com/matchrec/matchrec/projector"
)

// shared reports the path of the first slice or pointer that a and b (a
// value and its clone) share: a clone that shares one lets a simulation
// change the state it started from.
func shared(path string, a, b reflect.Value) string {
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Kind() == reflect.Interface {
			return shared(path, a.Elem(), b.Elem())
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(path, a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			if p := shared(path+"[]", a.Index(i), b.Index(i)); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if p := shared(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); p != "" {
				return p
			}
		}
	}
	return ""
}

func checkClone(t *testing.T, s *projector.State) *projector.State {
	t.Helper()
	c := s.Clone()
	// The edition's parts, reached through the core's Ext fields as the
	// core's Clone reaches them.
	sv, cv := reflect.ValueOf(s).Elem(), reflect.ValueOf(c).Elem()
	if p := shared("Ext", sv.FieldByName("Ext"), cv.FieldByName("Ext")); p != "" {
		t.Fatalf("clone shares %s", p)
	}
	if p := shared("Attack.Ext", sv.FieldByName("Attack").Elem().FieldByName("Ext"), cv.FieldByName("Attack").Elem().FieldByName("Ext")); p != "" {
		t.Fatalf("clone shares %s", p)
	}
	h1, _ := s.Hash()
	h2, _ := c.Hash()
	if h1 != h2 {
		t.Fatal("a clone must hash like its original")
	}
	return c
}

// Clone deep-copies every 11e field: checked mid-attack, with an offer, a
// re-roll made, wounds queued and actions recorded.
func TestCloneSharesNothing11e(t *testing.T) {
	g := newGame(t, squad("a", "alice", 3, 10, gun("bolter", 4, 4, KwRerollHitOnes)), squad("c", "alice", 1, 12), squad("b", "bob", 3, 20))
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	doAdvance(g, "c", 3)
	g.Do(alice, projector.Command{Type: CmdAction, Unit: "c", Kind: "secure"})
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	g.Do(alice, shoot("a", "b", Normal))
	g.Roll(1, 1, 6)
	checkClone(t, g.State) // a re-roll offered
	g.Do(alice, projector.Command{Type: projector.CmdReroll, Indices: []int{0}})
	checkClone(t, g.State) // a re-roll chosen
	g.Roll(6)
	g.Roll(6, 6)
	if g.State.Pending.Kind != WaitAllocate {
		t.Fatalf("pending %+v", g.State.Pending)
	}
	c := checkClone(t, g.State) // re-roll made, wounds queued
	shallow := *edAttack(g.State.Attack)
	if shared("", reflect.ValueOf(edAttack(g.State.Attack)), reflect.ValueOf(&shallow)) == "" {
		t.Fatal("the sharing check must catch a shallow copy")
	}
	if len(edAttack(c.Attack).Rerolled) == 0 || len(edAttack(c.Attack).Wounds) == 0 || len(ed(c).Actions) == 0 || len(ed(c).Advances) == 0 {
		t.Fatal("the state checked should hold every kind of 11e field")
	}
	same(t, g)
}
