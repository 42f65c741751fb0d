package plot

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/matchrec/matchrec/replay/analytics/report"
)

// The weapons plot draws every rate, 300% a template's included (it was
// clipped at 1.3), with its 95% whiskers within the axis, and the wound
// z-scores beside the hit ones; a count that is not random (the
// template's hits) gets no z.
func TestWeaponsPlotShowsEveryRateAndZ(t *testing.T) {
	ws := []report.WeaponStats{
		{Edition: "6e", Weapon: "flamer", Shots: 4, Hits: 12, HitRate: 3, ExpHit: 3, Wounds: 9, WoundRate: 0.75, ExpWound: 0.5,
			WoundVar: 3, WoundBand: 0.28, WoundZ: 3.46},
		{Edition: "6e", Weapon: "frag missile", Shots: 10, Hits: 12, HitRate: 1.2, ExpHit: 1.1, HitVar: 4, HitBand: 0.39, HitZ: 0.5,
			Wounds: 2, WoundRate: 1.0 / 6, ExpWound: 0.5, WoundVar: 3, WoundBand: 0.28, WoundZ: -2.31},
	}
	rates, z, err := weaponPanels(ws)
	if err != nil {
		t.Fatal(err)
	}
	if rates.Y.Max < 3 || rates.Y.Max < 1.1+0.39 {
		t.Fatalf("the rates' axis stops at %v: the template's 300%% is clipped", rates.Y.Max)
	}
	if z.Y.Min > -2.31 || z.Y.Max < 3.46 {
		t.Fatalf("the z axis %v..%v leaves out a wound z", z.Y.Min, z.Y.Max)
	}
	// The template's wounds and both of the frag missile's counts have a
	// z; the template's hits do not.
	hits, wounds := zPoints(ws)
	want := plotter.XYs{{X: 0.85, Y: 0.5}}
	if len(hits) != 1 || hits[0] != want[0] || len(wounds) != 2 || wounds[0].Y != 3.46 || wounds[1].Y != -2.31 {
		t.Fatalf("z points: hits %v, wounds %v", hits, wounds)
	}
	path := filepath.Join(t.TempDir(), "weapons.png")
	if err := Weapons(&report.WeaponsReport{Weapons: ws}, path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.DecodeConfig(f); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
}
