package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// DefaultCallTimeout bounds a Call whose Client has no Timeout and whose
// context has no deadline.
const DefaultCallTimeout = 5 * time.Second

// ErrNoRecorder: no API server is subscribed (nats.ErrNoResponders), i.e.
// no recorder is running on this NATS.
var ErrNoRecorder = errors.New("no matchrec recorder is answering")

// Client calls the recorder's API. It is safe for concurrent use; many
// calls share the connection's single reply subscription.
type Client struct {
	Conn *nats.Conn
	// Timeout bounds each call; 0 means DefaultCallTimeout. A shorter
	// deadline on the call's context wins.
	Timeout time.Duration
	// OnNote, when set, is told the note a reply carries (ServeOptions.
	// Note), e.g. that recorded events are not reaching the bus.
	OnNote func(verb, note string)
	// Heads, when set, is the client's session (heads.go): every request
	// carries the last event of its match the session saw written, and
	// every write's receipt raises it, so reads follow writes whichever
	// recorder of a cluster answers.
	Heads *Heads
}

// Call sends req (JSON-encoded; nil sends an empty body, a []byte or
// json.RawMessage is sent as is) to matchrec.api.<verb> and decodes the
// reply's result into resp (skipped if resp is nil). An error reply is
// returned as *api.Error with the server's code; transport failures are other
// errors (ErrNoRecorder when nobody is listening).
func (c *Client) Call(ctx context.Context, verb string, req, resp any) error {
	var body []byte
	switch r := req.(type) {
	case nil:
	case []byte:
		body = r
	case json.RawMessage:
		body = r
	default:
		b, err := json.Marshal(req)
		if err != nil {
			return fmt.Errorf("natsbus: encode %s request: %w", verb, err)
		}
		body = b
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The server's handler runs as long as this call waits, and no longer
	// (requestctx.go).
	msg := nats.NewMsg(APIPrefix + verb)
	msg.Data = body
	id := newRequestID()
	msg.Header.Set(HeaderRequest, id)
	if c.Heads != nil {
		c.Heads.stamp(msg, body)
	}
	m, err := c.Conn.RequestMsgWithContext(ctx, msg)
	if err != nil {
		if errors.Is(err, nats.ErrNoResponders) {
			return fmt.Errorf("natsbus: %s: %w", verb, ErrNoRecorder)
		}
		if ctx.Err() != nil {
			// Gave up waiting (timeout, cancel): the handler may still
			// run; stop it.
			_ = c.Conn.Publish(CancelPrefix+id, nil)
		}
		return fmt.Errorf("natsbus: %s: %w", verb, err)
	}
	var out replyIn
	if err := json.Unmarshal(m.Data, &out); err != nil {
		return fmt.Errorf("natsbus: %s: malformed reply: %w", verb, err)
	}
	if out.Note != "" && c.OnNote != nil {
		c.OnNote(verb, out.Note)
	}
	if !out.OK {
		if out.Error == nil {
			return fmt.Errorf("natsbus: %s: reply neither ok nor an error", verb)
		}
		return out.Error
	}
	if c.Heads != nil {
		c.Heads.learn(verb, out.Result)
	}
	if resp != nil && len(out.Result) > 0 {
		if err := json.Unmarshal(out.Result, resp); err != nil {
			return fmt.Errorf("natsbus: %s: decode result: %w", verb, err)
		}
	}
	return nil
}
