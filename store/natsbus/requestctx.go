package natsbus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A request's handler runs only as long as its caller waits for it. The
// client (Client.Call) names the request (HeaderRequest); when it stops
// waiting before the reply — its timeout, its context cancelled, a Ctrl-C
// — it publishes the request's name on CancelPrefix, and every API server
// of the queue group cancels the handler running it. A long SQL query or
// page is thus interrupted when its caller goes away, instead of running
// on for nobody. (A caller that dies sends nothing: the server's own
// bounds apply, ServeOptions.MaxRequest and the handlers' own.) The
// handler's context carries no timer of its own: one per request costs
// more than many a request.
const (
	// HeaderRequest names a request, for its cancellation.
	HeaderRequest = "Matchrec-Request"
	// CancelPrefix starts the subject a request is cancelled on:
	// matchrec.cancel.<request name>.
	CancelPrefix = "matchrec.cancel."
)

// newRequestID names a request: random, so no caller can cancel another's.
func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// requests holds the cancel functions of the requests being handled.
type requests struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc
}

// start returns the context a request's handler runs with: under base,
// bounded by max (0: no bound), registered under the request's name for
// cancellation. done must be called when the handler returns.
func (r *requests) start(base context.Context, h nats.Header, max time.Duration) (ctx context.Context, done func()) {
	var cancel context.CancelFunc
	if max > 0 {
		ctx, cancel = context.WithTimeout(base, max)
	} else {
		ctx, cancel = context.WithCancel(base)
	}
	id := h.Get(HeaderRequest)
	if id == "" {
		return ctx, cancel
	}
	r.mu.Lock()
	if r.running == nil {
		r.running = map[string]context.CancelFunc{}
	}
	r.running[id] = cancel
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		delete(r.running, id)
		r.mu.Unlock()
		cancel()
	}
}

// cancel cancels the request a cancel message names (one this server is
// not running is someone else's: ignored).
func (r *requests) cancel(m *nats.Msg) {
	id := strings.TrimPrefix(m.Subject, CancelPrefix)
	r.mu.Lock()
	cancel := r.running[id]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
