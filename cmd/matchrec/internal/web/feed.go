package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/replay"
)

// Event is an event as the pages read it: the same shape as the node's
// events verb (and `log --json`), so one reader serves both.
type Event struct {
	Seq     uint64          `json:"seq"`
	Type    events.Type     `json:"type"`
	Time    string          `json:"time"`
	Actor   events.Actor    `json:"actor"`
	Payload json.RawMessage `json:"payload"`
	Hash    events.Hash     `json:"hash"`
	// Text is the narrator's line (more than one, newline-separated, when
	// the event completed an attack).
	Text string `json:"text"`
}

func toEvent(e events.Event, lines []string) (Event, error) {
	p, err := e.Decode()
	if err != nil {
		return Event{}, err
	}
	if mc, ok := p.(*events.MatchCreated); ok {
		c := *mc
		c.Tokens = nil // token hashes: nobody's business
		p = &c
	}
	b, err := json.Marshal(p)
	if err != nil {
		return Event{}, err
	}
	return Event{
		Seq: e.Seq, Type: e.Type, Time: time.Unix(0, e.Time).UTC().Format(time.RFC3339Nano),
		Actor: e.Actor, Payload: b, Hash: e.Hash, Text: strings.Join(lines, "\n"),
	}, nil
}

// narrator tells a match's events one by one; it needs event 1 to know the
// edition, so it is made on the first event.
type narrator struct {
	s *Server
	n *replay.Narrator
}

// next tells e; it returns the page's form of e.
func (t *narrator) next(e events.Event) (Event, error) {
	if t.n == nil {
		p, err := e.Decode()
		if err != nil {
			return Event{}, err
		}
		mc, ok := p.(*events.MatchCreated)
		if !ok {
			return Event{}, fmt.Errorf("match %s: event %d is %s, not match.created", e.Match, e.Seq, e.Type)
		}
		rules, err := t.s.rec.RulesFor(mc.Edition)
		if err != nil {
			return Event{}, err
		}
		t.n = replay.NewNarrator(rules)
	}
	lines, err := t.n.Next(e)
	if err != nil {
		return Event{}, err
	}
	return toEvent(e, lines)
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
			return errEnough
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
	if err != nil && !errors.Is(err, errEnough) {
		return nil, err
	}
	return t, nil
}
