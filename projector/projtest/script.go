package projtest

import (
	"encoding/hex"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/projector/sim"
)

// PlayScript plays a match script (docs/script.md), read with the real
// reader, in memory, as `matchrec play` does through the recorder: the
// recorder's dice commitment as event 2 (so a step names the events the
// recorder numbers), then each step as its player (or the judge); steps
// that expect a refusal must get exactly it and leave the match
// unchanged; digital rolls are made with seeded dice.
func PlayScript(t testing.TB, r projector.Rules, path string) *Game {
	t.Helper()
	sc, err := script.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := sc.Match.Placed()
	if err != nil {
		t.Fatal(err)
	}
	g := New(t, r, setup)
	seed := make([]byte, dice.SeedSize)
	system := events.Actor{Kind: events.ActorSystem}
	g.recorded(system, &events.DiceCommitted{Epoch: 0, Commit: dice.Commit(seed)})
	dice := sim.NewDice(7)
	for i, st := range sc.Steps {
		actor := Player(st.As)
		if st.As == script.RoleJudge {
			actor = events.Actor{Kind: events.ActorJudge, ID: script.RoleJudge}
		}
		c := st.Cmd
		if c.Type == projector.CmdRoll && c.Digital && len(c.Values) == 0 {
			c.Source = events.SourceDigital
			for n := 0; n < g.State.Pending.Dice; n++ {
				c.Values = append(c.Values, dice.D6())
			}
		}
		if st.ExpectRefusal != "" {
			g.Refused(actor, c, st.ExpectRefusal)
			continue
		}
		ended := g.State.Ended
		if err := g.Try(actor, c); err != nil {
			t.Fatalf("%s %s (as %s, %s): %v", path, st.Where(i), st.As, st.Cmd.Type, err)
		}
		if g.State.Ended && !ended { // the recorder reveals its seed with the end
			g.recorded(system, &events.DiceRevealed{Epoch: 0, Seed: hex.EncodeToString(seed)})
		}
	}
	return g
}
