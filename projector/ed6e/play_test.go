package ed6e

import (
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
)

// Autoplay plays random 6e matches to the end with legal commands only:
// they move, shoot (blasts and templates placed and scattered), charge,
// fight and fall back, and their events fold back to the same state.
func TestAutoplayPlaysTheWholeTurn(t *testing.T) {
	seen := map[events.Type]int{}
	rolls := map[string]int{}
	for seed := uint64(1); seed <= 12; seed++ {
		g := projtest.New(t, Rules{}, sim.RandomMatch(Rules{}, rand.New(rand.NewPCG(seed, 1)), Rules{}.Armory()...))
		ap := &sim.Autoplay{Rules: Rules{}, Dice: sim.NewDice(seed), MaxTurns: 5}
		for i := 0; ; i++ {
			if i > 20000 {
				t.Fatalf("seed %d: the match does not end (%s)", seed, g.State.Pending.Text)
			}
			actor, c, done := ap.Next(g.State)
			if done {
				break
			}
			if err := g.Try(actor, c); err != nil {
				t.Fatalf("seed %d: autoplay made an illegal command %+v: %v (%s)", seed, c, err, g.State.Pending.Text)
			}
		}
		for _, e := range g.Events {
			seen[e.Type]++
			if e.Type == events.TypeDiceRolled {
				p, err := projector.Vocabulary(Rules{}).Decode(e)
				if err != nil {
					t.Fatal(err)
				}
				rolls[p.(*events.DiceRolled).Purpose]++
			}
		}
		projtest.Same(t, g)
	}
	for _, want := range []events.Type{TypeChargeDeclared, TypeCombatChosen, TypeStrikeDeclared, TypeMarkerPlaced} {
		if seen[want] == 0 {
			t.Errorf("no %s in generated matches: %v", want, seen)
		}
	}
	for _, want := range []string{purposeCharge, purposeScatter, purposeMorale} {
		if rolls[want] == 0 {
			t.Errorf("no %s roll in generated matches: %v", want, rolls)
		}
	}
}
