package geom

import (
	"math/rand/v2"
	"testing"
)

// CanSee and Sight must always agree: random tables of models, vehicles,
// woods and buildings, every pair of bodies looked at both ways.
func TestCanSeeAgreesWithSight(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	kinds := []string{KindWoods, KindBlocking, KindRuins, KindWire}
	for world := 0; world < 200; world++ {
		var w World
		for i := 0; i < r.IntN(5); i++ {
			x, y := r.Float64()*40, r.Float64()*40
			wd, ht := 2+r.Float64()*10, 2+r.Float64()*10
			w.Areas = append(w.Areas, Area{ID: "a", Kind: kinds[r.IntN(len(kinds))], Visibility: 1 + r.Float64()*8,
				Poly: Polygon{{x, y}, {x + wd, y}, {x + wd, y + ht}, {x, y + ht}}})
		}
		for i := 0; i < 12; i++ {
			w.Bodies = append(w.Bodies, Body{ID: string(rune('a' + i)), Unit: []string{"u1", "u2", "u3", "u4"}[i%4],
				Side: []string{"p1", "p2"}[i%2], Pos: Point{r.Float64() * 40, r.Float64() * 40},
				Radius: 0.5 + r.Float64(), Height: 1 + r.Float64()*3, Vehicle: r.IntN(8) == 0})
		}
		for _, f := range w.Bodies {
			for _, tg := range w.Bodies {
				if f.Side == tg.Side {
					continue
				}
				if got, want := w.CanSee(f, tg, f.Side, tg.Unit), w.Sight(f, tg, f.Side, tg.Unit).Visible; got != want {
					t.Fatalf("world %d: %s→%s CanSee %v, Sight %v (%s)", world, f.ID, tg.ID, got, want, w.Sight(f, tg, f.Side, tg.Unit).Reason)
				}
			}
		}
	}
}
