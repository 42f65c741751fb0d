package ed11e

import (
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

func engagedFact(unit, with string) events.Fact {
	return events.Fact{Kind: projector.FactEngaged, Model: unit, Value: with}
}

// In a measured match engagement is measured: with each move (what its
// unit is engaged with after it), of the player's own accord, and after
// an attack takes models off a unit that is engaged.
func TestMeasuredEngagement(t *testing.T) {
	tank := squad("a", "alice", 1, 10, gun("cannon", 3, 8))
	tank.Keywords = []string{"VEHICLE"}
	g := projtest.Measured(t, Rules{}, setup(tank, squad("b", "bob", 2, 30), squad("c", "bob", 1, 30)))
	if len(g.State.Unit("a").Engaged) != 0 {
		t.Fatal("nothing is engaged before anything is measured")
	}
	g.Do(alice, projector.Command{Type: projector.CmdNextTurn})
	mv := projector.Command{Type: projector.CmdMove, Unit: "a", Model: "a-1", Facts: []events.Fact{{Kind: projector.FactMoved, Value: "5"}}}
	g.Refused(alice, mv, projector.CodeFactMissing)
	mv.Facts = append(mv.Facts, engagedFact("a", "zz"))
	g.Refused(alice, mv, projector.CodeFactUnknownModel)
	mv.Facts[1] = engagedFact("a", "a")
	g.Refused(alice, mv, projector.CodeFactsInconsistent)
	mv.Facts[1] = engagedFact("a", "c, b")
	g.Do(alice, mv)
	if a, b, c := g.State.Unit("a").Engaged, g.State.Unit("b").Engaged, g.State.Unit("c").Engaged; !slices.Equal(a, []string{"b", "c"}) || !slices.Equal(b, []string{"a"}) || !slices.Equal(c, []string{"a"}) {
		t.Fatalf("engaged %v %v %v", a, b, c)
	}
	// Of the player's own accord: no longer engaged with c.
	g.Do(alice, projector.Command{Type: projector.CmdMeasure, Facts: []events.Fact{engagedFact("a", "b")}})
	if c := g.State.Unit("c").Engaged; len(c) != 0 {
		t.Fatalf("c still engaged with %v", c)
	}
	g.Refused(bob, projector.Command{Type: projector.CmdMeasure, Facts: []events.Fact{engagedFact("a", "none")}}, projector.CodeWrongStep)
	// A close-quarters attack kills one of b's models: b's owner measures
	// what it is engaged with now.
	g.Do(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	cq := shoot("a", "b", CloseQuarters)
	cq.Facts = []events.Fact{{Kind: projector.FactRange, From: "a-1", Value: "0.5"}, {Kind: projector.FactCovered, From: "a-1", Value: "no"}}
	g.Do(alice, cq)
	g.Roll(6)
	g.Roll(6)
	g.Do(bob, allocate("b-1"))
	g.Roll(1)
	p := g.State.Pending
	if p.Kind != projector.WaitMeasure || p.Player != "bob" || p.Purpose != measureEngaged || len(p.Facts) != 1 || p.Facts[0].Model != "b" {
		t.Fatalf("pending %+v", p)
	}
	g.Refused(alice, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting}, projector.CodeWrongStep)
	g.Do(bob, projector.Command{Type: projector.CmdMeasure, Facts: []events.Fact{engagedFact("b", "none")}})
	if a := g.State.Unit("a").Engaged; len(a) != 0 || g.State.Pending.Kind != projector.WaitDeclare {
		t.Fatalf("a engaged with %v; pending %+v", a, g.State.Pending)
	}
	same(t, g)
}
