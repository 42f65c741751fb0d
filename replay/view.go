package replay

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/api"
)

// view renders e, whose payload is p, with its narrated lines
// (Narrator.View).
func view(e events.Event, p events.Payload, lines []string) (api.EventView, error) {
	if mc, ok := p.(*events.MatchCreated); ok {
		// Token hashes are not secrets, but they are nobody's business
		// either: a reader of the log has no use for them.
		c := *mc
		c.Tokens = nil
		p = &c
	}
	b, err := json.Marshal(p)
	if err != nil {
		return api.EventView{}, err
	}
	return api.EventView{
		Seq: e.Seq, Type: e.Type, Time: time.Unix(0, e.Time).UTC().Format(time.RFC3339Nano),
		Actor: e.Actor, Payload: b, Hash: e.Hash, Text: strings.Join(lines, "\n"),
	}, nil
}
