package natsbus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
)

// The request/reply API. Every verb is a subject under APIPrefix, every
// request body and reply is JSON, so the stock CLI drives the recorder:
//
//	nats req matchrec.api.matches ''
//	nats req matchrec.api.state '{"match":"m1"}'
//
// Replies are {"ok":true,"result":...} or
// {"ok":false,"error":{"code":"...","message":"..."}}.
const (
	// APIPrefix starts every API subject; the verb follows.
	APIPrefix = "matchrec.api."
	// APIQueue is the queue group API servers join, so several recorder
	// processes can share the load and each request is answered once.
	APIQueue = "matchrec"
	// MaxConcurrentRequests bounds the requests handled at once by one
	// ServeAPI; further ones wait in the subscription's buffer.
	MaxConcurrentRequests = 1024
)

// Handler executes API requests. body is the request's JSON (empty when
// the caller sent none); the result is marshalled to JSON as the reply's
// "result". Handle runs concurrently for different requests.
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
// unknown_verb, before their body is even parsed.
type Verbs map[string]func(ctx context.Context, body []byte) (any, error)

// Handle dispatches to the verb's function.
func (v Verbs) Handle(ctx context.Context, verb string, body []byte) (any, error) {
	f, ok := v[verb]
	if !ok {
		return nil, unknownVerb(verb)
	}
	return f(ctx, body)
}

// Knows reports whether verb exists.
func (v Verbs) Knows(verb string) bool { _, ok := v[verb]; return ok }

// verbKnower is an optional Handler ability: a handler that can say which
// verbs exist lets ServeAPI answer unknown_verb before bad_request.
type verbKnower interface{ Knows(verb string) bool }

// Bind decodes a request body into v, strictly: unknown fields and
// trailing data are bad_request, so a typo in a field name is reported
// rather than silently ignored. An empty body leaves v as it is.
func Bind(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(CodeBadRequest, "request body: %v", err)
	}
	if dec.More() {
		return Errorf(CodeBadRequest, "request body: trailing data after the JSON value")
	}
	return nil
}

// reply is the envelope of an error reply; success replies are written by
// hand (see call).
type reply struct {
	OK    bool   `json:"ok"`
	Error *Error `json:"error,omitempty"`
}

// replyIn is reply as a client reads it: the result stays raw until the
// caller says what it is.
type replyIn struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// ServeOptions tunes ServeAPI; the zero value is the default.
type ServeOptions struct {
	// Concurrency bounds requests in flight; default MaxConcurrentRequests.
	Concurrency int
	// Logger receives handler panics and reply failures. Zero discards.
	Logger zerolog.Logger
}

// ServeAPI answers requests on matchrec.api.> (queue group APIQueue) with
// h until ctx is done or stop is called. Requests are handled
// concurrently, at most MaxConcurrentRequests at a time: the subscription
// delivers messages one by one, and a slow verb must not hold up the rest.
// A panic in h becomes an internal error reply; it never crashes the
// process a remote caller can reach.
//
// stop stops taking requests, lets those already received finish and reply,
// then returns. It is safe to call more than once, and from any goroutine.
func ServeAPI(ctx context.Context, nc *nats.Conn, h Handler) (stop func(), err error) {
	return ServeAPIWith(ctx, nc, h, ServeOptions{})
}

// ServeAPIWith is ServeAPI with options.
func ServeAPIWith(ctx context.Context, nc *nats.Conn, h Handler, opts ServeOptions) (stop func(), err error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = MaxConcurrentRequests
	}
	s := &apiServer{
		h:   h,
		sem: make(chan struct{}, opts.Concurrency),
		log: opts.Logger.With().Str("component", "api").Logger(),
	}
	s.known, _ = h.(verbKnower)
	// Handlers get their own context, cancelled only after the last one
	// finishes, so stopping never cuts a request off halfway.
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.ctx = hctx

	sub, err := nc.QueueSubscribe(APIPrefix+">", APIQueue, s.dispatch)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("natsbus: subscribe to %s>: %w", APIPrefix, err)
	}
	// Make sure the server has the subscription before callers are told
	// the API is up; otherwise an immediate request gets no responders.
	if err := nc.Flush(); err != nil {
		_ = sub.Unsubscribe()
		cancel()
		return nil, fmt.Errorf("natsbus: subscribe to %s>: %w", APIPrefix, err)
	}

	var once sync.Once
	done := make(chan struct{})
	stop = func() {
		once.Do(func() {
			defer close(done)
			closed := sub.StatusChanged(nats.SubscriptionClosed)
			// Drain: no new requests, but those already delivered to this
			// subscription still get their callback (and so a reply).
			if err := sub.Drain(); err == nil {
				select {
				case <-closed:
				case <-time.After(30 * time.Second):
					s.log.Warn().Msg("api drain timed out; dropping requests not yet handled")
					_ = sub.Unsubscribe()
				}
			}
			s.wg.Wait()
			cancel()
		})
		<-done
	}
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-done:
		}
	}()
	return stop, nil
}

type apiServer struct {
	h     Handler
	known verbKnower
	ctx   context.Context
	sem   chan struct{}
	wg    sync.WaitGroup
	log   zerolog.Logger
}

// dispatch runs on the subscription's delivery goroutine: it only takes a
// slot and hands the message on.
func (s *apiServer) dispatch(m *nats.Msg) {
	if m.Reply == "" {
		// `nats pub` instead of `nats req`: a command whose outcome nobody
		// can see is more likely a mistake than a wish.
		s.log.Debug().Str("subject", m.Subject).Msg("api message without reply subject ignored")
		return
	}
	s.sem <- struct{}{}
	s.wg.Add(1)
	go func() {
		defer func() { <-s.sem; s.wg.Done() }()
		s.serve(m)
	}()
}

func (s *apiServer) serve(m *nats.Msg) {
	verb := strings.TrimPrefix(m.Subject, APIPrefix)
	if err := m.Respond(s.call(verb, m.Data)); err != nil {
		s.log.Warn().Err(err).Str("verb", verb).Msg("api reply not sent")
	}
}

// call runs the handler and returns the encoded reply.
func (s *apiServer) call(verb string, body []byte) (out []byte) {
	if verb == "" || strings.ContainsAny(verb, ".*>") || (s.known != nil && !s.known.Knows(verb)) {
		return errorReply(unknownVerb(verb))
	}
	if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
		return errorReply(Errorf(CodeBadRequest, "request body is not valid JSON"))
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Str("verb", verb).Interface("panic", p).Bytes("stack", debug.Stack()).Msg("api handler panicked")
			// The panic value stays in the log: it may hold internals a
			// caller should not see.
			out = errorReply(Errorf(CodeInternal, "internal error handling %q", verb))
		}
	}()
	res, err := s.h.Handle(s.ctx, verb, body)
	if err != nil {
		return errorReply(AsError(err))
	}
	// Encoded here, inside the recover, so a panicking MarshalJSON is
	// caught too. The envelope is written by hand: marshalling the result
	// as a json.RawMessage field would validate and compact it again.
	raw, err := json.Marshal(res)
	if err != nil {
		return errorReply(Errorf(CodeInternal, "encode %s result: %v", verb, err))
	}
	buf := make([]byte, 0, len(okPrefix)+len(raw)+1)
	buf = append(buf, okPrefix...)
	buf = append(buf, raw...)
	return append(buf, '}')
}

const okPrefix = `{"ok":true,"result":`

func errorReply(e *Error) []byte {
	// An Error of two strings always encodes.
	data, _ := json.Marshal(reply{Error: e})
	return data
}
