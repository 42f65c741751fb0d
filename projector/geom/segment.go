package geom

import (
	"math"
	"slices"
)

// SegmentPolygonIntersections returns the parameters t in [0,1] (a at 0,
// b at 1; see Lerp) where the segment a–b meets the boundary of poly,
// sorted ascending with near-duplicates (closer than Eps) merged. Where the
// segment runs along an edge, both ends of the shared stretch are reported.
// A degenerate segment (a == b) or an empty polygon gives nil.
//
// The function is deliberately dumb: it intersects the segment with every
// edge independently, which is robust for any simple polygon, convex or not,
// and leaves deciding "inside or outside" to a midpoint test per piece (see
// SegmentInsideIntervals). Clever walks that toggle inside/outside at each
// crossing go wrong at vertices and collinear edges; this does not.
func SegmentPolygonIntersections(a, b Point, poly Polygon) []float64 {
	d := b.Sub(a)
	dl := d.Len()
	if dl == 0 || len(poly) < 3 {
		return nil
	}
	var ts []float64
	add := func(t float64) {
		if t >= -Eps && t <= 1+Eps {
			ts = append(ts, math.Min(1, math.Max(0, t)))
		}
	}
	for i := range poly {
		c, c2 := poly.edge(i)
		e := c2.Sub(c)
		el := e.Len()
		if el == 0 {
			continue // repeated vertex, e.g. an explicit closing point
		}
		ca := c.Sub(a)
		den := d.Cross(e)
		if math.Abs(den) > Eps*dl*el {
			t := ca.Cross(e) / den
			u := ca.Cross(d) / den
			// Tolerances scaled to each segment's length, so "hits the end
			// of an edge" is decided in inches, not in raw parameter.
			if u >= -Eps/el && u <= 1+Eps/el && t >= -Eps/dl && t <= 1+Eps/dl {
				add(t)
			}
			continue
		}
		// Parallel: only a collinear edge touches the segment, and then the
		// overlap's ends are the interesting parameters.
		if math.Abs(ca.Cross(d))/dl > Eps {
			continue
		}
		l2 := dl * dl
		add(ca.Dot(d) / l2)
		add(c2.Sub(a).Dot(d) / l2)
	}
	slices.Sort(ts)
	out := ts[:0]
	for _, t := range ts {
		if len(out) > 0 && t-out[len(out)-1] <= Eps {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Interval is a stretch [T0,T1] of a segment in parameter form (see Lerp).
type Interval struct {
	T0, T1 float64
}

// SegmentInsideIntervals returns the stretches of the segment a–b that lie
// in the interior of poly, in order from a to b, adjacent pieces merged.
// A stretch that runs along the boundary is not interior and is left out.
//
// The segment is cut at every boundary crossing and each piece is kept or
// dropped by testing its midpoint, which is never on the boundary unless the
// whole piece runs along an edge.
func SegmentInsideIntervals(a, b Point, poly Polygon) []Interval {
	if len(poly) < 3 {
		return nil
	}
	if a == b {
		return nil // a point has no length inside anything
	}
	cuts := append([]float64{0}, SegmentPolygonIntersections(a, b, poly)...)
	cuts = append(cuts, 1)
	var out []Interval
	for i := 0; i+1 < len(cuts); i++ {
		t0, t1 := cuts[i], cuts[i+1]
		if t1-t0 <= Eps {
			continue
		}
		if poly.locate(Lerp(a, b, (t0+t1)/2)) != inside {
			continue
		}
		if n := len(out); n > 0 && t0-out[n-1].T1 <= Eps {
			out[n-1].T1 = t1
			continue
		}
		out = append(out, Interval{t0, t1})
	}
	return out
}

// SegmentLengthInPolygon is the length in inches of the part of the segment
// a–b that lies in the interior of poly.
func SegmentLengthInPolygon(a, b Point, poly Polygon) float64 {
	return intervalsLength(SegmentInsideIntervals(a, b, poly), Dist(a, b))
}

// intervalsLength converts parameter intervals of a segment of length l
// into inches.
func intervalsLength(iv []Interval, l float64) float64 {
	s := 0.0
	for _, v := range iv {
		s += (v.T1 - v.T0) * l
	}
	return s
}
