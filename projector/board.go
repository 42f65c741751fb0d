package projector

import (
	"slices"
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
// visibility where the piece has none. Do not change it: it is cached
// (worldCache) and shared by the calls that find the table unchanged.
func (s *State) World(defaultVisibility float64) geom.World {
	return s.worldCache(defaultVisibility).world
}

// UnitBodies is u's models still on the table as geometry sees them, in
// unit order (AliveModels), taken from the cached World. Do not change it.
func (s *State) UnitBodies(u *Unit) []geom.Body {
	wc := s.worldCache(0)
	for i, v := range s.Units {
		if v == u {
			return wc.world.Bodies[wc.units[i]:wc.units[i+1]:wc.units[i+1]]
		}
	}
	out := make([]geom.Body, 0, len(u.Models)) // not a unit of s
	for _, m := range u.Models {
		if m.Alive() {
			out = append(out, Body(u, m))
		}
	}
	return out
}

// SetMemo keeps v, which an edition derived from the table as it is now,
// for Memo: ed3e keeps the shooting plan a declaration was decided with,
// which the fold of the declaration would derive again from the same
// table. Memo returns it as long as no model has moved, fallen or been
// replaced since (the cached World is the same one), nil otherwise. It is
// never encoded, and a clone does not have it.
func (s *State) SetMemo(v any) { s.memo = memo{s.worldCache(0), v} }

// Memo returns what SetMemo kept, or nil (see SetMemo).
func (s *State) Memo() any {
	if s.memo.w != nil && s.world == s.memo.w && s.world.current(s) {
		return s.memo.v
	}
	return nil
}

type memo struct {
	w *world
	v any
}

// world is the table as geometry saw it when last asked (World), and what
// it was built from: every model (its pointer, position and whether it was
// on the table), so a later call finds in one pass over the models whether
// anything moved, fell or was replaced (a clone's models are new ones).
// A declaration asks for the world of every firer and target; rebuilding
// it each time (a body per model, keywords read for each) was a fifth of
// the cost of folding one. A cache is built whole and never changed after:
// clones share it until theirs is rebuilt.
type world struct {
	vis    float64
	of     []*Unit
	models []*Model
	at     []placed
	units  []int // unit i's bodies are world.Bodies[units[i]:units[i+1]]
	world  geom.World
}

type placed struct {
	x, y    float64
	removed bool
}

// worldCache returns the cached world, rebuilt if the models changed since
// or defaultVisibility is another (0 takes the cached one's).
func (s *State) worldCache(defaultVisibility float64) *world {
	if c := s.world; c != nil && (defaultVisibility == 0 || c.vis == defaultVisibility) && c.current(s) {
		return c
	}
	if defaultVisibility == 0 && s.world != nil {
		defaultVisibility = s.world.vis
	}
	n := 0
	for _, u := range s.Units {
		n += len(u.Models)
	}
	c := &world{vis: defaultVisibility, of: slices.Clone(s.Units), models: make([]*Model, 0, n), at: make([]placed, 0, n), units: make([]int, 0, len(s.Units)+1)}
	c.world = geom.World{Areas: s.areas(defaultVisibility), Bodies: make([]geom.Body, 0, n)}
	for _, u := range s.Units {
		c.units = append(c.units, len(c.world.Bodies))
		for _, m := range u.Models {
			c.models = append(c.models, m)
			c.at = append(c.at, placed{m.X, m.Y, m.Removed})
			if m.Alive() {
				c.world.Bodies = append(c.world.Bodies, Body(u, m))
			}
		}
	}
	c.units = append(c.units, len(c.world.Bodies))
	s.world = c
	return c
}

// current reports whether s's models are the ones c was built from, where
// they were then.
func (c *world) current(s *State) bool {
	if len(c.units) != len(s.Units)+1 {
		return false
	}
	i := 0
	for j, u := range s.Units {
		if c.of[j] != u {
			return false
		}
		for _, m := range u.Models {
			if i >= len(c.models) || c.models[i] != m || c.at[i] != (placed{m.X, m.Y, m.Removed}) {
				return false
			}
			i++
		}
	}
	return i == len(c.models)
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
