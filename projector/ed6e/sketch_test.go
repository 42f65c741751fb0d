package ed6e

import (
	"math"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector"
)

// The pages draw what the rules decided, never a shape of their own: a
// template where it was laid (the teardrop from the firer's base toward
// the point), a blast where it was aimed, the arrow it scattered along
// and where it landed, each saying what it decided.
func TestSketchesAreTheMarkersWhereTheyLie(t *testing.T) {
	tac := marines("tac", 2, 10, flamer())
	tac.Models[1].X, tac.Models[1].Y = 12.5, 10
	g := newGame(t, tac, boyz("boyz", 5, 15))
	toShooting(g)
	g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", Weapons: map[string]string{"tac-2": "none"}})
	if sk := (Rules{}).Sketch(g.State); len(sk) != 0 {
		t.Fatalf("sketches before the template is laid: %+v", sk)
	}
	g.Do(alice, place(15, 12.4))
	sk := (Rules{}).Sketch(g.State)
	if len(sk) != 1 || sk[0].Kind != "marker" || !sk[0].Live || sk[0].R1 != TemplateNarrow/2 || sk[0].R2 != TemplateWide/2 ||
		!strings.Contains(sk[0].Label, "3 models under it") {
		t.Fatalf("the template: %+v", sk)
	}
	// From the firer's base edge toward the point, TemplateLength long.
	firer := g.State.Unit("tac").Model("tac-1")
	k := sk[0]
	if d := math.Hypot(k.X1-firer.X, k.Y1-firer.Y) - TemplateNarrow/2; math.Abs(d-0.5) > 0.01 { // a 25 mm base: 0.49" radius
		t.Errorf("the template starts %.2f\" from the firer's centre", d)
	}
	if l := math.Hypot(k.X2-k.X1, k.Y2-k.Y1) + k.R1 + k.R2; math.Abs(l-TemplateLength) > 0.01 {
		t.Errorf("the template is %.2f\" long, want %g", l, TemplateLength)
	}

	b := newGame(t, marines("dev", 1, 10, fragMissile()), boyz("boyz", 5, 30))
	toShooting(b)
	b.Do(alice, shoot("dev", "boyz"))
	b.Do(alice, place(30, 10))
	if sk := (Rules{}).Sketch(b.State); len(sk) != 1 || sk[0].Kind != "aim" {
		t.Fatalf("a blast placed, not scattered yet: %+v", sk)
	}
	b.Roll(5, 1, 6, 6) // an arrow, 12 − BS4 = 8"
	sk = (Rules{}).Sketch(b.State)
	kinds := []string{}
	for _, k := range sk {
		kinds = append(kinds, k.Kind)
	}
	if strings.Join(kinds, " ") != "aim scatter marker" {
		t.Fatalf("a scattered blast: %v", kinds)
	}
	if s := sk[1]; s.X1 != 30 || s.Y1 != 10 || math.Abs(math.Hypot(s.X2-30, s.Y2-10)-8) > 1e-9 || !strings.Contains(s.Label, "scattered 8\"") {
		t.Errorf("the scatter: %+v", s)
	}
	if m := sk[2]; m.X1 != sk[1].X2 || m.Y1 != sk[1].Y2 || m.Seq == 0 {
		t.Errorf("the blast lands where the arrow ends: %+v", m)
	}
}
