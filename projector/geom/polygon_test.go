package geom

import (
	"math"
	"slices"
	"testing"
)

func rect(x0, y0, x1, y1 float64) Polygon {
	return Polygon{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

// uShape is a U open towards +Y: two arms x∈[0,2] and x∈[8,10] for
// y∈[0,10], joined by a floor y∈[0,2]. The notch x∈(2,8), y∈(2,10] is
// outside. Vertices are listed clockwise to check orientation does not
// matter.
var uShape = Polygon{{0, 0}, {0, 10}, {2, 10}, {2, 2}, {8, 2}, {8, 10}, {10, 10}, {10, 0}}

func TestPointInPolygon(t *testing.T) {
	sq := rect(0, 0, 10, 10)
	// Concave arrow-head whose reflex vertex (5,5) shares its Y with test
	// points, to exercise the ray cast through a vertex.
	arrow := Polygon{{0, 0}, {10, 0}, {10, 10}, {5, 5}, {0, 10}}
	for _, c := range []struct {
		name string
		poly Polygon
		p    Point
		want bool
	}{
		{"square centre", sq, Point{5, 5}, true},
		{"square outside", sq, Point{11, 5}, false},
		{"square outside diagonal", sq, Point{-1, -1}, false},
		{"square edge counts as inside", sq, Point{10, 5}, true},
		{"square corner counts as inside", sq, Point{0, 0}, true},
		{"U left arm", uShape, Point{1, 8}, true},
		{"U right arm", uShape, Point{9, 8}, true},
		{"U floor", uShape, Point{5, 1}, true},
		{"U notch is outside", uShape, Point{5, 5}, false},
		{"U notch just above floor", uShape, Point{5, 2.01}, false},
		{"U above the notch", uShape, Point{5, 11}, false},
		{"U point level with notch corners", uShape, Point{1, 2}, true},
		{"U right of everything level with vertices", uShape, Point{-1, 2}, false},
		{"arrow below reflex vertex", arrow, Point{5, 4}, true},
		{"arrow above reflex vertex", arrow, Point{5, 6}, false},
		{"arrow left wing level with reflex vertex", arrow, Point{2, 5}, true},
		{"arrow right of reflex vertex, same Y", arrow, Point{8, 5}, true},
		{"arrow reflex vertex itself", arrow, Point{5, 5}, true},
		{"arrow between the points", arrow, Point{5, 9}, false},
		{"degenerate polygon", Polygon{{0, 0}, {1, 1}}, Point{0.5, 0.5}, false},
		{"explicitly closed ring", append(rect(0, 0, 2, 2), Point{0, 0}), Point{1, 1}, true},
	} {
		if got := PointInPolygon(c.p, c.poly); got != c.want {
			t.Errorf("%s: PointInPolygon(%v) = %v, want %v", c.name, c.p, got, c.want)
		}
	}
}

func TestSegmentPolygonIntersections(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b Point
		poly Polygon
		want []float64
	}{
		{"through a square", Point{-5, 5}, Point{15, 5}, rect(0, 0, 10, 10), []float64{0.25, 0.75}},
		{"misses", Point{-5, 20}, Point{15, 20}, rect(0, 0, 10, 10), nil},
		{"through a corner counted once", Point{-5, -5}, Point{5, 5}, rect(0, 0, 10, 10), []float64{0.5}},
		{"along an edge: both ends", Point{-10, 0}, Point{30, 0}, rect(0, 0, 10, 10), []float64{0.25, 0.5}},
		{"across a U: four crossings", Point{-10, 5}, Point{20, 5}, uShape,
			[]float64{10.0 / 30, 12.0 / 30, 18.0 / 30, 20.0 / 30}},
		{"degenerate segment", Point{1, 1}, Point{1, 1}, rect(0, 0, 10, 10), nil},
	} {
		got := SegmentPolygonIntersections(c.a, c.b, c.poly)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if !near(got[i], c.want[i]) {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
		if !slices.IsSorted(got) {
			t.Errorf("%s: not sorted: %v", c.name, got)
		}
	}
}

func TestSegmentLengthInPolygon(t *testing.T) {
	sq := rect(0, 0, 10, 10)
	for _, c := range []struct {
		name string
		a, b Point
		poly Polygon
		want float64
	}{
		{"across a square", Point{-5, 5}, Point{15, 5}, sq, 10},
		{"reversed direction", Point{15, 5}, Point{-5, 5}, sq, 10},
		{"diagonal", Point{-1, -1}, Point{11, 11}, sq, 10 * math.Sqrt2},
		{"fully inside", Point{2, 2}, Point{5, 6}, sq, 5},
		{"inside to outside", Point{7, 5}, Point{20, 5}, sq, 3},
		{"along an edge is not inside", Point{-10, 0}, Point{30, 0}, sq, 0},
		{"touching a corner is not inside", Point{-5, 5}, Point{5, -5}, sq, 0},
		{"U: both arms, not the notch", Point{-10, 5}, Point{20, 5}, uShape, 4},
		{"U: through the floor", Point{-10, 1}, Point{20, 1}, uShape, 10},
		{"U: along the notch floor", Point{2, 2}, Point{8, 2}, uShape, 0},
		{"U: from inside one arm across the notch", Point{1, 5}, Point{9, 5}, uShape, 2},
		{"U: vertical through an arm and floor", Point{1, -5}, Point{1, 15}, uShape, 10},
		{"U: through the notch corner vertex", Point{0, 0}, Point{4, 4}, uShape, 2 * math.Sqrt2},
	} {
		if got := SegmentLengthInPolygon(c.a, c.b, c.poly); !near(got, c.want) {
			t.Errorf("%s: length = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSegmentLengthMatchesSampling checks the exact computation against a
// brute-force count of sample points on a concave star, for segments that
// hit vertices, edges and reflex corners.
func TestSegmentLengthMatchesSampling(t *testing.T) {
	var star Polygon
	for i := range 10 {
		r := 10.0
		if i%2 == 1 {
			r = 4
		}
		ang := float64(i) * math.Pi / 5
		star = append(star, Point{20 + r*math.Cos(ang), 20 + r*math.Sin(ang)})
	}
	const n = 20000
	for i := range 24 {
		ang := float64(i) * math.Pi / 12
		a := Point{20 - 15*math.Cos(ang), 20 - 15*math.Sin(ang)}
		for _, off := range []float64{-3, 0, 2.5} {
			p := Point{-math.Sin(ang) * off, math.Cos(ang) * off}
			aa, bb := a.Add(p), Point{40 - a.X, 40 - a.Y}.Add(p)
			in := 0
			for k := range n {
				if star.locate(Lerp(aa, bb, (float64(k)+0.5)/n)) == inside {
					in++
				}
			}
			want := float64(in) / n * Dist(aa, bb)
			if got := SegmentLengthInPolygon(aa, bb, star); math.Abs(got-want) > 0.01 {
				t.Errorf("angle %d offset %v: length %v, sampled %v", i, off, got, want)
			}
		}
	}
}

func TestSegmentIntersectsCircle(t *testing.T) {
	a, b := Point{0, 0}, Point{10, 0}
	for _, c := range []struct {
		name string
		c    Point
		r    float64
		want bool
	}{
		{"centre on the line", Point{5, 0}, 0.5, true},
		{"crosses off-centre", Point{5, 0.4}, 0.5, true},
		{"only grazes the rim", Point{5, 0.5}, 0.5, false},
		{"clear of the line", Point{5, 1}, 0.5, false},
		{"beyond the end", Point{11, 0}, 0.5, false},
		{"overlaps the end", Point{10.4, 0}, 0.5, true},
		{"zero radius never intersects", Point{5, 0}, 0, false},
	} {
		if got := SegmentIntersectsCircle(a, b, c.c, c.r); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
