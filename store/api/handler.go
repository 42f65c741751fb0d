package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/projector"
)

// Handler executes API requests, whatever carries them (store/natsbus
// over NATS). body is the request's JSON (empty when the caller sent
// none); the result is marshalled to JSON as the reply's "result", an
// error is sent as FromError(err). Handle runs concurrently for different
// requests.
type Handler interface {
	Handle(ctx context.Context, verb string, body []byte) (any, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, verb string, body []byte) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, verb string, body []byte) (any, error) {
	return f(ctx, verb, body)
}

// Verbs is a Handler with one function per verb; other verbs get
// unknown_verb, before their body is even parsed. Each part of matchrec
// that serves verbs returns its own Verbs (store/recorder, replay,
// replay/analytics); the node merges them (Merge).
type Verbs map[string]func(ctx context.Context, body []byte) (any, error)

// Handle dispatches to the verb's function.
func (v Verbs) Handle(ctx context.Context, verb string, body []byte) (any, error) {
	f, ok := v[verb]
	if !ok {
		return nil, Errorf(projector.CodeUnknownVerb, "unknown verb %q", verb)
	}
	return f(ctx, body)
}

// Knows reports whether verb exists, so a server can answer unknown_verb
// before it reads the body.
func (v Verbs) Knows(verb string) bool { _, ok := v[verb]; return ok }

// Merge returns one Verbs serving every verb of vs. A verb served twice is
// a wiring mistake: Merge names it instead of letting one silently win.
func Merge(vs ...Verbs) (Verbs, error) {
	out := Verbs{}
	var twice []string
	for _, v := range vs {
		for verb, f := range v {
			if _, ok := out[verb]; ok {
				twice = append(twice, verb)
			}
			out[verb] = f
		}
	}
	if len(twice) > 0 {
		slices.Sort(twice)
		return nil, fmt.Errorf("api: verbs served twice: %s", strings.Join(slices.Compact(twice), ", "))
	}
	return out, nil
}

// Bind decodes a request body into v, strictly: unknown fields and
// trailing data are bad_request, so a typo in a field name is reported
// rather than silently ignored. An empty body leaves v as it is.
//
// The hot verbs' requests (fastBinder: declare, roll, state, status,
// events) are read without reflection when they are in the plain form the
// CLI and scripts send (jsonread.go), and v was zero; anything else is
// encoding/json's, whose value or error is the reference.
func Bind(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if IsMsgpack(body) { // a Go client's (msgpack.go)
		return bindMsgpack(body, v)
	}
	if fb, ok := v.(fastBinder); ok && fb.bindFast(body) {
		return nil
	}
	return bindReflective(body, v)
}

// bindReflective is Bind with encoding/json alone.
func bindReflective(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(projector.CodeBadRequest, "request body: %v", err)
	}
	if dec.More() {
		return Errorf(projector.CodeBadRequest, "request body: trailing data after the JSON value")
	}
	return nil
}
