package geom

import "math"

// Body is a model on the table as geometry sees it: a round base at a
// position, a height for sight, and the identity needed to decide who may
// block whom.
type Body struct {
	ID   string // model id; unique within its unit
	Unit string // unit id
	Side string // owning player id
	Pos  Point  // centre of the base, inches
	// Radius of the base in inches (see RadiusFromBaseMM). Zero means the
	// model is a point: distances are measured to its centre and it never
	// blocks sight, since a line cannot pass through a point's interior.
	Radius float64
	Height float64 // inches, for the "twice their height" sight rule
	// Vehicle models block sight for both sides regardless of height.
	Vehicle bool
}

// RadiusFromBaseMM converts a base diameter in millimetres (how bases are
// sold and recorded, events.ModelSpec.BaseMM) into a radius in inches (how
// the table is measured). Zero or negative gives 0: a point.
func RadiusFromBaseMM(mm float64) float64 {
	if mm <= 0 {
		return 0
	}
	return mm / 25.4 / 2
}

// same reports whether a and b are the same model. Ids are only unique
// within a unit, so the unit is part of the identity.
func same(a, b Body) bool { return a.ID == b.ID && a.Unit == b.Unit }

// BaseDistance is the distance between the closest points of the two
// bases: centre distance minus both radii, floored at 0 for touching or
// overlapping bases. All range checks measure this way (docs/rules/README.md#conventions: "measured
// between the closest points of the two models' bases").
func BaseDistance(a, b Body) float64 {
	return math.Max(0, Dist(a.Pos, b.Pos)-a.Radius-b.Radius)
}

// Nearest returns the index in to of the body whose base is closest to
// from's base, and that BaseDistance; (-1, +Inf) when to is empty. Ties go
// to the lowest index so the choice is reproducible ("closest target
// model" for range in 3e, wound allocation in 6e).
func Nearest(from Body, to []Body) (int, float64) {
	best, bd := -1, math.Inf(1)
	for i, b := range to {
		if d := BaseDistance(from, b); d < bd-Eps {
			best, bd = i, d
		}
	}
	return best, bd
}
