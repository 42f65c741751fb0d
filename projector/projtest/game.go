// Package projtest drives an edition's decide/evolve pair in memory, for
// unit tests of rules: no store, no bus, just Decide → events → Apply with
// a fixed clock, exactly as the recorder does it.
package projtest

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Game is a match in memory.
type Game struct {
	T      testing.TB
	Rules  projector.Rules
	State  *projector.State
	Events []events.Event
	// twin is the same match measured at the table (twin.go).
	twin *twin
}

// New creates the match from setup as the recorder does, through Decide
// (tokens are not needed in memory); a setup the rules refuse fails t.
func New(t testing.TB, r projector.Rules, setup events.MatchCreated) *Game {
	t.Helper()
	g := &Game{T: t, Rules: r, State: projector.New("m1")}
	if err := g.try(events.Actor{Kind: events.ActorSystem}, projector.Command{Type: projector.CmdCreate, Setup: &setup}); err != nil {
		t.Fatalf("create: %v", err)
	}
	g.twin = twinOf(g, setup, false)
	return g
}

// Recorded creates the match by recording setup as it is, undecided (only
// the defaults filled): for tests of how the fold copes with a setup the
// rules now refuse, as history recorded by another build may hold.
func Recorded(t testing.TB, r projector.Rules, setup events.MatchCreated) *Game {
	t.Helper()
	if setup.Edition == "" {
		setup.Edition = r.Edition()
	}
	projector.SetupDefaults(&setup)
	g := &Game{T: t, Rules: r, State: projector.New("m1")}
	if err := g.record(events.Actor{Kind: events.ActorSystem}, &setup); err != nil {
		t.Fatal(err)
	}
	g.twin = twinOf(g, setup, true)
	return g
}

// Player is the actor of a player id.
func Player(id string) events.Actor { return events.Actor{Kind: events.ActorPlayer, ID: id} }

// Try decides c for actor and applies the events; it returns the refusal
// (or fold error) instead of failing the test. Its measured twin makes c
// too (twin.go).
func (g *Game) Try(actor events.Actor, c projector.Command) error {
	g.T.Helper()
	if g.twin != nil && !g.twin.dead {
		return g.twin.mirror(g, actor, c)
	}
	return g.try(actor, c)
}

func (g *Game) try(actor events.Actor, c projector.Command) error {
	g.T.Helper()
	ps, err := projector.DecideWith(g.Rules, g.State, actor, c, g.History)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := g.record(actor, p); err != nil {
			return err
		}
	}
	return nil
}

// Do is Try that fails the test on any error.
func (g *Game) Do(actor events.Actor, c projector.Command) {
	g.T.Helper()
	if err := g.Try(actor, c); err != nil {
		g.T.Fatalf("%s %+v: %v", actor, c, err)
	}
}

// Refused asserts that c is refused with code and that nothing changed.
func (g *Game) Refused(actor events.Actor, c projector.Command, code projector.Code) *projector.Refusal {
	g.T.Helper()
	before, _ := g.State.Hash()
	n := len(g.Events)
	err := g.Try(actor, c)
	r, ok := projector.AsRefusal(err)
	if !ok || r.Code != code {
		g.T.Fatalf("%s %+v: want refusal %s, got %v", actor, c, code, err)
	}
	after, _ := g.State.Hash()
	if before != after || n != len(g.Events) {
		g.T.Fatalf("refused command changed the match")
	}
	return r
}

// Roll rolls the pending dice as the pending player with the given values.
func (g *Game) Roll(values ...int) {
	g.T.Helper()
	g.Do(Player(g.State.Pending.Player), projector.Command{Type: projector.CmdRoll, Values: values})
}

// History reads a recorded event's payload, as the recorder's history
// does (a dispute and a ruling look at the event they are about).
func (g *Game) History(seq uint64) (events.Payload, bool) {
	if seq < 1 || seq > uint64(len(g.Events)) {
		return nil, false
	}
	p, err := projector.Vocabulary(g.Rules).Decode(g.Events[seq-1])
	return p, err == nil
}

// recorded records p as the recorder does, undecided, in g and its twin.
func (g *Game) recorded(actor events.Actor, p events.Payload) {
	g.T.Helper()
	if err := g.record(actor, p); err != nil {
		g.T.Fatal(err)
	}
	if tw := g.twin; tw != nil && !tw.dead {
		if err := tw.g.record(actor, p); err != nil {
			tw.fail("%s: %v", p.EventType(), err)
		}
		tw.seqs[g.State.Seq] = tw.g.State.Seq
	}
}

// Refold folds every recorded event from scratch and returns the state.
func (g *Game) Refold() *projector.State {
	g.T.Helper()
	s := projector.New("m1")
	for _, e := range g.Events {
		if err := projector.Apply(g.Rules, s, e); err != nil {
			g.T.Fatalf("refold: %v", err)
		}
	}
	return s
}

func (g *Game) record(actor events.Actor, p events.Payload) error {
	g.T.Helper()
	e, err := events.New("m1", g.State.Seq+1, g.State.Head, int64(len(g.Events))*1e9, actor, p)
	if err != nil {
		g.T.Fatalf("encode: %v", err)
	}
	if err := projector.ApplyDecoded(g.Rules, g.State, &e, p); err != nil {
		return err
	}
	g.Events = append(g.Events, e)
	return nil
}

// Ptr returns a pointer to v (for Command.X/Y).
func Ptr(v float64) *float64 { return &v }
