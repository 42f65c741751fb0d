package projector_test

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// A player's end proposal stands until the other player answers or play
// goes on; a second proposal from the same player meanwhile is refused
// (end_pending), so a script cannot pile up thousands of them. The other
// player's proposal, an acceptance, or a new proposal after play went on
// are still taken.
func TestEndProposalsOneAtATime(t *testing.T) {
	g := game(t)
	propose := projector.Command{Type: projector.CmdEnd, Reason: "out of time"}
	g.Do(projtest.Alice, propose)
	if o := g.State.EndOffer; o == nil || o.By != "alice" {
		t.Fatalf("offer after Alice's proposal: %+v", o)
	}
	g.Refused(projtest.Alice, propose, projector.CodeEndPending)
	g.Refused(projtest.Alice, projector.Command{Type: projector.CmdEnd, Reason: "another reason"}, projector.CodeEndPending)

	// Play goes on: the offer lapses, and Alice may propose again.
	g.Do(projtest.Alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault})
	if g.State.EndOffer != nil {
		t.Fatalf("the offer did not lapse: %+v", g.State.EndOffer)
	}
	g.Do(projtest.Alice, propose)

	// Bob accepts it: the match ends.
	g.Do(projtest.Bob, propose)
	if !g.State.Ended || g.Events[len(g.Events)-1].Type != events.TypeMatchEnded {
		t.Fatalf("Bob's acceptance did not end the match (last event %s)", g.Events[len(g.Events)-1].Type)
	}
}
