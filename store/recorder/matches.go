package recorder

import (
	"context"
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Summaries lists stored matches with what event 1 says of each (edition,
// name, players): the matches verb's answer. A match whose event 1 cannot
// be read is listed with the store's view alone.
func (r *Recorder) Summaries(ctx context.Context) ([]api.MatchSummary, error) {
	infos, err := r.st.Matches(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]api.MatchSummary, 0, len(infos))
	for _, mi := range infos {
		s := api.MatchSummary{MatchInfo: mi}
		if mc, err := r.Created(ctx, mi.ID); err == nil {
			s.Edition, s.Name = mc.Edition, mc.Name
			for _, p := range mc.Players {
				s.Players = append(s.Players, p.ID)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// Created reads event 1 of a match, its match.created: what the matches
// verb and the web pages' match list tell of each match.
func (r *Recorder) Created(ctx context.Context, id string) (*events.MatchCreated, error) {
	var mc *events.MatchCreated
	err := r.st.Scan(ctx, id, 1, func(e events.Event) error {
		p, err := events.Core().Decode(e) // match.created is a core type
		if err != nil {
			return err
		}
		var ok bool
		if mc, ok = p.(*events.MatchCreated); !ok {
			return fmt.Errorf("match %s: event 1 is %s, not match.created", id, e.Type)
		}
		return events.ErrStop
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return nil, err
	}
	if mc == nil {
		return nil, fmt.Errorf("match %s: %w", id, store.ErrNotFound)
	}
	return mc, nil
}
