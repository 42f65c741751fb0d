package geom

import (
	"testing"

	"github.com/matchrec/matchrec/events"
)

func TestBodyFromModel(t *testing.T) {
	u := events.UnitSpec{ID: "u1", Player: "p2"}
	m := events.ModelSpec{ID: "m1", X: 3, Y: 4, BaseMM: 25.4, Height: 1.5}
	got := BodyFromModel(u, m)
	want := Body{ID: "m1", Unit: "u1", Side: "p2", Pos: Point{3, 4}, Radius: 0.5, Height: 1.5}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	m.Keywords = []string{"Vehicle"}
	if !BodyFromModel(u, m).Vehicle {
		t.Fatal("model VEHICLE keyword ignored")
	}
	m.Keywords = nil
	u.Keywords = []string{"TANK", "VEHICLE"}
	if !BodyFromModel(u, m).Vehicle {
		t.Fatal("unit VEHICLE keyword ignored")
	}
}

func TestAreaFromTerrain(t *testing.T) {
	ts := events.TerrainSpec{ID: "W1", Kind: events.TerrainWoods, Polygon: [][2]float64{{0, 0}, {4, 0}, {4, 4}}}
	a := AreaFromTerrain(ts, 6)
	if a.ID != "W1" || a.Kind != KindWoods || a.Visibility != 6 || len(a.Poly) != 3 || a.Poly[2] != (Point{4, 4}) {
		t.Fatalf("got %+v", a)
	}
	ts.Visibility = 2
	if AreaFromTerrain(ts, 6).Visibility != 2 {
		t.Fatal("recorded visibility overridden by the default")
	}
}
