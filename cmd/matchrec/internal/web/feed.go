package web

import (
	"context"
	"errors"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// Event is an event as the pages read it: the same shape as the events
// verb and `log --json` (api.EventView), so one reader serves both.
type Event = api.EventView

// narrator tells a match's events one by one; it needs event 1 to know the
// edition, so it is made on the first event.
type narrator struct {
	s *Server
	n *replay.Narrator
}

// next tells e; it returns the page's form of e.
func (t *narrator) next(e events.Event) (Event, error) {
	if t.n == nil {
		t.n = replay.NewNarratorFor(t.s.rec.RulesFor)
	}
	lines, err := t.n.Next(e)
	if err != nil {
		return Event{}, err
	}
	return t.n.View(e, lines)
}

// narrate reads match from the store from event 1 (a line needs the state
// before its event) and calls fn for each event from..to (to 0 = the end),
// with the narrator, whose State is the board after that event. It returns
// the narrator and the last event read, so a follower carries on from the
// bus where the store ended.
func (s *Server) narrate(ctx context.Context, match string, from, to uint64, fn func(events.Event, Event, *replay.Narrator) error) (*narrator, error) {
	t := &narrator{s: s}
	err := s.st.Scan(ctx, match, 1, func(e events.Event) error {
		if to != 0 && e.Seq > to {
			return events.ErrStop
		}
		ev, err := t.next(e)
		if err != nil {
			return err
		}
		if e.Seq < from {
			return nil
		}
		return fn(e, ev, t.n)
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	return t, nil
}
