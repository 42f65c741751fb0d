package natsbus

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// Go clients may speak msgpack on the API's subjects (Client.Msgpack):
// the request carries HeaderEncoding: EncodingMsgpack, its body is the
// request in msgpack (the JSON field names, store/api/msgpack.go), and the
// reply is the same envelope as JSON's — {ok, result, error, note} — in
// msgpack. The stock nats CLI and scripts send JSON and get JSON.
const (
	HeaderEncoding  = "Matchrec-Encoding"
	EncodingMsgpack = "msgpack"
)

// msgpackVerbs are the verbs a Client with Msgpack speaks msgpack for:
// the commands' and the events' (a page of a long match's log), whose
// results are plain values; the others, whose results need their own
// JSON (states with their editions' parts, SQL rows), stay JSON.
var msgpackVerbs = map[string]bool{api.VerbDeclare: true, api.VerbRoll: true, api.VerbStatus: true, api.VerbEvents: true}

// replyMsgpack is the reply envelope in msgpack.
type replyMsgpack struct {
	OK     bool               `json:"ok"`
	Result msgpack.RawMessage `json:"result,omitempty"`
	Error  *api.Error         `json:"error,omitempty"`
	Note   string             `json:"note,omitempty"`
}

// callMsgpack is call for a msgpack request.
func (s *apiServer) callMsgpack(ctx context.Context, verb string, body []byte) (out []byte) {
	var note string
	if s.note != nil {
		note = s.note()
	}
	fail := func(e *api.Error) []byte {
		b, _ := events.EncodeValue(replyMsgpack{Error: e, Note: note}) // strings and a bool always encode
		return b
	}
	if verb == "" || strings.ContainsAny(verb, ".*>") || (s.known != nil && !s.known.Knows(verb)) {
		return fail(unknownVerb(verb))
	}
	if len(body) > 0 && !api.IsMsgpack(body) {
		return fail(api.Errorf(projector.CodeBadRequest, "request body is not a msgpack map (header %s: %s)", HeaderEncoding, EncodingMsgpack))
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Str("verb", verb).Interface("panic", p).Bytes("stack", debug.Stack()).Msg("api handler panicked")
			out = fail(api.Errorf(projector.CodeInternal, "internal error handling %q", verb))
		}
	}()
	res, err := s.h.Handle(ctx, verb, body)
	if err != nil {
		return fail(api.FromError(err))
	}
	raw, err := events.EncodeValue(res)
	if err != nil {
		return fail(api.Errorf(projector.CodeInternal, "encode %s result: %v", verb, err))
	}
	b, err := events.EncodeValue(replyMsgpack{OK: true, Result: raw, Note: note})
	if err != nil {
		return fail(api.Errorf(projector.CodeInternal, "encode %s reply: %v", verb, err))
	}
	return b
}

// decodeMsgpackReply reads a msgpack reply into resp.
func decodeMsgpackReply(verb string, data []byte, resp any, onNote func(verb, note string)) error {
	var out replyMsgpack
	if err := events.DecodeValue(data, &out); err != nil {
		return fmt.Errorf("natsbus: %s: malformed reply: %w", verb, err)
	}
	return readReply(verb, out.OK, out.Error, out.Note, len(out.Result) > 0 && resp != nil, onNote, func() error { return events.DecodeValue(out.Result, resp) })
}
