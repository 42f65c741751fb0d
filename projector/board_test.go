package projector

import (
	"testing"

	"github.com/matchrec/matchrec/events"
)

func TestBodyFromModel(t *testing.T) {
	u := &Unit{ID: "rhino", Player: "alice", Keywords: []string{"[Vehicle]"}}
	m := &Model{ModelSpec: events.ModelSpec{ID: "r1", X: 3, Y: 4, BaseMM: 50.8, Height: 3}}
	b := Body(u, m)
	if b.ID != "r1" || b.Unit != "rhino" || b.Side != "alice" || b.Pos.X != 3 || b.Pos.Y != 4 || b.Radius != 1 || b.Height != 3 || !b.Vehicle {
		t.Fatalf("body %+v", b)
	}
	u.Keywords = nil
	if Body(u, m).Vehicle {
		t.Fatal("no VEHICLE keyword, yet a vehicle")
	}
	m.Keywords = []string{" vehicle "}
	if !Body(u, m).Vehicle {
		t.Fatal("a model's own VEHICLE keyword must count")
	}
}

func TestHasKeyword(t *testing.T) {
	cases := []struct {
		kws  []string
		k    string
		want bool
	}{
		{[]string{"[ASSAULT]"}, "assault", true},
		{[]string{"assault"}, "[ASSAULT]", true},
		{[]string{"HEAVY"}, "assault", false},
		{nil, "x", false},
		{[]string{"[INDIRECT FIRE]"}, "indirect fire", true},
	}
	for _, c := range cases {
		if got := HasKeyword(c.kws, c.k); got != c.want {
			t.Errorf("HasKeyword(%v, %q) = %v", c.kws, c.k, got)
		}
	}
}

// Terrain geometry is cached per state; a clone shares it, and the cache
// never reaches the encoded state.
func TestWorldAreasCached(t *testing.T) {
	s := &State{Terrain: []events.TerrainSpec{{ID: "w", Kind: events.TerrainWoods, Polygon: [][2]float64{{0, 0}, {1, 0}, {1, 1}}}}}
	a := s.World(6).Areas
	b := s.World(6).Areas
	if &a[0] != &b[0] || a[0].Visibility != 6 {
		t.Fatal("areas rebuilt for the same visibility")
	}
	if c := s.World(2).Areas; c[0].Visibility != 2 {
		t.Fatal("another default visibility must rebuild the areas")
	}
	before, _ := (&State{Terrain: s.Terrain}).Encode()
	after, _ := s.Encode()
	if string(before) != string(after) {
		t.Fatal("the cache changed the encoded state")
	}
}
