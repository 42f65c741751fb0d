package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
)

// Autoplay plays random 3e matches to the end with legal commands only,
// ending each with its winner, and the recorded events fold back to the
// same state.
func TestAutoplayPlaysLegalMatches(t *testing.T) {
	won := 0
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
		// The judge's ending names the winner: the player who removed
		// more models (or the only one with models left).
		s := g.State
		p1, p2 := s.Players[0].ID, s.Players[1].ID
		k1, k2 := s.TallyOf(p2).ModelsLost, s.TallyOf(p1).ModelsLost
		want := ""
		switch {
		case k1 > k2:
			want = p1
		case k2 > k1:
			want = p2
		}
		if s.Winner != want {
			t.Fatalf("seed %d: winner %q, want %q (%d models removed to %d)", seed, s.Winner, want, k1, k2)
		}
		if s.Winner != "" {
			won++
		}
		live, _ := g.State.Hash()
		if re, _ := g.Refold().Hash(); re != live {
			t.Fatalf("seed %d: refold differs", seed)
		}
	}
	if won < 10 {
		t.Fatalf("only %d of 20 matches have a winner", won)
	}
}

// A side with nothing left loses; at the turn limit the player who
// removed more models wins; equal counts are a draw.
func TestOutcome(t *testing.T) {
	setup := sim.RandomMatch(ed3e.Rules{}, rand.New(rand.NewPCG(3, 1)))
	g := projtest.New(t, ed3e.Rules{}, setup)
	s := g.State
	if w, why := sim.Outcome(s); w != "" || why != "turn limit: a draw, 0 models removed each" {
		t.Fatalf("nothing removed: %q %q", w, why)
	}
	s.Tally = []projector.Tally{{Player: "p1", ModelsLost: 2}, {Player: "p2", ModelsLost: 5}}
	if w, why := sim.Outcome(s); w != "p1" || why != "turn limit: Player 1 removed 5 models to Player 2's 2" {
		t.Fatalf("p1 ahead: %q %q", w, why)
	}
	for _, u := range s.Units {
		if u.Player == "p1" {
			for _, m := range u.Models {
				m.Removed = true
			}
		}
	}
	if w, why := sim.Outcome(s); w != "p2" || why != "Player 1 has no models left" {
		t.Fatalf("p1 wiped out: %q %q", w, why)
	}
}
