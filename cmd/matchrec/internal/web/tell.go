package web

import (
	"context"
	"errors"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/replay"
)

// Telling a stretch of a match costs the stretch, not the match: the web
// narrates with the replay's positioned narrators (replay.Narrators), each
// the one a reader left at the stretch's first event or one folded from
// the nearest verified snapshot before it, never from event 1.

// tell narrates id's events from..to (to 0: to the end) in order, calling
// fn with each event, its view and the narrator, whose State is the board
// after the event; fn may stop with events.ErrStop. It returns the
// narrator after the last event told (nil if none was), which the caller
// may go on with or hand back (s.narrators.Put).
func (s *Server) tell(ctx context.Context, id string, from, to uint64, fn func(events.Event, Event, *replay.Narrator) error) (*replay.Narrator, error) {
	from = max(from, 1)
	n, err := s.narrators.At(ctx, id, from)
	if err != nil {
		return nil, err
	}
	told := false
	err = s.st.Scan(ctx, id, from, func(e events.Event) error {
		if to != 0 && e.Seq > to {
			return events.ErrStop
		}
		v, err := step(n, e)
		if err != nil {
			return err
		}
		told = true
		return fn(e, v, n)
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	if !told {
		return nil, nil
	}
	return n, nil
}

// step tells e, the event after n's state, as the pages show it: marked
// as the match stands after it, with the earlier events it marked again.
func step(n *replay.Narrator, e events.Event) (Event, error) {
	lines, err := n.Next(e)
	if err != nil {
		return Event{}, err
	}
	v, err := n.View(e, lines)
	if err != nil {
		return Event{}, err
	}
	n.MarkNow(&v)
	rm, err := n.Remarks()
	if err != nil {
		return Event{}, err
	}
	return Event{EventView: v, Remarks: rm}, nil
}
