package projtest

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
)

// Judge is the judge's actor.
var Judge = events.Actor{Kind: events.ActorJudge, ID: "judge"}

// Void has the opponent of the player who made the roll at seq dispute
// it and the judge void it, then folds the match again as ruled, so play
// goes on from the match as ruled (as the recorder's does).
func (g *Game) Void(seq uint64) {
	g.T.Helper()
	e := g.Events[seq-1]
	p, err := events.Core().Decode(e)
	if err != nil {
		g.T.Fatal(err)
	}
	roll, ok := p.(*events.DiceRolled)
	if !ok {
		g.T.Fatalf("event %d is %s, not a roll", seq, e.Type)
	}
	other := g.State.Players[0].ID
	if other == roll.Roller {
		other = g.State.Players[1].ID
	}
	g.Do(Player(other), projector.Command{Type: projector.CmdDispute, Event: seq, Reason: "cocked dice"})
	g.Do(Judge, projector.Command{Type: projector.CmdRule, Dispute: g.State.Seq, Decision: events.RulingVoid})
	g.State = g.AsRuled()
	if g.twin != nil {
		g.twin.refold()
	}
}

// AsRuled folds g's events again, as ruled (the state play goes on from after a ruling).
func (g *Game) AsRuled() *projector.State {
	g.T.Helper()
	f := fold.NewFolder("m1", func(string) (projector.Rules, error) { return g.Rules, nil })
	for _, e := range g.Events {
		if err := f.Apply(e); err != nil {
			g.T.Fatal(err)
		}
	}
	return f.State
}

// FirstRoll returns the sequence of the match's first dice.rolled event
// (0 if none).
func (g *Game) FirstRoll() uint64 {
	for _, e := range g.Events {
		if e.Type == events.TypeDiceRolled {
			return e.Seq
		}
	}
	return 0
}
