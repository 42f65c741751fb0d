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

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// The request/reply API (store/api) over NATS. Every verb is a subject
// under APIPrefix, every request body and reply is JSON, so the stock CLI
// drives the recorder:
//
//	nats req matchrec.api.matches ''
//	nats req matchrec.api.state '{"match":"m1"}'
//
// Replies are {"ok":true,"result":...} or
// {"ok":false,"error":{"code":"...","message":"..."}}, either with a
// "note" while the recorder has something to say about every reply (the
// events it records are not reaching the bus; ServeOptions.Note).
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

// verbKnower is an optional api.Handler ability (api.Verbs has it): a
// handler that can say which verbs exist lets ServeAPI answer unknown_verb
// before bad_request.
type verbKnower interface{ Knows(verb string) bool }

// reply is the envelope of an error reply; success replies are written by
// hand (see call).
type reply struct {
	OK    bool       `json:"ok"`
	Error *api.Error `json:"error,omitempty"`
	Note  string     `json:"note,omitempty"`
}

// replyIn is reply as a client reads it: the result stays raw until the
// caller says what it is.
type replyIn struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *api.Error      `json:"error"`
	Note   string          `json:"note"`
}

// ServeOptions tunes ServeAPI; the zero value is the default.
type ServeOptions struct {
	// Concurrency bounds requests in flight; default MaxConcurrentRequests.
	Concurrency int
	// MaxRequest bounds how long one handler runs (its context ends
	// then) when its caller does not cancel it first; 0: no bound.
	MaxRequest time.Duration
	// Grace is how long stop lets the handlers already running finish
	// before it cancels their contexts; default DefaultGrace.
	Grace time.Duration
	// Logger receives handler panics and reply failures. Zero discards.
	Logger zerolog.Logger
	// Note, when set, is asked at each reply; a non-empty answer goes
	// with the reply as "note" (the node says there when recorded events
	// are not reaching the bus: the record has them, followers do not).
	Note func() string
	// Reply says whether a request on verb may be answered on the reply
	// subject it names; default InboxReply (an inbox namespace). A
	// request whose reply subject it refuses is not handled at all (it
	// changes nothing and gets no answer) and is logged: a reply names
	// where the recorder publishes, and a caller must not choose the
	// stream, JetStream's API or another caller's inbox.
	Reply func(verb, reply string) bool
}

// DefaultGrace is how long stopping the API waits for the handlers
// already running before it cancels them: a command or a page finishes in
// far less, a long query is interrupted, and the process stops within
// seconds whatever is running.
const DefaultGrace = 3 * time.Second

// ServeAPI answers requests on matchrec.api.> (queue group APIQueue) with
// h until ctx is done or stop is called. A handler's error is sent as
// api.FromError(err). Requests are handled
// concurrently, at most MaxConcurrentRequests at a time: the subscription
// delivers messages one by one, and a slow verb must not hold up the rest.
// A panic in h becomes an internal error reply; it never crashes the
// process a remote caller can reach.
//
// stop stops taking requests, lets those already received finish and reply,
// then returns. It is safe to call more than once, and from any goroutine.
func ServeAPI(ctx context.Context, nc *nats.Conn, h api.Handler, opts ServeOptions) (stop func(), err error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = MaxConcurrentRequests
	}
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Reply == nil {
		opts.Reply = InboxReply
	}
	s := &apiServer{
		h:     h,
		sem:   make(chan struct{}, opts.Concurrency),
		max:   opts.MaxRequest,
		log:   opts.Logger.With().Str("component", "api").Logger(),
		note:  opts.Note,
		reply: opts.Reply,
	}
	// A caller can send such requests as fast as it likes: a few lines a
	// minute say what is going on without filling the disk.
	s.refusedLog = s.log.Sample(&zerolog.BurstSampler{Burst: 5, Period: time.Minute})
	s.known, _ = h.(verbKnower)
	// Handlers get their own context, cancelled only after the last one
	// finishes, so stopping never cuts a request off halfway.
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.ctx = hctx

	// Every server hears every cancellation (no queue group): the one
	// running the request cancels it.
	csub, err := nc.Subscribe(CancelPrefix+"*", s.requests.cancel)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("natsbus: subscribe to %s*: %w", CancelPrefix, err)
	}
	sub, err := nc.QueueSubscribe(APIPrefix+">", APIQueue, s.dispatch)
	if err != nil {
		_ = csub.Unsubscribe()
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
			// Handlers get Grace to finish; then their contexts end, so
			// a long one (a query, a page) stops rather than holding the
			// process up.
			finished := make(chan struct{})
			go func() { s.wg.Wait(); close(finished) }()
			select {
			case <-finished:
			case <-time.After(opts.Grace):
				s.log.Warn().Dur("grace", opts.Grace).Msg("api handlers still running at stop: cancelling them")
				cancel()
				<-finished
			}
			cancel()
			_ = csub.Unsubscribe()
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
	h        api.Handler
	known    verbKnower
	ctx      context.Context
	sem      chan struct{}
	wg       sync.WaitGroup
	max      time.Duration
	requests requests
	log      zerolog.Logger
	note     func() string
	reply    func(verb, reply string) bool
	// refusedLog logs refused reply subjects, sampled.
	refusedLog zerolog.Logger
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
	if verb := strings.TrimPrefix(m.Subject, APIPrefix); !s.reply(verb, m.Reply) {
		s.refusedLog.Warn().Str("verb", verb).Str("reply", m.Reply).
			Msg("api request ignored: its reply subject is not a caller's inbox (docs/security.md)")
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
	ctx, done := s.requests.start(s.ctx, m.Header, s.max)
	defer done()
	ctx = withAfter(ctx, m.Header)
	call := s.call
	if m.Header.Get(HeaderEncoding) == EncodingMsgpack {
		call = s.callMsgpack
	}
	if err := m.Respond(call(ctx, verb, m.Data)); err != nil {
		s.log.Warn().Err(err).Str("verb", verb).Msg("api reply not sent")
	}
}

// call runs the handler with ctx and returns the encoded reply.
func (s *apiServer) call(ctx context.Context, verb string, body []byte) (out []byte) {
	var note string
	if s.note != nil {
		note = s.note()
	}
	if verb == "" || strings.ContainsAny(verb, ".*>") || (s.known != nil && !s.known.Knows(verb)) {
		return errorReply(unknownVerb(verb), note)
	}
	if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
		return errorReply(api.Errorf(projector.CodeBadRequest, "request body is not valid JSON"), note)
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error().Str("verb", verb).Interface("panic", p).Bytes("stack", debug.Stack()).Msg("api handler panicked")
			// The panic value stays in the log: it may hold internals a
			// caller should not see.
			out = errorReply(api.Errorf(projector.CodeInternal, "internal error handling %q", verb), note)
		}
	}()
	res, err := s.h.Handle(ctx, verb, body)
	if err != nil {
		return errorReply(api.FromError(err), note)
	}
	// Encoded here, inside the recover, so a panicking MarshalJSON is
	// caught too. The envelope is written by hand: marshalling the result
	// as a json.RawMessage field would validate and compact it again.
	// A command's result (api.Result) writes itself, as json.Marshal would
	// (api.Result.AppendJSON): it is the reply of every command.
	var buf []byte
	if r, ok := res.(api.Result); ok {
		b, err := r.AppendJSON(append(make([]byte, 0, 512), okPrefix...))
		if err != nil {
			return errorReply(api.Errorf(projector.CodeInternal, "encode %s result: %v", verb, err), note)
		}
		buf = b
	} else {
		raw, err := json.Marshal(res)
		if err != nil {
			return errorReply(api.Errorf(projector.CodeInternal, "encode %s result: %v", verb, err), note)
		}
		buf = make([]byte, 0, len(okPrefix)+len(raw)+1)
		buf = append(buf, okPrefix...)
		buf = append(buf, raw...)
	}
	if note != "" {
		n, _ := json.Marshal(note) // a string always encodes
		buf = append(buf, `,"note":`...)
		buf = append(buf, n...)
	}
	return append(buf, '}')
}

const okPrefix = `{"ok":true,"result":`

func errorReply(e *api.Error, note string) []byte {
	// An Error of two strings always encodes.
	data, _ := json.Marshal(reply{Error: e, Note: note})
	return data
}

func unknownVerb(verb string) *api.Error {
	return api.Errorf(projector.CodeUnknownVerb, "unknown verb %q (subjects are %s<verb>)", verb, APIPrefix)
}
