package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// RandomMatch builds a legal random match setup of edition ed for
// generated games and benchmarks: two players, two to four units a side of
// 3 to 10 models, deployed 24" apart, and a piece of woods in the middle.
// Profiles carry the fields every edition reads (BS as a characteristic
// and as a target number, Shots and Attacks, D), and of the weapon types
// and keywords those ed reads (fit), so the same seed gives the same
// armies in any edition. extra are weapon profiles the units draw from
// besides the common ones (an edition's projector.Armory); without them a
// seed gives the same match it always has.
func RandomMatch(ed projector.Rules, r *rand.Rand, extra ...events.WeaponSpec) events.MatchCreated {
	m := events.MatchCreated{
		Edition: ed.Edition(), Name: "generated",
		Table:   events.Table{W: 72, H: 48},
		Players: []events.PlayerSpec{{ID: "p1", Name: "Player 1"}, {ID: "p2", Name: "Player 2"}},
		Terrain: []events.TerrainSpec{{ID: "woods1", Kind: events.TerrainWoods,
			Polygon: [][2]float64{{32, 30}, {40, 30}, {40, 38}, {32, 38}}}},
		FirstPlayer: "p1",
	}
	kinds := append(weaponKinds[:len(weaponKinds):len(weaponKinds)], extra...)
	for side, pl := range []string{"p1", "p2"} {
		x := 24.0 + 24*float64(side)
		for u := 0; u < 2+r.IntN(3); u++ {
			m.Units = append(m.Units, randomUnit(r, kinds, fmt.Sprintf("%s-u%d", pl, u+1), pl, x, 4+float64(u)*10))
		}
	}
	if lx, ok := ed.(projector.Lexicon); ok {
		// The common profiles name both the types 3e and 6e read and the
		// keywords 11e reads: each edition keeps its own.
		lx.Lexicon().Fit(m.Units)
	}
	return m
}

var weaponKinds = []events.WeaponSpec{
	{Name: "boltgun", Range: 24, Type: "rapid-fire", Shots: 1, Attacks: "2", S: 4, AP: 0, D: "1", BS: 3},
	{Name: "heavy bolter", Range: 36, Type: "heavy", Shots: 3, Attacks: "3", S: 5, AP: 1, D: "2", BS: 4, Keywords: []string{"HEAVY"}},
	{Name: "storm bolter", Range: 24, Type: "assault", Shots: 2, Attacks: "2", S: 4, D: "1", BS: 3, Keywords: []string{"ASSAULT"}},
	{Name: "shoota", Range: 18, Type: "assault", Shots: 2, Attacks: "2", S: 4, D: "1", BS: 5, Keywords: []string{"ASSAULT"}},
	{Name: "lasgun", Range: 24, Type: "rapid-fire", Shots: 1, Attacks: "1", S: 3, D: "1", BS: 4},
}

func randomUnit(r *rand.Rand, kinds []events.WeaponSpec, id, player string, x, y float64) events.UnitSpec {
	w := kinds[r.IntN(len(kinds))]
	w.ID = "w1"
	t := 3 + r.IntN(3)
	sv := 3 + r.IntN(4)
	u := events.UnitSpec{ID: id, Name: fmt.Sprintf("%s %s squad", player, w.Name), Player: player,
		Keywords: []string{"INFANTRY"}, Weapons: []events.WeaponSpec{w}}
	for i := 0; i < 3+r.IntN(8); i++ {
		u.Models = append(u.Models, events.ModelSpec{
			ID: fmt.Sprintf("%s-m%d", id, i+1), WS: 3 + r.IntN(2), BS: 2 + r.IntN(4), S: 3 + r.IntN(2), T: t, W: 1,
			I: 2 + r.IntN(3), A: 1 + r.IntN(2), Ld: 7 + r.IntN(3), Sv: sv, Move: 6,
			Height: 1.5, BaseMM: 25, X: x, Y: y + float64(i)*1.1, Weapons: []string{"w1"},
		})
	}
	return u
}
