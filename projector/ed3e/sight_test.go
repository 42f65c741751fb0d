package ed3e

import (
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

func rect(id, kind string, x0, y0, x1, y1, vis float64) events.TerrainSpec {
	return events.TerrainSpec{ID: id, Kind: kind, Visibility: vis,
		Polygon: [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}}
}

// One marine at (10,10) shoots one Ork at (x,10) with the given terrain
// and extra units; returns the refusal or nil.
func sightCase(t *testing.T, orkX float64, terrain []events.TerrainSpec, extra ...events.UnitSpec) (*projector.Refusal, *projector.State) {
	t.Helper()
	units := append([]events.UnitSpec{marines("tac", 1, 10, boltgun()), boyz("boyz", 1, orkX)}, extra...)
	su := setup(units...)
	su.Terrain = terrain
	g := newGameFrom(t, su)
	toShooting(g)
	err := g.Try(alice, shoot("tac", "boyz"))
	if err == nil {
		return nil, g.State
	}
	r, ok := projector.AsRefusal(err)
	if !ok {
		t.Fatalf("not a refusal: %v", err)
	}
	return r, g.State
}

// base is the radius of the fixtures' 25 mm bases: depths into woods are
// measured to the closest point of the base, like every distance.
const base = 25 / 25.4 / 2

func TestWoodsSixInchRule(t *testing.T) {
	woods := func(vis float64) []events.TerrainSpec {
		return []events.TerrainSpec{rect("W1", events.TerrainWoods, 16, 0, 40, 20, vis)}
	}
	// The Ork's base reaches 5.9" inside the woods edge (x=16): visible.
	if r, _ := sightCase(t, 21.9+base, woods(0)); r != nil {
		t.Fatalf("5.9\" inside woods should be visible: %v", r)
	}
	// 6.1" inside: not visible with the default 6", visible in sparse (8") woods.
	r, _ := sightCase(t, 22.1+base, woods(0))
	if r == nil || r.Code != projector.CodeNotVisible || !strings.Contains(r.Reason, "W1") {
		t.Fatalf("6.1\" inside woods should be hidden: %v", r)
	}
	if r, _ := sightCase(t, 22.1+base, woods(8)); r != nil {
		t.Fatalf("sparse woods (8\"): %v", r)
	}
	// Dense woods (2"): 2.5" in is hidden.
	if r, _ := sightCase(t, 18.5+base, woods(2)); r == nil {
		t.Fatal("dense woods (2\"): 2.5\" inside should be hidden")
	}
}

// Seed 002: «Если оба – стеляющий и цель – находятся в одной и той же
// области растительности, они могут увидеть друг друга только в пределах
// 6"», with range measured «между ближайшими моделями»: a Marine and an
// Ork in the same wood whose bases are 5.5" apart (6.48" between centres)
// see each other; 6.5" apart they do not.
func TestWoodsMeasuredBetweenBases(t *testing.T) {
	wood := []events.TerrainSpec{rect("W1", events.TerrainWoods, 0, 0, 40, 20, 0)}
	if r, _ := sightCase(t, 10+5.5+2*base, wood); r != nil {
		t.Fatalf("5.5\" between bases in the same wood: %v", r)
	}
	if r, _ := sightCase(t, 10+6.5+2*base, wood); r == nil || r.Code != projector.CodeNotVisible {
		t.Fatalf("6.5\" between bases in the same wood should be hidden: %v", r)
	}
}

func TestSightNeverPassesThroughWoods(t *testing.T) {
	strip := []events.TerrainSpec{rect("W2", events.TerrainWoods, 14, 0, 14.5, 20, 0)}
	r, _ := sightCase(t, 20, strip)
	if r == nil || r.Code != projector.CodeNotVisible {
		t.Fatalf("a narrow strip of woods must block: %v", r)
	}
}

func TestBlockingTerrain(t *testing.T) {
	bld := []events.TerrainSpec{rect("B1", events.TerrainBlocking, 14, 8, 16, 12, 0)}
	r, _ := sightCase(t, 20, bld)
	if r == nil || r.Code != projector.CodeNotVisible || !strings.Contains(r.Reason, "B1") {
		t.Fatalf("building must block: %v", r)
	}
	// The same building off the line does not.
	off := []events.TerrainSpec{rect("B1", events.TerrainBlocking, 14, 12, 16, 14, 0)}
	if r, _ := sightCase(t, 20, off); r != nil {
		t.Fatalf("building off the line: %v", r)
	}
}

func TestInterveningModels(t *testing.T) {
	wall := func(player string, height float64, vehicle bool) events.UnitSpec {
		u := events.UnitSpec{ID: "wall", Player: player, Models: []events.ModelSpec{{ID: "w1", T: 4, W: 1, Height: height, BaseMM: 60, X: 15, Y: 10}}}
		if vehicle {
			u.Keywords = []string{"VEHICLE"}
		}
		return u
	}
	// Enemy model of height 1 blocks a target of height 1.5 (≤ 2×1)...
	if r, _ := sightCase(t, 20, nil, wall("bob", 1, false)); r == nil {
		t.Fatal("enemy model must block a target up to twice its height")
	}
	// ...but not a target of height 2.5 (> 2×1).
	tall := boyz("boyz", 1, 20)
	tall.Models[0].Height = 2.5
	su := setup(marines("tac", 1, 10, boltgun()), tall, wall("bob", 1, false))
	g := newGameFrom(t, su)
	toShooting(g)
	if err := g.Try(alice, shoot("tac", "boyz")); err != nil {
		t.Fatalf("a target more than twice the blocker's height is visible: %v", err)
	}
	// Other units of the firing side never block...
	if r, _ := sightCase(t, 20, nil, wall("alice", 5, false)); r != nil {
		t.Fatalf("own infantry must not block: %v", r)
	}
	// ...but vehicles of either side do.
	if r, _ := sightCase(t, 20, nil, wall("alice", 1, true)); r == nil {
		t.Fatal("a friendly vehicle must block")
	}
	if r, _ := sightCase(t, 20, nil, wall("bob", 1, true)); r == nil {
		t.Fatal("an enemy vehicle must block")
	}
}

func TestModelsOfTheFiringUnitNeverBlock(t *testing.T) {
	// Three marines in a row along the line of fire.
	tac := marines("tac", 3, 10, boltgun())
	for i := range tac.Models {
		tac.Models[i].X, tac.Models[i].Y = 10+float64(i)*1.5, 10
	}
	g := newGameFrom(t, setup(tac, boyz("boyz", 1, 20)))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	if n := len(g.State.Attack.Shooters); n != 3 {
		t.Fatalf("%d shooters, want 3", n)
	}
}
