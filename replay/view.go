package replay

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/matchrec/matchrec/events"
)

// EventView is an event as people and scripts read it: the payload
// decoded to JSON, the time in RFC 3339, and the narrator's text (more than
// one line, newline-separated, when the event completed an attack). The
// API's events verb, `log --json`, `replay --json` and the web pages all
// use this one shape.
type EventView struct {
	Seq     uint64          `json:"seq"`
	Type    events.Type     `json:"type"`
	Time    string          `json:"time"`
	Actor   events.Actor    `json:"actor"`
	Payload json.RawMessage `json:"payload"`
	Hash    events.Hash     `json:"hash"`
	Text    string          `json:"text"`
}

// View renders e with its narrated lines.
func View(e events.Event, lines []string) (EventView, error) {
	p, err := e.Decode()
	if err != nil {
		return EventView{}, err
	}
	if mc, ok := p.(*events.MatchCreated); ok {
		// Token hashes are not secrets, but they are nobody's business
		// either: a reader of the log has no use for them.
		c := *mc
		c.Tokens = nil
		p = &c
	}
	b, err := json.Marshal(p)
	if err != nil {
		return EventView{}, err
	}
	return EventView{
		Seq: e.Seq, Type: e.Type, Time: time.Unix(0, e.Time).UTC().Format(time.RFC3339Nano),
		Actor: e.Actor, Payload: b, Hash: e.Hash, Text: strings.Join(lines, "\n"),
	}, nil
}
