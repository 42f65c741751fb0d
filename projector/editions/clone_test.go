package editions

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/projector/sim"
)

// What a clone may share with its original: what the setup fixed and no
// fold mutates (State.Clone's comment). Keyed by struct type and field.
var sharedByDesign = map[string]bool{
	"State.Terrain":      true,
	"Unit.Keywords":      true,
	"Unit.Weapons":       true,
	"ModelSpec.Weapons":  true,
	"ModelSpec.Keywords": true,
}

// A clone is the state it copies: it hashes the same (a nil slice stays
// nil: the encoding tells it from an empty one) and shares nothing a fold
// mutates, at every event of random matches of every edition (the 6e
// armies carry blasts and templates) and of every example. The recorder's
// live state is read through clones: a clone that hashed otherwise made
// the audit of a 6e blast shot fail (issue 22).
func TestCloneIsTheSameState(t *testing.T) {
	check := func(what string, s *projector.State) {
		t.Helper()
		c := s.Clone()
		h1, _ := s.Hash()
		h2, _ := c.Hash()
		if h1 != h2 {
			a, _ := s.Encode()
			b, _ := c.Encode()
			t.Fatalf("%s: the clone hashes %s, the state %s (%d and %d bytes encoded)", what, h2, h1, len(b), len(a))
		}
		for _, p := range sharedMemory(reflect.ValueOf(s), reflect.ValueOf(c), "State") {
			t.Errorf("%s: the clone shares %s with the state", what, p)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	for _, id := range IDs() {
		r, _ := Lookup(id)
		var armory []events.WeaponSpec
		if a, ok := r.(projector.Armory); ok {
			armory = a.Armory()
		}
		for seed := range uint64(4) {
			m := sim.RandomMatch(r, rand.New(rand.NewPCG(seed, 1)), armory...)
			g := projtest.New(t, r, m)
			ap := &sim.Autoplay{Rules: r, Dice: sim.NewDice(seed), MaxTurns: 3}
			for n := 0; n < 5000; n++ {
				actor, c, done := ap.Next(g.State)
				if done {
					break
				}
				g.Do(actor, c)
				check(fmt.Sprintf("%s seed %d event %d", id, seed, g.State.Seq), g.State)
			}
		}
	}
	paths, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	for _, path := range paths {
		sc, err := script.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Lookup(sc.Match.Edition)
		if err != nil {
			t.Fatal(err)
		}
		g := projtest.New(t, r, sc.Match.Created())
		check(path+" created", g.State)
		for _, e := range projtest.PlayScript(t, r, path).Events[1:] {
			if err := projector.Apply(r, g.State, e); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("%s event %d", path, e.Seq), g.State)
		}
	}
}

// sharedMemory lists the places where a and b (a value and its clone,
// walked in step) point at the same memory: a pointer, a non-empty
// slice's array or a map, outside sharedByDesign.
func sharedMemory(a, b reflect.Value, path string) []string {
	var out []string
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			return []string{path}
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return []string{path}
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, sharedMemory(a.Index(i), b.Index(i), path+"[]")...)
		}
	case reflect.Map:
		if !a.IsNil() && !b.IsNil() && a.Pointer() == b.Pointer() {
			return []string{path}
		}
	case reflect.Struct:
		ty := a.Type()
		for i := range ty.NumField() {
			f := ty.Field(i)
			if !f.IsExported() || sharedByDesign[ty.Name()+"."+f.Name] {
				continue // unexported: derived caches (State.areaCache)
			}
			out = append(out, sharedMemory(a.Field(i), b.Field(i), path+"."+f.Name)...)
		}
	}
	return out
}
