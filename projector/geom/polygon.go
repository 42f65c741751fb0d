package geom

// Polygon is a simple ring of vertices in inches, convex or concave,
// implicitly closed (the last vertex joins the first). Fewer than three
// distinct vertices make an empty polygon that contains nothing.
type Polygon []Point

// location is where a point lies relative to a polygon.
type location int

const (
	outside location = iota
	boundary
	inside
)

// edge returns the i-th edge of the ring, wrapping the last vertex to the
// first so callers never special-case the closing edge.
func (poly Polygon) edge(i int) (Point, Point) {
	return poly[i], poly[(i+1)%len(poly)]
}

// locate classifies p. The boundary is tested first, with tolerance Eps, so
// that the even-odd ray cast below only ever sees points clearly off every
// edge, where it is exact in practice.
func (poly Polygon) locate(p Point) location {
	if len(poly) < 3 {
		return outside
	}
	for i := range poly {
		a, b := poly.edge(i)
		if DistanceToSegment(p, a, b) <= Eps {
			return boundary
		}
	}
	// Even-odd rule with a horizontal ray towards +X. The half-open test on
	// Y (one end inclusive, the other exclusive) counts a vertex shared by
	// two edges exactly once, which is what makes concave rings work.
	in := false
	for i := range poly {
		a, b := poly.edge(i)
		if (a.Y > p.Y) != (b.Y > p.Y) {
			x := a.X + (p.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y)
			if p.X < x {
				in = !in
			}
		}
	}
	if in {
		return inside
	}
	return outside
}

// PointInPolygon reports whether p lies inside poly or on its boundary.
// The boundary counts as inside so that a model placed on the edge of a
// terrain piece is treated as standing in it, never in a gap between pieces.
func PointInPolygon(p Point, poly Polygon) bool {
	return poly.locate(p) != outside
}
