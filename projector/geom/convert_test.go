package geom

import (
	"testing"

	"github.com/matchrec/matchrec/events"
)

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
