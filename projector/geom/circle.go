package geom

// DistanceToSegment is the shortest distance from p to the segment a–b. A
// degenerate segment (a == b) is the point a.
func DistanceToSegment(p, a, b Point) float64 {
	return Dist(p, Lerp(a, b, closestParam(p, a, b)))
}

// closestParam is the parameter in [0,1] of the point of segment a–b
// closest to p. Sight uses it to order obstacles along the line of fire.
func closestParam(p, a, b Point) float64 {
	d := b.Sub(a)
	l2 := d.Dot(d)
	if l2 == 0 {
		return 0
	}
	t := p.Sub(a).Dot(d) / l2
	switch {
	case t < 0:
		return 0
	case t > 1:
		return 1
	}
	return t
}

// SegmentIntersectsCircle reports whether the segment a–b enters the open
// disc of radius r around c, i.e. passes strictly closer than r to c (by
// more than Eps). A line that only grazes the rim does not count: a model
// whose base is merely touched by the line has not been looked *through*.
// Consequently a zero radius (a model without a base) never intersects.
func SegmentIntersectsCircle(a, b, c Point, r float64) bool {
	return DistanceToSegment(c, a, b) < r-Eps
}
