package projector

import (
	"strings"

	"github.com/matchrec/matchrec/projector/geom"
)

// KwVehicle, on a model or its unit, makes it a vehicle for sight: it
// blocks the line of sight of both sides (docs/rules/3e.md#line-of-sight).
const KwVehicle = "VEHICLE"

// Body is model m of unit u as geometry sees it, at its current position.
func Body(u *Unit, m *Model) geom.Body {
	return geom.Body{
		ID: m.ID, Unit: u.ID, Side: u.Player,
		Pos:     geom.Point{X: m.X, Y: m.Y},
		Radius:  geom.RadiusFromBaseMM(m.BaseMM),
		Height:  m.Height,
		Vehicle: HasKeyword(m.Keywords, KwVehicle) || HasKeyword(u.Keywords, KwVehicle),
	}
}

// World is the table as geometry sees it: every model still on the table
// and every terrain piece, woods filled with the edition's default
// visibility where the piece has none.
func (s *State) World(defaultVisibility float64) geom.World {
	n := 0
	for _, u := range s.Units {
		n += len(u.Models)
	}
	w := geom.World{Areas: s.areas(defaultVisibility), Bodies: make([]geom.Body, 0, n)}
	for _, u := range s.Units {
		for _, m := range u.Models {
			if m.Alive() {
				w.Bodies = append(w.Bodies, Body(u, m))
			}
		}
	}
	return w
}

// HasKeyword reports whether kws holds k, ignoring case and brackets
// ("[ASSAULT]" matches "assault"). It allocates nothing: folds ask it for
// every model of every line of sight.
func HasKeyword(kws []string, k string) bool {
	k = trimKeyword(k)
	for _, kw := range kws {
		if strings.EqualFold(trimKeyword(kw), k) {
			return true
		}
	}
	return false
}

// trimKeyword drops the brackets and spaces around a keyword
// ("[ASSAULT]" → "ASSAULT") without strings.Trim's per-call cutset.
func trimKeyword(k string) string {
	for len(k) > 0 && (k[0] == '[' || k[0] == ' ') {
		k = k[1:]
	}
	for len(k) > 0 && (k[len(k)-1] == ']' || k[len(k)-1] == ' ') {
		k = k[:len(k)-1]
	}
	return k
}

// areas converts the terrain once per state and visibility: terrain never
// changes after creation, and the fold asks for it at every declaration.
func (s *State) areas(defaultVisibility float64) []geom.Area {
	if s.areaCache != nil && s.areaCacheVis == defaultVisibility {
		return s.areaCache
	}
	out := make([]geom.Area, 0, len(s.Terrain))
	for _, t := range s.Terrain {
		out = append(out, geom.AreaFromTerrain(t, defaultVisibility))
	}
	s.areaCache, s.areaCacheVis = out, defaultVisibility
	return out
}
