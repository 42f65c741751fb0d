package natsbus

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/store/api"
)

// HeaderAfter carries a request's read-your-writes floor (api.After):
// "<match> <seq>", the last event of the match the caller saw written.
// The recorder that answers waits until its copy holds it (a cluster's
// follower may be a moment behind the recorder that wrote it).
const HeaderAfter = "Matchrec-After"

// Heads is a client's session: the last event of each match it saw
// recorded, learnt from the receipts of its writes and from Saw. A Client
// with Heads sends the floor of the request's match with every request, so
// each read after a write sees that write whichever recorder answers. It
// is safe for concurrent use.
type Heads struct {
	// Load, when set, is asked the floor of a match the session has not
	// seen yet (the CLI reads the last receipt it kept of it, so a
	// command's next invocation reads what the last one wrote).
	Load func(match string) uint64

	mu     sync.Mutex
	seen   map[string]uint64
	loaded map[string]bool
}

// NewHeads returns an empty session.
func NewHeads() *Heads { return &Heads{seen: map[string]uint64{}} }

// Saw records that the caller has seen event seq of match (a later event
// only raises the floor).
func (h *Heads) Saw(match string, seq uint64) {
	if match == "" || seq == 0 {
		return
	}
	h.mu.Lock()
	if h.seen == nil {
		h.seen = map[string]uint64{}
	}
	if seq > h.seen[match] {
		h.seen[match] = seq
	}
	h.mu.Unlock()
}

// Of is the last event of match the session saw (0: none).
func (h *Heads) Of(match string) uint64 {
	if match == "" {
		return 0
	}
	h.mu.Lock()
	load := h.Load != nil && !h.loaded[match]
	if load {
		if h.loaded == nil {
			h.loaded = map[string]bool{}
		}
		h.loaded[match] = true
	}
	h.mu.Unlock()
	if load {
		h.Saw(match, h.Load(match))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[match]
}

// stamp sets the floor of the request's match on msg.
func (h *Heads) stamp(msg *nats.Msg, body []byte) {
	match := api.MatchOf(body)
	if seq := h.Of(match); seq > 0 {
		msg.Header.Set(HeaderAfter, match+" "+strconv.FormatUint(seq, 10))
	}
}

// learn raises the floor from a write's result.
func (h *Heads) learn(verb string, result []byte) {
	if !api.Writes(verb) {
		return
	}
	if a, ok := api.Written(result); ok {
		h.Saw(a.Match, a.Seq)
	}
}

// withAfter puts a request's floor (its Matchrec-After header) on ctx
// for the handler (api.AfterOf). A malformed header is ignored: it can
// only make a read wait less.
func withAfter(ctx context.Context, h nats.Header) context.Context {
	v := h.Get(HeaderAfter)
	if v == "" {
		return ctx
	}
	match, seq, ok := strings.Cut(v, " ")
	n, err := strconv.ParseUint(seq, 10, 64)
	if !ok || err != nil {
		return ctx
	}
	return api.WithAfter(ctx, api.After{Match: match, Seq: n})
}
