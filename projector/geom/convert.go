package geom

import (
	"strings"

	"github.com/matchrec/matchrec/events"
)

// BodyFromModel builds the Body of model m of unit u as recorded in
// events.MatchCreated: Side is the unit's player, the base diameter is
// converted to a radius, and the model is a vehicle when the model or its
// unit carries the VEHICLE keyword (any case). Positions after moves are
// the caller's to update.
func BodyFromModel(u events.UnitSpec, m events.ModelSpec) Body {
	return Body{
		ID:      m.ID,
		Unit:    u.ID,
		Side:    u.Player,
		Pos:     Point{m.X, m.Y},
		Radius:  RadiusFromBaseMM(m.BaseMM),
		Height:  m.Height,
		Vehicle: hasKeyword(m.Keywords, "VEHICLE") || hasKeyword(u.Keywords, "VEHICLE"),
	}
}

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

func hasKeyword(kws []string, k string) bool {
	for _, kw := range kws {
		if strings.EqualFold(strings.TrimSpace(kw), k) {
			return true
		}
	}
	return false
}
