package geom

import "github.com/matchrec/matchrec/events"

// AreaFromTerrain builds the Area of a recorded terrain piece. A zero
// Visibility means "the edition default" in the record, so the caller
// passes that default (6 in 3e).
func AreaFromTerrain(t events.TerrainSpec, defaultVisibility float64) Area {
	poly := make(Polygon, len(t.Polygon))
	for i, v := range t.Polygon {
		poly[i] = Point{v[0], v[1]}
	}
	vis := t.Visibility
	if vis == 0 {
		vis = defaultVisibility
	}
	return Area{ID: t.ID, Kind: t.Kind, Poly: poly, Visibility: vis}
}
