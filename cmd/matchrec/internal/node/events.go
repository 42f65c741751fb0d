package node

import (
	"context"
	"errors"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// EventsRequest is the body of events: the match and an optional range of
// sequence numbers (0 = from the start / to the end).
type EventsRequest struct {
	Match string `json:"match"`
	From  uint64 `json:"from,omitempty"`
	To    uint64 `json:"to,omitempty"`
}

// EventsResult is one page of a match's events. Next, when not 0, is the
// From of the following page: a reply must fit in one NATS message (1 MB by
// default), and a long match does not.
type EventsResult struct {
	Match  string      `json:"match"`
	Events []EventJSON `json:"events"`
	Next   uint64      `json:"next,omitempty"`
}

// EventJSON is an event as people and scripts read it (replay.EventView).
type EventJSON = replay.EventView

// pageBytes bounds the JSON of one events page, well under NATS' default
// 1 MB max payload with room for the envelope.
var pageBytes = 512 << 10 // a var so tests can page small matches

func (n *Node) events(ctx context.Context, body []byte) (any, error) {
	var req EventsRequest
	if err := api.Bind(body, &req); err != nil {
		return nil, err
	}
	if !events.ValidMatchID(req.Match) {
		return nil, api.Errorf(projector.CodeBadRequest, "match %q is not a match id", req.Match)
	}
	if req.To != 0 && req.To < req.From {
		return nil, api.Errorf(projector.CodeBadRequest, "to %d is before from %d", req.To, req.From)
	}
	res := EventsResult{Match: req.Match, Events: []EventJSON{}}
	var (
		nar  *replay.Narrator
		size int
	)
	// Narration needs the state before each event, so the fold always
	// starts at event 1; only the requested range is returned.
	err := n.store.Scan(ctx, req.Match, 1, func(e events.Event) error {
		if req.To != 0 && e.Seq > req.To {
			return events.ErrStop
		}
		if nar == nil {
			nar = replay.NewNarratorFor(n.rec.RulesFor)
		}
		lines, err := nar.Next(e)
		if err != nil {
			return err
		}
		if e.Seq < req.From {
			return nil
		}
		ej, err := replay.View(e, lines)
		if err != nil {
			return err
		}
		size += len(ej.Payload) + len(ej.Text) + 200
		if size > pageBytes && len(res.Events) > 0 {
			res.Next = e.Seq
			return events.ErrStop
		}
		res.Events = append(res.Events, ej)
		return nil
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	return res, nil
}
