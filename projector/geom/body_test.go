package geom

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestRadiusFromBaseMM(t *testing.T) {
	for _, c := range []struct{ mm, want float64 }{
		{25.4, 0.5},
		{50.8, 1},
		{25, 25 / 25.4 / 2},
		{0, 0},
		{-3, 0},
	} {
		if got := RadiusFromBaseMM(c.mm); !near(got, c.want) {
			t.Errorf("RadiusFromBaseMM(%v) = %v, want %v", c.mm, got, c.want)
		}
	}
}

func TestBaseDistance(t *testing.T) {
	r25, r40, r60 := RadiusFromBaseMM(25), RadiusFromBaseMM(40), RadiusFromBaseMM(60)
	for _, c := range []struct {
		name string
		a, b Body
		want float64
	}{
		{"25mm to 25mm", Body{Radius: r25}, Body{Pos: Point{10, 0}, Radius: r25}, 10 - 2*r25},
		{"25mm to 60mm", Body{Radius: r25}, Body{Pos: Point{10, 0}, Radius: r60}, 10 - r25 - r60},
		{"40mm to 60mm diagonal", Body{Radius: r40}, Body{Pos: Point{6, 8}, Radius: r60}, 10 - r40 - r60},
		{"point to 60mm", Body{}, Body{Pos: Point{0, 5}, Radius: r60}, 5 - r60},
		{"point to point", Body{Pos: Point{1, 1}}, Body{Pos: Point{4, 5}}, 5},
		{"bases touching", Body{Radius: 0.5}, Body{Pos: Point{1, 0}, Radius: 0.5}, 0},
		{"bases overlapping floor at 0", Body{Radius: 1}, Body{Pos: Point{1, 0}, Radius: 1}, 0},
	} {
		if got := BaseDistance(c.a, c.b); !near(got, c.want) {
			t.Errorf("%s: BaseDistance = %v, want %v", c.name, got, c.want)
		}
		if got := BaseDistance(c.b, c.a); !near(got, c.want) {
			t.Errorf("%s: BaseDistance not symmetric: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	from := Body{Radius: 0.5}
	to := []Body{
		{ID: "far", Pos: Point{10, 0}, Radius: 0.5},
		// Centre further than "mid" but a big base makes it closer.
		{ID: "big", Pos: Point{7, 0}, Radius: 3},
		{ID: "mid", Pos: Point{5, 0}, Radius: 0.5},
		{ID: "tie", Pos: Point{0, 7}, Radius: 3}, // same distance as "big": lower index wins
	}
	i, d := Nearest(from, to)
	if i != 1 || !near(d, 3.5) {
		t.Fatalf("Nearest = %d (%v), want 1 (3.5)", i, d)
	}
	if i, d := Nearest(from, nil); i != -1 || !math.IsInf(d, 1) {
		t.Fatalf("Nearest(empty) = %d, %v", i, d)
	}
}
