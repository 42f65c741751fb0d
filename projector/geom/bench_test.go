package geom

import "testing"

// benchWorld lays out a 72"×48" table with 10 areas (woods, ruins,
// buildings, one concave wood) and 60 bodies in a fixed pattern: no
// randomness, so runs are comparable.
func benchWorld() World {
	var w World
	kinds := []string{KindWoods, KindRuins, KindBlocking, KindWoods, KindFort}
	for i := range 9 {
		x, y := 8+float64(i%3)*22, 6+float64(i/3)*14
		w.Areas = append(w.Areas, Area{
			ID: "a" + string(rune('0'+i)), Kind: kinds[i%len(kinds)],
			Poly: Polygon{{x, y}, {x + 6, y + 1}, {x + 7, y + 6}, {x + 1, y + 5}}, Visibility: 6,
		})
	}
	w.Areas = append(w.Areas, woods("wu", 6, uShape))
	for i := range 60 {
		side, unit := "A", "ua"+string(rune('0'+i/10))
		if i >= 30 {
			side, unit = "B", "ub"+string(rune('0'+(i-30)/10))
		}
		w.Bodies = append(w.Bodies, Body{
			ID: "m" + string(rune('0'+i%10)), Unit: unit, Side: side,
			Pos:    Point{2 + float64(i%12)*6, 3 + float64(i/12)*9},
			Radius: RadiusFromBaseMM(32), Height: 1.5, Vehicle: i%17 == 0,
		})
	}
	return w
}

func BenchmarkSight(b *testing.B) {
	w := benchWorld()
	n := len(w.Bodies)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		f, t := w.Bodies[i%n], w.Bodies[(i*7+31)%n]
		_ = w.Sight(f, t, f.Side, t.Unit)
		i++
	}
}
