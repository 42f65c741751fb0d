package recorder

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// Appender writes the events a command was decided into: the one step
// that differs between a single machine and a cluster (docs/cluster.md),
// behind the same token or signature check, decision and receipt.
//
//   - On one machine (the default, storeAppender) the store is the truth:
//     the events are committed to bbolt with the request index entry, and
//     the outbox relay publishes them afterwards.
//   - In a cluster (natsbus.Cluster) the replicated stream is the truth:
//     the events are published with the match's expected last subject
//     sequence, and written to the store once a quorum has them.
//
// Append writes evs (numbered expected+1, ...) with the index entry key →
// req (nil key: none, a match's creation). It returns store.ErrConflict if
// the match has moved on (nothing written; the store has caught up),
// store.ErrDuplicate if key is indexed already, store.ErrUnavailable if a
// cluster could not confirm the append. Only a nil error means the events
// are durable — on a quorum and in this recorder's store, in a cluster.
type Appender interface {
	Append(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *store.Request) error
}

// storeAppender is the single-machine Appender: the store itself.
type storeAppender struct{ st Store }

var (
	_ Appender    = storeAppender{}
	_ LogAppender = storeAppender{}
)

// LogAppender is an optional ability of an Appender (found by type
// assertion): Append that also says where the append's last event is in
// the transparency log and which checkpoint (signed once for its group
// commit) covers it, so the receipt needs no signature of its own
// (docs/transparency.md). A Logged with no checkpoint: the store keeps no
// log, or signs none.
type LogAppender interface {
	AppendLogged(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *store.Request) (store.Logged, error)
}

// AppendLogged appends through the store's log when it keeps one.
func (a storeAppender) AppendLogged(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *store.Request) (store.Logged, error) {
	if hl, ok := a.st.(store.HeadLog); ok {
		if key == nil || req == nil {
			key, req = nil, nil
		}
		return hl.AppendLogged(ctx, match, expected, evs, key, req)
	}
	return store.Logged{Leaf: -1}, a.Append(ctx, match, expected, evs, key, req)
}

// append writes evs through the Appender, logged when it can be.
func (r *Recorder) append(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *store.Request) (store.Logged, error) {
	if la, ok := r.opts.Appender.(LogAppender); ok {
		return la.AppendLogged(ctx, match, expected, evs, key, req)
	}
	return store.Logged{Leaf: -1}, r.opts.Appender.Append(ctx, match, expected, evs, key, req)
}

func (a storeAppender) Append(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *store.Request) error {
	if key == nil || req == nil {
		return a.st.Append(ctx, match, expected, evs)
	}
	return a.st.AppendRequest(ctx, match, expected, evs, key, *req)
}

// Moved tells the recorder that its store's copy of a match has moved to
// head without it (a cluster's follower wrote another recorder's events):
// its live state of the match, if older, is folded again before the next
// command or read.
func (r *Recorder) Moved(match string, head uint64) {
	r.mu.Lock()
	m := r.live[match]
	r.mu.Unlock()
	if m == nil {
		return
	}
	for {
		old := m.moved.Load()
		if old >= head || m.moved.CompareAndSwap(old, head) {
			return
		}
	}
}

// refresh brings m's live state up to the store (m.mu held): folded
// again when there is none; when a cluster's follower has moved the match
// on without it (another recorder's command), only the new events — one
// command's, usually — are folded onto it, as the recorder folds its own.
// Re-folding the whole match instead, each time two recorders alternate
// on a match, made every recorder added to a cluster slow the others
// down (docs/PERFORMANCE.md, "Cluster").
func (r *Recorder) refresh(ctx context.Context, m *match, id string) error {
	if m.state != nil && m.state.Seq < m.moved.Load() {
		if err := r.foldOn(ctx, m, id); err != nil {
			r.opts.Log.Debug().Err(err).Str("match", id).Msg("folding another recorder's events onto the live state; folding the match again")
			m.state = nil
		}
	}
	if m.state == nil {
		return r.fold(ctx, m, id)
	}
	return nil
}

// foldOn folds the events the store holds after m's live state onto it.
func (r *Recorder) foldOn(ctx context.Context, m *match, id string) error {
	lin, err := fold.LineageOf(ctx, r.st, id)
	if err != nil {
		return err
	}
	f := fold.NewFolder(id, r.RulesFor)
	f.Lineage, f.Reread = lin, fold.FromLog(ctx, r.st, id)
	f.Resume(m.state, m.rules)
	if err := r.st.Scan(ctx, id, m.state.Seq+1, f.Apply); err != nil {
		return err
	}
	m.state, m.rules = f.State, f.Rules
	return nil
}

// Waiter is an optional ability of an Appender (found by type assertion):
// waiting until the store holds a match's event seq. A cluster recorder
// whose follower is a moment behind another recorder uses it, so a client
// that saw event seq anywhere is served at least that far here
// (read-your-writes across recorders).
type Waiter interface {
	WaitHead(ctx context.Context, match string, seq uint64) error
}

// waitFor is how long a command or a read waits for the store to reach
// the head its caller saw elsewhere.
const waitFor = 3 * time.Second

// reach waits (up to waitFor) until the store holds match's event seq. It
// reports whether the store has it; without a Waiter it never waits.
func (r *Recorder) reach(ctx context.Context, match string, seq uint64) bool {
	return r.waitHead(ctx, match, seq) == nil
}

func (r *Recorder) waitHead(ctx context.Context, match string, seq uint64) error {
	w, ok := r.opts.Appender.(Waiter)
	if !ok || seq == 0 {
		return errNoWaiter
	}
	ctx, cancel := context.WithTimeout(ctx, waitFor)
	defer cancel()
	if err := w.WaitHead(ctx, match, seq); err != nil {
		return err
	}
	// The follower tells Moved only after its transaction: a live state
	// folded before it must not answer for the store it now lags.
	r.Moved(match, seq)
	return nil
}

var errNoWaiter = errors.New("recorder: this store is the truth; it waits for nothing")

// ReadYourWrites wraps verbs so that each waits, before it runs, until
// the store holds the event its caller saw written (the request's
// api.After floor): the read after a write sees it whichever recorder of
// a cluster answers. A copy that does not get there within waitFor is
// answered unavailable (ask again), never with a state older than the
// caller's own write. On one machine the store is the truth and holds
// every event its recorder acknowledged: verbs are returned as they are.
func (r *Recorder) ReadYourWrites(verbs api.Verbs) api.Verbs {
	if _, ok := r.opts.Appender.(Waiter); !ok {
		return verbs
	}
	out := make(api.Verbs, len(verbs))
	for verb, f := range verbs {
		out[verb] = func(ctx context.Context, body []byte) (any, error) {
			if a, ok := api.AfterOf(ctx); ok {
				if err := r.WaitFor(ctx, a.Match, a.Seq); err != nil {
					return nil, err
				}
			}
			return f(ctx, body)
		}
	}
	return out
}

// WaitFor waits (at most waitFor) until the store holds event seq of
// match, which the caller saw recorded (a read-your-writes floor: the web
// pages' ?after=, the API's api.After): nil at once on one machine, where
// the store is the truth; store.ErrUnavailable if this recorder's copy
// does not get there in time (ask again).
func (r *Recorder) WaitFor(ctx context.Context, match string, seq uint64) error {
	if _, ok := r.opts.Appender.(Waiter); !ok || seq == 0 {
		return nil
	}
	if err := r.waitHead(ctx, match, seq); err != nil {
		return fmt.Errorf("%w: this recorder's copy of match %s does not hold event %d yet, which you saw recorded: ask again (%v)",
			store.ErrUnavailable, match, seq, err)
	}
	return nil
}

// CatcherUp is an optional ability of an Appender (found by type
// assertion): bringing the store up to the cluster's stream for one
// match. A command refused against this recorder's state may have been
// decided on a copy a moment behind another recorder's appends; before
// the refusal stands, the recorder catches up and, if that moved the
// match, decides once more.
type CatcherUp interface {
	CatchUp(ctx context.Context, match string) (moved bool, err error)
}

// behind reports whether m's live state is behind the cluster's stream:
// it catches the store up with the stream, then compares. Without a
// CatcherUp (one machine) it is never behind. m.mu must be held.
func (r *Recorder) behind(ctx context.Context, m *match, id string) bool {
	c, ok := r.opts.Appender.(CatcherUp)
	if !ok {
		return false
	}
	if _, err := c.CatchUp(ctx, id); err != nil {
		r.opts.Log.Debug().Err(err).Str("match", id).Msg("catching up with the stream")
	}
	h, err := r.st.Head(ctx, id)
	return err == nil && (m.state == nil || h.Seq > m.state.Seq)
}
