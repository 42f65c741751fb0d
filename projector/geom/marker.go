package geom

import "math"

// Marker is a template or blast marker lying on the table: the hull of a
// disc of radius RA centred on A and one of radius RB centred on B. A
// round blast marker has A = B and RA = RB; a flame template is the
// teardrop from a small disc at its narrow end to a large one at its wide
// end. The hull of two discs is the union of the discs in between (centre
// and radius moving together from one to the other), which is how Gap
// measures it.
type Marker struct {
	A, B   Point
	RA, RB float64
}

// Blast is a round marker of diameter d centred on c.
func Blast(c Point, d float64) Marker {
	return Marker{A: c, B: c, RA: d / 2, RB: d / 2}
}

// Template is a teardrop marker laid from the base of from toward aim: its
// narrow end (width narrow) touches from's base and it runs length inches
// along the line to aim, ending in its wide end (width wide). ok is false
// when aim is from's own centre: the template points nowhere.
func Template(from Body, aim Point, length, narrow, wide float64) (m Marker, ok bool) {
	d := aim.Sub(from.Pos)
	l := d.Len()
	if l < Eps {
		return Marker{}, false
	}
	u := d.Scale(1 / l)
	tip := from.Pos.Add(u.Scale(from.Radius))
	return Marker{A: tip.Add(u.Scale(narrow / 2)), B: tip.Add(u.Scale(length - wide/2)), RA: narrow / 2, RB: wide / 2}, true
}

// Gap is how far p lies outside the marker (negative inside): the least,
// over the discs between the two ends, of p's distance to the disc's
// centre less its radius. That is a convex function of where along the
// marker one looks, so a ternary search finds its least value.
func (m Marker) Gap(p Point) float64 {
	at := func(t float64) float64 {
		return Dist(p, Lerp(m.A, m.B, t)) - (m.RA + t*(m.RB-m.RA))
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		a, b := lo+(hi-lo)/3, hi-(hi-lo)/3
		if at(a) <= at(b) {
			hi = b
		} else {
			lo = a
		}
	}
	return min(at(0), at(1), at((lo+hi)/2))
}

// Covers reports whether b's base lies under the marker, wholly or in
// part: a base the marker's edge touches counts.
func (m Marker) Covers(b Body) bool { return m.Gap(b.Pos) <= b.Radius+Eps }

// Bearing is the unit vector of a bearing in degrees, clockwise from the
// table's +y direction (0° = +y, 90° = +x).
func Bearing(deg float64) Point {
	r := deg * math.Pi / 180
	return Point{X: math.Sin(r), Y: math.Cos(r)}
}
