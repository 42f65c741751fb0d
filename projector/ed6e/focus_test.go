package ed6e

import (
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// coverField: five Orks in a column at x=20 (y = 10, 14, ..., 26), each
// in its own 2"×2" piece but the first: none, razor wire, woods, ruins,
// fortification; alice's five bolters face them at x=10, row for row.
func coverField(t *testing.T) *projtest.Game {
	b := boyz("boyz", 5, 20)
	m := marines("tac", 5, 10, bolter())
	for i := range b.Models {
		b.Models[i].Y = 10 + 4*float64(i)
		m.Models[i].Y = b.Models[i].Y
	}
	su := setup(m, b)
	kinds := []string{events.TerrainWire, events.TerrainWoods, events.TerrainRuins, events.TerrainFort}
	for i, k := range kinds {
		y := b.Models[i+1].Y
		su.Terrain = append(su.Terrain, rect("T"+k, k, 19, y-1, 21, y+1))
	}
	return newGameFrom(t, su)
}

// Cover saves by terrain (default table), recorded per model.
func TestCoverByTerrainRecordedPerModel(t *testing.T) {
	g := coverField(t)
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	want := []int{0, CoverWire, CoverWoods, CoverRuins, CoverFort}
	for i, c := range edAttack(g.State.Attack).Cover {
		if c.Save != want[i] {
			t.Errorf("%s: cover %d (%s), want %d", c.Model, c.Save, c.Why, want[i])
		}
	}
	if c := edAttack(g.State.Attack).Cover[2]; !strings.Contains(c.Why, "woods") {
		t.Errorf("why %q", c.Why)
	}
}

// Intervening models (another unit in the way) give 5+.
func TestCoverFromInterveningModels(t *testing.T) {
	screen := marines("scr", 1, 15, bolter())
	screen.Models[0].Y = 10
	g := newGame(t, marines("tac", 1, 10, bolter()), screen, boyz("boyz", 1, 20))
	toShooting(g)
	g.Do(alice, shoot("tac", "boyz"))
	if c := edAttack(g.State.Attack).Cover[0]; c.Save != CoverModels || !strings.Contains(c.Why, "intervening model scr-1") {
		t.Fatalf("cover %+v", c)
	}
}

// Focus fire at each threshold: wounds may only go to models whose cover
// save is that value or worse, or that have none.
func TestFocusFireAtEachThreshold(t *testing.T) {
	cases := []struct {
		focus string
		allow []string
	}{
		{"", []string{"boyz-1", "boyz-2", "boyz-3", "boyz-4", "boyz-5"}},
		{"2+", []string{"boyz-1", "boyz-2", "boyz-3", "boyz-4", "boyz-5"}},
		{"3+", []string{"boyz-1", "boyz-2", "boyz-3", "boyz-4", "boyz-5"}},
		{"4+", []string{"boyz-1", "boyz-2", "boyz-3", "boyz-4"}},
		{"5+", []string{"boyz-1", "boyz-2", "boyz-3"}},
		{"6+", []string{"boyz-1", "boyz-2"}},
		{"none", []string{"boyz-1"}},
	}
	for _, c := range cases {
		t.Run(c.focus, func(t *testing.T) {
			g := coverField(t)
			toShooting(g)
			g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", FocusFire: c.focus})
			var got []string
			for _, m := range candidates(g.State, g.State.Attack) {
				got = append(got, m.ID)
			}
			if !slices.Equal(got, c.allow) {
				t.Fatalf("focus %q: candidates %v, want %v", c.focus, got, c.allow)
			}
			same(t, g)
		})
	}
}

// End to end: focus fire at 6+ puts every wound on the two models without
// a better cover save, even though the models in cover stand as close; the
// wounds left when they are gone are lost.
func TestFocusFireSkipsModelsInBetterCover(t *testing.T) {
	g := coverField(t)
	toShooting(g)
	g.Do(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", FocusFire: "6+"})
	if edAttack(g.State.Attack).FocusFire != "6+" {
		t.Fatal("focus fire not recorded")
	}
	g.Roll(ones(5, 6)...)
	g.Roll(ones(5, 6)...)
	// boyz-1 (Sv6) and boyz-2 (wire 6+) share a 6+ save: one batch.
	if p := g.State.Pending; p.Dice != 5 || p.Need != 6 {
		t.Fatalf("batch %+v", p)
	}
	g.Roll(ones(5, 1)...)
	if got := alive(g, "boyz"); !slices.Equal(got, []string{"boyz-3", "boyz-4", "boyz-5"}) {
		t.Fatalf("alive %v", got)
	}
	if la := g.State.LastAttack; edAttack(la).Lost != 3 {
		t.Fatalf("lost %d, want 3", edAttack(la).Lost)
	}
	same(t, g)
}

// A focus-fire value outside 2+..6+ (or "none") is refused, the match
// unchanged.
func TestBadFocusFireIsRefused(t *testing.T) {
	g := coverField(t)
	toShooting(g)
	for _, v := range []string{"1+", "7+", "4", "+4", "no cover", "x"} {
		r := g.Refused(alice, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz", FocusFire: v}, CodeBadFocusFire)
		if !strings.Contains(r.Reason, "2+ to 6+") {
			t.Fatalf("reason %q", r.Reason)
		}
	}
}
