package geom

import (
	"math"
	"testing"
)

// A blast covers the bases it reaches, touching included; a template
// starts at the firer's base edge and widens along its line.
func TestMarkers(t *testing.T) {
	b := Blast(Point{10, 10}, 3)
	base := func(x, y float64) Body { return Body{Pos: Point{x, y}, Radius: 0.5} }
	if !b.Covers(base(10, 10)) || !b.Covers(base(12, 10)) || b.Covers(base(12.1, 10)) {
		t.Fatal("a 3\" blast covers bases within 1.5\" of its centre, their edge included")
	}
	if g := b.Gap(Point{13, 10}); math.Abs(g-1.5) > 1e-9 {
		t.Fatalf("gap %v", g)
	}
	firer := Body{Pos: Point{0, 0}, Radius: 0.5}
	tm, ok := Template(firer, Point{20, 0}, 8, 0.5, 2.5)
	if !ok || math.Abs(tm.A.X-0.75) > 1e-9 || math.Abs(tm.B.X-7.25) > 1e-9 {
		t.Fatalf("template %+v", tm)
	}
	// Its narrow end: a base beside the firer, 1" off the line, is not
	// under it; at the wide end (x = 7.25) one 1.5" off the line is.
	if tm.Covers(base(1, 1.2)) || !tm.Covers(base(7.25, 1.7)) || tm.Covers(base(9.1, 0)) {
		t.Fatal("template shape")
	}
	if _, ok := Template(firer, firer.Pos, 8, 0.5, 2.5); ok {
		t.Fatal("a template aimed at its own firer points nowhere")
	}
	if d := Bearing(90); math.Abs(d.X-1) > 1e-9 || math.Abs(d.Y) > 1e-9 {
		t.Fatalf("bearing 90° = %+v", d)
	}
}
