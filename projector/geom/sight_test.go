package geom

import (
	"slices"
	"strings"
	"testing"
)

// Sides and units used throughout: side A fires with unit "fu", side B
// owns the target unit "tu".
var (
	firer  = Body{ID: "f1", Unit: "fu", Side: "A", Pos: Point{0, 0}, Radius: 0.5, Height: 1}
	target = Body{ID: "t1", Unit: "tu", Side: "B", Pos: Point{20, 0}, Radius: 0.5, Height: 1}
)

// at returns b moved to (x,y).
func at(b Body, x, y float64) Body { b.Pos = Point{x, y}; return b }

// tall returns b with height h.
func tall(b Body, h float64) Body { b.Height = h; return b }

func woods(id string, vis float64, p Polygon) Area {
	return Area{ID: id, Kind: KindWoods, Poly: p, Visibility: vis}
}

type sightCase struct {
	name          string
	world         World
	firer, target Body
	visible       bool
	reason        string // substring the reason must contain
	obscured      bool
	inArea        string
}

func runSight(t *testing.T, cases []sightCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, tg := c.firer, c.target
			if f.ID == "" {
				f = firer
			}
			if tg.ID == "" {
				tg = target
			}
			// The world always contains firer and target, as it does in a
			// real match: they must not block themselves.
			w := c.world
			w.Bodies = append([]Body{f, tg}, w.Bodies...)
			got := w.Sight(f, tg, f.Side, tg.Unit)
			if got.Visible != c.visible {
				t.Fatalf("Visible = %v (%q), want %v", got.Visible, got.Reason, c.visible)
			}
			if !strings.Contains(got.Reason, c.reason) {
				t.Errorf("Reason = %q, want it to contain %q", got.Reason, c.reason)
			}
			if got.Obscured != c.obscured {
				t.Errorf("Obscured = %v (%q), want %v", got.Obscured, got.Reason, c.obscured)
			}
			if got.InArea != c.inArea {
				t.Errorf("InArea = %q, want %q", got.InArea, c.inArea)
			}
		})
	}
}

func TestSightClearAndBuildings(t *testing.T) {
	b1 := Area{ID: "B1", Kind: KindBlocking, Poly: rect(8, -2, 12, 2)}
	runSight(t, []sightCase{
		{name: "clear", visible: true, reason: "clear"},
		{name: "building on the line blocks", world: World{Areas: []Area{b1}},
			visible: false, reason: "blocked by building B1"},
		{name: "building off the line does not",
			world:   World{Areas: []Area{{ID: "B2", Kind: KindBlocking, Poly: rect(8, 3, 12, 6)}}},
			visible: true, reason: "clear"},
		{name: "line grazing a building edge is not blocked",
			world:   World{Areas: []Area{{ID: "B3", Kind: KindBlocking, Poly: rect(8, 0, 12, 6)}}},
			visible: true, reason: "clear"},
		{name: "target inside a building cannot be seen",
			world:  World{Areas: []Area{b1}},
			target: at(target, 10, 0), visible: false, reason: "building B1"},
		{name: "Blocking flag makes a fortification solid",
			world:   World{Areas: []Area{{ID: "F1", Kind: KindFort, Poly: rect(8, -2, 12, 2), Blocking: true}}},
			visible: false, reason: "blocked by building F1"},
		{name: "ruins only obscure",
			world:   World{Areas: []Area{{ID: "R1", Kind: KindRuins, Poly: rect(8, -2, 12, 2)}}},
			visible: true, reason: "ruins R1", obscured: true},
		{name: "target standing in ruins",
			world:   World{Areas: []Area{{ID: "R1", Kind: KindRuins, Poly: rect(18, -2, 22, 2)}}},
			visible: true, obscured: true, inArea: "R1"},
	})
}

func TestSightWoods(t *testing.T) {
	// The wood spans x∈[10,30]; the firer stands outside at x=0 and looks
	// along y=0, so a target whose base (radius 0.5) is centred at
	// x=10+d+0.5 has its closest point d inches inside: depths are measured
	// between the closest points of the bases, like every distance.
	wood := func(vis float64) World {
		return World{Areas: []Area{woods("W1", vis, rect(10, -10, 30, 10))}}
	}
	var cases []sightCase
	for _, v := range []float64{6, 2, 12} {
		cases = append(cases,
			sightCase{name: inches(v) + "\": target just within", world: wood(v),
				target: at(target, 10+v+0.5-0.1, 0), visible: true, obscured: true, inArea: "W1"},
			sightCase{name: inches(v) + "\": target just beyond", world: wood(v),
				target: at(target, 10+v+0.5+0.1, 0), visible: false,
				reason: "more than " + inches(v) + "\" inside woods W1", obscured: true, inArea: "W1"},
		)
	}
	cases = append(cases,
		sightCase{name: "6\": target on the edge", world: wood(6),
			target: at(target, 10, 0), visible: true, obscured: true, inArea: "W1"},
		sightCase{name: "6\": measured along the line, not perpendicular", world: wood(6),
			// 5" in from the edge, but the slanted line runs 5√2 ≈ 7.07" in the wood.
			firer: at(firer, 0, -10), target: at(target, 15, 5), visible: false,
			reason: "more than 6\" inside woods W1", obscured: true, inArea: "W1"},
		sightCase{name: "narrow strip: never through",
			world:   World{Areas: []Area{woods("W2", 6, rect(10, -10, 10.5, 10))}},
			visible: false, reason: "sight cannot pass through woods W2", obscured: true},
		sightCase{name: "through a wood even with both ends in other woods",
			world: World{Areas: []Area{
				woods("W1", 6, rect(-2, -5, 2, 5)),
				woods("W2", 6, rect(9, -5, 11, 5)),
				woods("W3", 6, rect(18, -5, 22, 5)),
			}},
			visible: false, reason: "sight cannot pass through woods W2", obscured: true, inArea: "W3"},
		// Seed 002: «Если оба – стеляющий и цель – находятся в одной и той
		// же области растительности, они могут увидеть друг друга только в
		// пределах 6"» — between their bases: 6.5" centre to centre is
		// 5.5" between 1" bases, and they see each other.
		sightCase{name: "same wood: 5.5\" between the bases, 6.5\" between centres", world: wood(6),
			firer: at(firer, 12, 0), target: at(target, 18.5, 0),
			visible: true, obscured: true, inArea: "W1"},
		sightCase{name: "same wood within 6\"", world: wood(6),
			firer: at(firer, 12, 0), target: at(target, 18.9, 0),
			visible: true, obscured: true, inArea: "W1"},
		sightCase{name: "same wood beyond 6\"", world: wood(6),
			firer: at(firer, 12, 0), target: at(target, 19.1, 0),
			visible: false, reason: "more than 6\" of woods W1 between firer and target",
			obscured: true, inArea: "W1"},
		sightCase{name: "firer inside sees out within 6\" of the edge", world: wood(6),
			firer: at(firer, 25, 0), target: at(target, 40, 0), visible: true, obscured: true},
		sightCase{name: "firer inside deeper than 6\" cannot see out", world: wood(6),
			firer: at(firer, 23, 0), target: at(target, 40, 0),
			visible: false, reason: "firer more than 6\" inside woods W1", obscured: true},
		// Concave wood: the firer stands in the left arm of a U, the line
		// leaves the wood over the notch and re-enters the right arm before
		// reaching the target outside. The re-entry is passing through.
		sightCase{name: "concave wood: out and back in is through",
			world: World{Areas: []Area{woods("WU", 6, uShape)}},
			firer: at(firer, 1, 5), target: at(target, 15, 5),
			visible: false, reason: "sight cannot pass through woods WU", obscured: true},
		// Both in the same concave wood, one per arm: 1" + 1" of wood on
		// the line, the notch between is open ground.
		sightCase{name: "concave wood: arm to arm counts only wooded inches",
			world: World{Areas: []Area{woods("WU", 2, uShape)}},
			firer: at(firer, 1, 5), target: at(target, 9, 5),
			visible: true, obscured: true, inArea: "WU"},
		sightCase{name: "concave wood: line over the notch, both outside, clear",
			world: World{Areas: []Area{woods("WU", 6, uShape)}},
			firer: at(firer, 3, 12), target: at(target, 7, 3),
			visible: true, reason: "clear"},
	)
	runSight(t, cases)
}

func TestSightModels(t *testing.T) {
	mid := func(b Body) World { return World{Bodies: []Body{at(b, 10, 0)}} }
	enemy := Body{ID: "m3", Unit: "other", Side: "B", Radius: 0.5, Height: 2}
	friend := Body{ID: "p1", Unit: "pals", Side: "A", Radius: 0.5, Height: 10}
	runSight(t, []sightCase{
		{name: "enemy blocks a target up to twice its height", world: mid(enemy),
			target: tall(target, 4), visible: false,
			reason: "blocked by enemy model m3 (height 2 ≥ half of 4)"},
		{name: "enemy blocks a shorter target", world: mid(enemy),
			target: tall(target, 1), visible: false, reason: "enemy model m3"},
		{name: "enemy does not block a taller target, only obscures", world: mid(enemy),
			target: tall(target, 4.1), visible: true, reason: "model m3", obscured: true},
		{name: "enemy of a third side blocks too", world: mid(Body{ID: "x", Unit: "x", Side: "C", Radius: 0.5, Height: 2}),
			visible: false, reason: "enemy model x"},
		{name: "enemy whose base only grazes the line does not block",
			world:   World{Bodies: []Body{at(enemy, 10, 0.5)}},
			visible: true, reason: "clear"},
		{name: "enemy base crossing the line off-centre blocks",
			world:   World{Bodies: []Body{at(enemy, 10, 0.45)}},
			visible: false, reason: "enemy model m3"},
		{name: "enemy behind the target does not block",
			world:   World{Bodies: []Body{at(enemy, 25, 0)}},
			visible: true, reason: "clear"},
		{name: "own unit never blocks nor obscures",
			world:   mid(Body{ID: "f2", Unit: "fu", Side: "A", Radius: 1, Height: 10}),
			visible: true, reason: "clear"},
		{name: "other friendly unit does not block", world: mid(friend),
			visible: true, obscured: true},
		{name: "friendly vehicle blocks",
			world:   mid(Body{ID: "rhino", Unit: "tank", Side: "A", Radius: 1, Height: 0.1, Vehicle: true}),
			visible: false, reason: "blocked by friendly vehicle rhino"},
		{name: "vehicle of the firing unit blocks",
			world:   mid(Body{ID: "rhino2", Unit: "fu", Side: "A", Radius: 1, Height: 0.1, Vehicle: true}),
			visible: false, reason: "blocked by friendly vehicle rhino2"},
		{name: "enemy vehicle blocks regardless of height",
			world:  mid(Body{ID: "pred", Unit: "armour", Side: "B", Radius: 1, Height: 0.1, Vehicle: true}),
			target: tall(target, 5), visible: false, reason: "blocked by enemy vehicle pred"},
		{name: "target's own unit does not block",
			world:   mid(Body{ID: "t2", Unit: "tu", Side: "B", Radius: 1, Height: 10}),
			visible: true, reason: "clear"},
		{name: "vehicle firer and vehicle target do not block themselves",
			firer:   Body{ID: "v1", Unit: "fu", Side: "A", Radius: 2, Height: 3, Vehicle: true},
			target:  Body{ID: "v2", Unit: "tu", Side: "B", Pos: Point{20, 0}, Radius: 2, Height: 3, Vehicle: true},
			visible: true, reason: "clear"},
		{name: "nearest blocker is named",
			world: World{
				Areas:  []Area{{ID: "B1", Kind: KindBlocking, Poly: rect(14, -2, 16, 2)}},
				Bodies: []Body{at(enemy, 5, 0)},
			},
			visible: false, reason: "enemy model m3"},
		{name: "nearest blocker is named, other order",
			world: World{
				Areas:  []Area{{ID: "B1", Kind: KindBlocking, Poly: rect(4, -2, 6, 2)}},
				Bodies: []Body{at(enemy, 15, 0)},
			},
			visible: false, reason: "building B1"},
	})
}

func TestSightDefaultsAndIndices(t *testing.T) {
	w := World{
		Areas: []Area{
			{ID: "B0", Kind: KindBlocking, Poly: rect(5, 5, 6, 6)}, // off the line
			{ID: "R1", Kind: KindRuins, Poly: rect(4, -1, 6, 1)},
			woods("W1", 6, rect(18, -2, 22, 2)),
		},
		Bodies: []Body{
			firer, target,
			{ID: "m", Unit: "other", Side: "B", Pos: Point{10, 0}, Radius: 0.5, Height: 0.2},
		},
	}
	// Empty firingSide and targetUnit fall back to the bodies' own.
	got := w.Sight(firer, target, "", "")
	if !got.Visible || !got.Obscured || got.InArea != "W1" {
		t.Fatalf("got %+v", got)
	}
	if !slices.Equal(got.ObscuringAreas, []int{1, 2}) || !slices.Equal(got.ObscuringBodies, []int{2}) {
		t.Fatalf("obscurers: areas %v bodies %v", got.ObscuringAreas, got.ObscuringBodies)
	}
	if want := "visible, obscured by ruins R1, model m, woods W1"; got.Reason != want {
		t.Fatalf("Reason = %q, want %q", got.Reason, want)
	}
	if at := w.AreasAt(Point{20, 0}); !slices.Equal(at, []int{2}) {
		t.Fatalf("AreasAt = %v", at)
	}
	// Determinism: the same question gives the same answer.
	for range 5 {
		again := w.Sight(firer, target, "", "")
		if again.Reason != got.Reason || !slices.Equal(again.ObscuringAreas, got.ObscuringAreas) {
			t.Fatalf("non-deterministic: %+v vs %+v", again, got)
		}
	}
}
