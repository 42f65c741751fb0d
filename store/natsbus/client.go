package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/api"
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
	// Msgpack sends the commands' requests (declare, roll, status) and the
	// events' in msgpack and reads their replies in msgpack
	// (api_msgpack.go): no JSON encoded on either side of the command path. A request given as
	// bytes is sent as it is, in JSON.
	Msgpack bool
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
	mp := false
	switch r := req.(type) {
	case nil:
	case []byte:
		body = r
	case json.RawMessage:
		body = r
	default:
		if c.Msgpack && msgpackVerbs[verb] {
			b, err := events.EncodeValue(req)
			if err != nil {
				return fmt.Errorf("natsbus: encode %s request: %w", verb, err)
			}
			body, mp = b, true
			break
		}
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
	if mp {
		msg.Header.Set(HeaderEncoding, EncodingMsgpack)
	}
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
	if mp {
		err = decodeMsgpackReply(verb, m.Data, resp, c.OnNote)
		c.learn(verb, resp, nil, err)
		return err
	}
	var out replyIn
	if err := json.Unmarshal(m.Data, &out); err != nil {
		return fmt.Errorf("natsbus: %s: malformed reply: %w", verb, err)
	}
	err = readReply(verb, out.OK, out.Error, out.Note, len(out.Result) > 0 && resp != nil, c.OnNote, func() error { return json.Unmarshal(out.Result, resp) })
	c.learn(verb, resp, out.Result, err)
	return err
}

// learn raises the session's floor (Heads) from a write's answer: from
// the decoded result when it is a write's result type, else from the
// result's JSON (raw; nil for msgpack).
func (c *Client) learn(verb string, resp any, raw []byte, err error) {
	if c.Heads == nil || err != nil || !api.Writes(verb) {
		return
	}
	if a, ok := api.WrittenBy(resp); ok {
		c.Heads.Saw(a.Match, a.Seq)
		return
	}
	if raw != nil {
		c.Heads.learn(verb, raw)
	}
}

// readReply reads a reply envelope, in either encoding: the note, then the
// error, or the result decoded into the caller's value (decode, when there
// is a result and a value to decode it into).
func readReply(verb string, ok bool, e *api.Error, note string, result bool, onNote func(verb, note string), decode func() error) error {
	if note != "" && onNote != nil {
		onNote(verb, note)
	}
	if !ok {
		if e == nil {
			return fmt.Errorf("natsbus: %s: reply neither ok nor an error", verb)
		}
		return e
	}
	if result {
		if err := decode(); err != nil {
			return fmt.Errorf("natsbus: %s: decode result: %w", verb, err)
		}
	}
	return nil
}
