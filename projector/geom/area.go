package geom

// Terrain kinds, the same strings as events.TerrainSpec.Kind so a recorded
// terrain piece maps onto an Area without translation.
const (
	KindWoods    = "woods"         // area terrain: seen into up to Visibility, never through
	KindBlocking = "blocking"      // buildings, hills, large terrain: block sight
	KindRuins    = "ruins"         // do not block sight here; give cover (6e)
	KindFort     = "fortification" // do not block sight here unless Blocking; give cover (6e)
	KindWire     = "razor-wire"    // do not block sight; give cover (6e)
)

// Area is a terrain piece as a polygon on the table.
type Area struct {
	ID   string
	Kind string // one of the Kind constants
	Poly Polygon
	// Visibility is how far, in inches, sight goes into a woods area. It is
	// used exactly as given: the edition default (6" in 3e) must be filled
	// in by the caller, because geometry is shared by editions that differ.
	// Zero means a model inside can only be seen from the same point.
	Visibility float64
	// Blocking makes any kind of piece block sight like KindBlocking, for a
	// fortification or ruin that an edition treats as solid.
	Blocking bool
}

// Blocks reports whether the piece stops any line of sight that enters it.
func (a Area) Blocks() bool { return a.Blocking || a.Kind == KindBlocking }

// isWoods reports whether the woods rule (see, but never through) applies.
// Only KindWoods is area terrain in the 3e sense; ruins, fortifications and
// wire only obscure.
func (a Area) isWoods() bool { return a.Kind == KindWoods && !a.Blocks() }

// label names the piece for human-readable reasons, e.g. "woods W1".
// Every blocking piece is called a building: the recorder does not know a
// hill from a hab-block, and the reason needs a noun a player recognises.
func (a Area) label() string {
	switch {
	case a.Blocks():
		return "building " + a.ID
	case a.Kind == KindWire:
		return "razor wire " + a.ID
	case a.Kind == "":
		return "terrain " + a.ID
	}
	return a.Kind + " " + a.ID
}
