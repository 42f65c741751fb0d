package projtest

import (
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/sim"
)

// LongMatch plays a match of at least n events in memory, for the long-match
// tests and benchmarks: a random army pair of r's edition (from seed)
// whose models nobody can wound (T10), so the match never ends, autoplayed
// turn after turn with seeded dice. Its events are of match "m1"; Relabel
// renames them. (generate.Long records one through a recorder, with its
// digital dice.)
func LongMatch(tb testing.TB, r projector.Rules, n int, seed uint64) *Game {
	tb.Helper()
	setup := sim.RandomMatch(r, rand.New(rand.NewPCG(seed, 12)))
	for i := range setup.Units {
		for j := range setup.Units[i].Models {
			setup.Units[i].Models[j].T = 10
		}
	}
	g := New(tb, r, setup)
	g.Solo("a long match is played for its length, not for its rules")
	ap := &sim.Autoplay{Rules: r, Dice: sim.NewDice(seed + 1)}
	for len(g.Events) < n {
		actor, c, done := ap.Next(g.State)
		if done {
			tb.Fatalf("the long match ended after %d events", len(g.Events))
		}
		g.Do(actor, c)
	}
	return g
}

// Relabel returns events recorded in memory (match "m1") as the events of
// match id: the same payloads, re-chained under id.
func Relabel(id string, in []events.Event) []events.Event {
	evs := make([]events.Event, len(in))
	var prev events.Hash
	for j, e := range in {
		e.Match, e.PrevHash = id, prev
		e.Hash = events.ComputeHash(e)
		evs[j], prev = e, e.Hash
	}
	return evs
}
