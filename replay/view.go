package replay

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/api"
)

// view renders e, whose payload is p, with its narrated lines
// (Narrator.View); a nil p leaves the view's payload out.
func view(e events.Event, p events.Payload, lines []string) (api.EventView, error) {
	v := api.EventView{
		Seq: e.Seq, Type: e.Type, Time: time.Unix(0, e.Time).UTC().Format(time.RFC3339Nano),
		Actor: e.Actor, Hash: e.Hash, Text: strings.Join(lines, "\n"),
	}
	if p == nil {
		return v, nil
	}
	if mc, ok := p.(*events.MatchCreated); ok {
		// Token hashes are not secrets, but they are nobody's business
		// either: a reader of the log has no use for them.
		c := *mc
		c.Tokens = nil
		p = &c
	}
	var err error
	if v.Payload, err = json.Marshal(p); err != nil {
		return api.EventView{}, err
	}
	return v, nil
}
