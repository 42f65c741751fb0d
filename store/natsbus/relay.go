package natsbus

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/store"
)

// RelayStore is what a relay reads: the outbox it drains, and the log
// itself, from which it backfills a stream that lost events.
type RelayStore interface {
	store.Store
	store.Outbox
}

// RelayOptions configures a Relay. Zero fields take the defaults noted.
type RelayOptions struct {
	// URL of the NATS server, used when Connect is nil.
	URL string
	// Connect opens the relay's connection, given the options the relay
	// needs (see Run) followed by ConnectOptions; e.g. Embedded.Connect.
	// Default: nats.Connect(URL, opts...).
	Connect func(opts ...nats.Option) (*nats.Conn, error)
	// ConnectOptions are appended after the relay's own connection options
	// (so they win: credentials, a shorter reconnect wait in tests; leave
	// ReconnectBufSize alone, see Relay).
	ConnectOptions []nats.Option
	// Reconnect is how the relay's connection waits between attempts.
	Reconnect Reconnect
	// Sign vouches for every published event, so followers outside the
	// recorder can check it is the recorder's: when the store keeps the
	// transparency log, by the checkpoint it signed once per group commit
	// and the event's inclusion proof (vouch.go: no signature per event);
	// otherwise by a signature of the event (Matchrec-Sig). nil publishes
	// unvouched events, which such followers refuse.
	Sign Signer
	// Batch is the most outbox entries read and published per round;
	// default 1000. It also bounds a round's backfill.
	Batch int
	// MinBackoff and MaxBackoff bound the wait after a failed round; it
	// doubles per consecutive failure. Defaults 50ms and 2s.
	MinBackoff, MaxBackoff time.Duration
	// AckTimeout bounds the wait for each JetStream ack (and for stream
	// management calls); default 5s.
	AckTimeout time.Duration
	// Poll is how often the outbox is read without a Notify, a safety net
	// for a missed wake-up, and how often an idle relay checks that the
	// stream is still whole; default 1s.
	Poll time.Duration
	// Published, when set, is told the match of each outbox event the
	// relay is done with — published, found already on the stream, or
	// withheld from a bus copy that differs — before the event leaves the
	// outbox (so when Drained returns, every drained event has been told),
	// each match's events in order, on the relay's goroutine: it must not
	// block. At least once: after a crash an event may be told again. The
	// node feeds the analytics' live consumer with it.
	Published func(match string)
	// Claim, when set, is the claim the relay makes whenever it ensures
	// the stream (claim.go), so a stream it re-creates is claimed again;
	// nil ensures it unclaimed (tests of the relay alone).
	Claim *Claim
	// Logger for outages, recoveries and differences. Zero discards.
	Logger zerolog.Logger
}

func (o *RelayOptions) defaults() {
	if o.Batch <= 0 {
		o.Batch = 1000
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 50 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(2*time.Second, o.MinBackoff)
	}
	if o.AckTimeout <= 0 {
		o.AckTimeout = 5 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
}

// RelayStats are the relay's counters since it was created.
type RelayStats struct {
	// Published counts events JetStream stored.
	Published uint64
	// Duplicates counts outbox events found already on the stream (their
	// earlier ack was lost, or a backfill put them there first).
	Duplicates uint64
	// Backfilled counts events republished from the store into a stream
	// that lacked them (re-created, purged or shortened).
	Backfilled uint64
	// Refused counts publishes JetStream refused because the subject's
	// last message was not the one expected.
	Refused uint64
	// Differs counts matches found with a bus copy that differs from the
	// record; Withheld the events not published on such a copy.
	Differs, Withheld uint64
	// Retries counts failed rounds (NATS down, ack timeout, ...).
	Retries uint64
}

// BusDiff is the relay's finding that a match's bus copy differs from the
// record.
type BusDiff struct {
	Match string `json:"match"`
	// Seq is the event where the copies part.
	Seq uint64 `json:"seq"`
	// Forged: the subject holds what the recorder never wrote; the relay
	// stops publishing the match there (the events stay in the store)
	// until the stream is rebuilt. Otherwise events were lost from the
	// stream and the relay has republished them.
	Forged bool      `json:"forged"`
	Reason string    `json:"reason"`
	Found  time.Time `json:"found"`
}

// Relay drains a store's outbox into the MATCHREC stream.
//
// Each round reads up to Batch pending entries in commit order and
// publishes them asynchronously on one connection, matches pipelined
// across each other but one event per match in flight at a time: every
// event is published with the expected last sequence of its subject
// (Nats-Expected-Last-Subject-Sequence), which is the stream sequence
// JetStream acknowledged for the match's previous event. Predicting the
// stream sequences of a whole batch would keep several events of a match
// in flight, but it holds only while the relay is the stream's only writer
// — exactly what an attack (or a second recorder on a shared server)
// breaks, and then every prediction after the interloper fails. With the
// sequence always taken from an ack, a refusal means one thing: the
// subject holds something this relay did not just put there.
//
// A refusal is resolved by reading the subject's last message: if it is
// this very event (or a later one of the record), the event was stored
// before and its ack lost — a harmless duplicate, however late it comes;
// if it is an earlier event of the record, the missing ones are
// republished from the store first; if it is anything else, the bus copy
// differs from the record: the relay logs the match and sequence, counts
// it, flags the match (Differs, and the buscheck verb) and stops
// publishing it, because the copy can only be repaired by rebuilding the
// stream. Then the event leaves the outbox; the store keeps it.
//
// The relay also re-creates a missing stream and backfills it from the
// store, and notices a stream that lost messages (reconcile.go).
//
// Order: a match's events reach the stream in order because each waits for
// its predecessor's ack. The connection has no reconnect buffer (a publish
// made while disconnected fails at once instead of being flushed after the
// lost in-flight ones), and the client's own no-responders retries are off.
type Relay struct {
	st   RelayStore
	opts RelayOptions
	log  zerolog.Logger

	published, duplicates, backfilled, refused, differs, withheld, retries atomic.Uint64

	// failingSince is when the current run of failed rounds began (Unix
	// nanoseconds; 0: the last round succeeded), lastErr its latest error.
	failingSince atomic.Int64
	lastErr      atomic.Pointer[string]

	// progress is closed and replaced after every round, so Drained can
	// wait for the relay instead of polling blindly.
	mu       sync.Mutex
	progress chan struct{}
	diffs    map[string]BusDiff // guarded by mu

	// Only Run's goroutine touches the rest.
	bus     map[string]busPos // what the stream holds of each match, when known
	stream  jetstream.Stream
	health  streamHealth
	fresh   bool              // the stream held nothing when first seen: filling it is no finding
	pending map[string]uint64 // matches to backfill up to a head (reconcile.go)
	backlog atomic.Int64      // len(pending), for Drained
	checked atomic.Bool       // the stream was checked once: backlog is known
	keys    []uint64
	copies  map[string]CopyNotice // each repaired match's current copy (copy.go)
	repairs chan repairReq        // Repair's requests, served between rounds
}

// NewRelay returns a relay for st; start it with Run.
func NewRelay(st RelayStore, opts RelayOptions) *Relay {
	opts.defaults()
	return &Relay{
		st: st, opts: opts, log: opts.Logger.With().Str("component", "relay").Logger(),
		progress: make(chan struct{}),
		diffs:    map[string]BusDiff{},
		bus:      map[string]busPos{},
		pending:  map[string]uint64{},
		copies:   map[string]CopyNotice{},
		repairs:  make(chan repairReq),
	}
}

// Stats returns the relay's counters.
func (r *Relay) Stats() RelayStats {
	return RelayStats{
		Published:  r.published.Load(),
		Duplicates: r.duplicates.Load(),
		Backfilled: r.backfilled.Load(),
		Refused:    r.refused.Load(),
		Differs:    r.differs.Load(),
		Withheld:   r.withheld.Load(),
		Retries:    r.retries.Load(),
	}
}

// Lag says, while the relay's rounds fail, that recorded events are not
// reaching the bus, since when and why ("" when they are). The record
// has them and the relay publishes them once it can; followers of the
// bus see them only then.
func (r *Relay) Lag() string {
	since := r.failingSince.Load()
	if since == 0 {
		return ""
	}
	why := "unknown"
	if e := r.lastErr.Load(); e != nil {
		why = *e
	}
	return fmt.Sprintf("recorded, but the bus is behind: the relay has failed to publish since %s (%s); the events wait in the outbox",
		time.Unix(0, since).UTC().Format(time.RFC3339), why)
}

// Differs returns the relay's finding for match, if it found its bus copy
// different from the record since it started.
func (r *Relay) Differs(match string) (BusDiff, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.diffs[match]
	return d, ok
}

// AllDiffers lists every flagged match, by id.
func (r *Relay) AllDiffers() []BusDiff {
	r.mu.Lock()
	out := make([]BusDiff, 0, len(r.diffs))
	for _, d := range r.diffs {
		out = append(out, d)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Match < out[j].Match })
	return out
}

// flag records that match's bus copy differs, loudly the first time.
func (r *Relay) flag(d BusDiff) {
	d.Found = time.Now().UTC()
	r.mu.Lock()
	old, seen := r.diffs[d.Match]
	if !seen || (d.Forged && !old.Forged) {
		r.diffs[d.Match] = d
	}
	r.mu.Unlock()
	if seen && (old.Forged || !d.Forged) {
		return
	}
	r.differs.Add(1)
	r.log.Error().Str("match", d.Match).Uint64("seq", d.Seq).Bool("forged", d.Forged).Str("reason", d.Reason).
		Msg("the bus copy of a match differs from the record")
}

// forged reports whether match is flagged as holding a forgery.
func (r *Relay) forged(match string) bool {
	d, ok := r.Differs(match)
	return ok && d.Forged
}

// clearFlags forgets every finding: the stream was re-created empty, so
// whatever was on it is gone.
func (r *Relay) clearFlags() {
	r.mu.Lock()
	clear(r.diffs)
	r.mu.Unlock()
}

var errNotConnected = errors.New("not connected to NATS")

// Run relays until ctx is done, then closes its connection and returns nil.
// It returns an error only if the connection cannot be set up at all (bad
// options); NATS being unreachable is not an error: the connection retries
// forever (RetryOnFailedConnect, MaxReconnects(-1)) and the outbox keeps
// the events meanwhile. Run one Run per Relay at a time: a second would
// publish the same entries concurrently.
func (r *Relay) Run(ctx context.Context) error {
	connect := r.opts.Connect
	if connect == nil {
		connect = func(opts ...nats.Option) (*nats.Conn, error) { return nats.Connect(r.opts.URL, opts...) }
	}
	nopts := append(ConnectOptions("matchrec-relay", r.opts.Logger, r.opts.Reconnect),
		nats.RetryOnFailedConnect(true),
		// No reconnect buffer: see the ordering note on Relay.
		nats.ReconnectBufSize(-1),
	)
	nc, err := connect(append(nopts, r.opts.ConnectOptions...)...)
	if err != nil {
		return fmt.Errorf("natsbus: relay connect: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc,
		// One round never has more than Batch acks outstanding, so the
		// client never stalls a publish waiting for room.
		jetstream.WithPublishAsyncMaxPending(r.opts.Batch),
		// Every future resolves: by ack, error, disconnect, or this timeout.
		jetstream.WithPublishAsyncTimeout(r.opts.AckTimeout),
	)
	if err != nil {
		return fmt.Errorf("natsbus: relay jetstream: %w", err)
	}
	connected := nc.StatusChanged(nats.CONNECTED)
	poll := time.NewTicker(r.opts.Poll)
	defer poll.Stop()

	var (
		backoff = r.opts.MinBackoff
		failing bool
		check   = true // check the stream before the first round
	)
	serveRepair := func(req repairReq) {
		res, err := r.repair(ctx, js, req.match)
		req.done <- repairDone{res, err}
		r.signalProgress()
	}
	for {
		select { // a repair asked while the relay is busy goes first
		case req := <-r.repairs:
			serveRepair(req)
		default:
		}
		n, err := r.round(ctx, nc, js, check)
		check = false
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			r.retries.Add(1)
			msg := err.Error()
			r.lastErr.Store(&msg)
			r.failingSince.CompareAndSwap(0, time.Now().UnixNano())
			r.stream = nil // check it again before the next round
			// Log the start of an outage loudly and its repeats quietly:
			// during a long outage this runs every MaxBackoff.
			ev := r.log.Debug()
			if !failing {
				ev = r.log.Warn()
			}
			ev.Err(err).Dur("backoff", backoff).Msg("relay round failed; will retry from the first unpublished event")
			failing = true
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			case <-connected:
				// Reconnected: retry now rather than sleeping out the backoff.
				t.Stop()
			case req := <-r.repairs:
				t.Stop()
				serveRepair(req) // fails at once with the bus down, saying why
			}
			backoff = min(2*backoff, r.opts.MaxBackoff)
			continue
		}
		if failing {
			r.log.Info().Uint64("retries", r.retries.Load()).Msg("relay recovered")
			failing = false
		}
		backoff = r.opts.MinBackoff
		if n >= r.opts.Batch || len(r.pending) > 0 {
			continue // more is waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.st.Notify():
		case <-poll.C:
			check = true // idle: is the stream still whole?
		case <-connected:
			check = true
		case req := <-r.repairs:
			serveRepair(req)
		}
	}
}

// round checks the stream when asked (or when it is not known to exist),
// then publishes one batch and acks in the outbox what it is done with. It
// returns the number of outbox entries read.
func (r *Relay) round(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, check bool) (int, error) {
	defer r.signalProgress()
	if nc.Status() != nats.CONNECTED {
		return 0, errNotConnected
	}
	if r.stream == nil || check {
		if err := r.checkStream(ctx, js); err != nil {
			return 0, err
		}
	}
	b := r.newBatch(js)
	err := r.st.Pending(ctx, r.opts.Batch, func(e store.OutboxEntry) error {
		b.add(e)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("natsbus: read outbox: %w", err)
	}
	if err := r.addBackfills(ctx, b); err != nil {
		return 0, err
	}
	if !b.empty() && r.opts.Sign != nil {
		// Taken after the outbox was read: it covers every entry read.
		b.vouch = newVoucher(ctx, r.st)
	}
	if b.empty() {
		r.failingSince.Store(0)
		return 0, nil
	}
	pubErr := b.run(ctx)
	if pubErr == nil {
		// Before the outbox ack, which is what Drained watches.
		r.failingSince.Store(0)
	}

	// Whatever happened, what is done leaves the outbox.
	if len(b.done) > 0 {
		r.keys = r.keys[:0]
		for _, e := range b.done {
			if r.opts.Published != nil {
				r.opts.Published(e.Event.Match)
			}
			r.keys = append(r.keys, e.Key)
		}
		if err := r.st.Ack(ctx, r.keys); err != nil {
			// The events stay pending and are found on the stream next
			// round: late, never lost, never doubled.
			return 0, fmt.Errorf("natsbus: ack %d outbox entries: %w", len(r.keys), err)
		}
	}
	return b.read, pubErr
}

func (r *Relay) signalProgress() {
	r.mu.Lock()
	close(r.progress)
	r.progress = make(chan struct{})
	r.mu.Unlock()
}

func (r *Relay) progressCh() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress
}

// Drained waits until the relay has checked the stream, the outbox has no
// pending entries and no backfill is under way (at some instant: appends
// may follow at once) or ctx is done.
// Tests and benchmarks use it to know everything appended so far has
// reached the stream.
func (r *Relay) Drained(ctx context.Context) error {
	// A fallback poll covers a relay that is not running yet.
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		ch := r.progressCh() // before checking, so no round is missed
		empty := r.checked.Load() && r.backlog.Load() == 0
		err := r.st.Pending(ctx, 1, func(store.OutboxEntry) error {
			empty = false
			return nil
		})
		if err != nil {
			return fmt.Errorf("natsbus: read outbox: %w", err)
		}
		if empty {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-t.C:
		}
	}
}
