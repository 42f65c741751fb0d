package geom

import "math"

// Point is a position on the table in inches.
type Point struct {
	X, Y float64
}

// Add returns p + q.
func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }

// Sub returns p − q.
func (p Point) Sub(q Point) Point { return Point{p.X - q.X, p.Y - q.Y} }

// Scale returns p × k.
func (p Point) Scale(k float64) Point { return Point{p.X * k, p.Y * k} }

// Dot is the dot product of p and q seen as vectors.
func (p Point) Dot(q Point) float64 { return p.X*q.X + p.Y*q.Y }

// Cross is the z component of p × q seen as vectors: positive when q turns
// counter-clockwise from p, zero when they are parallel.
func (p Point) Cross(q Point) float64 { return p.X*q.Y - p.Y*q.X }

// Len is the length of p seen as a vector.
func (p Point) Len() float64 { return math.Hypot(p.X, p.Y) }

// Dist is the straight-line distance between p and q.
func Dist(p, q Point) float64 { return p.Sub(q).Len() }

// Lerp returns the point at parameter t on the segment a→b (a at 0, b at 1).
// Segment functions in this package report positions as such parameters, so
// callers can turn them back into table positions.
func Lerp(a, b Point, t float64) Point {
	return Point{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t}
}
