package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
)

// Autoplay plays random 3e matches to the end with legal commands only,
// and the recorded events fold back to the same state.
func TestAutoplayPlaysLegalMatches(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		g := projtest.New(t, ed3e.Rules{}, sim.RandomMatch(ed3e.Rules{}, rand.New(rand.NewPCG(seed, 1))))
		ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(seed), MaxTurns: 5}
		for i := 0; ; i++ {
			if i > 5000 {
				t.Fatalf("seed %d: match does not end", seed)
			}
			actor, c, done := ap.Next(g.State)
			if done {
				break
			}
			if err := g.Try(actor, c); err != nil {
				t.Fatalf("seed %d: autoplay made an illegal command %+v: %v", seed, c, err)
			}
		}
		if !g.State.Ended || g.State.Turn < 1 {
			t.Fatalf("seed %d: not ended (turn %d)", seed, g.State.Turn)
		}
		live, _ := g.State.Hash()
		if re, _ := g.Refold().Hash(); re != live {
			t.Fatalf("seed %d: refold differs", seed)
		}
	}
}
