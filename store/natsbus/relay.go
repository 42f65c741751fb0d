package natsbus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/store"
)

// RelayOptions configures a Relay. Zero fields take the defaults noted.
type RelayOptions struct {
	// URL of the NATS server, used when Connect is nil.
	URL string
	// Connect opens the relay's connection, given the options the relay
	// needs (see Run) followed by ConnectOptions; e.g. Embedded.Connect.
	// Default: nats.Connect(URL, opts...).
	Connect func(opts ...nats.Option) (*nats.Conn, error)
	// ConnectOptions are appended after the relay's own connection options
	// (so they win; leave ReconnectBufSize alone, see Run).
	ConnectOptions []nats.Option
	// Batch is the most outbox entries read and published per round;
	// default 1000.
	Batch int
	// MinBackoff and MaxBackoff bound the wait after a failed round; it
	// doubles per consecutive failure. Defaults 50ms and 2s.
	MinBackoff, MaxBackoff time.Duration
	// AckTimeout bounds the wait for each JetStream ack (and for stream
	// management calls); default 5s.
	AckTimeout time.Duration
	// Poll is how often the outbox is read without a Notify, a safety net
	// for a missed wake-up; default 1s.
	Poll time.Duration
	// Published, when set, is told the match of each event once the stream
	// has it, in commit order, before the event leaves the outbox (so when
	// Drained returns, every drained event has been told), on the relay's
	// goroutine: it must not block. At least once: an event republished
	// after a failed outbox ack is told again. The node feeds the
	// analytics' live consumer with it.
	Published func(match string)
	// Logger for outages and recoveries. The zero value discards.
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
	// Published counts events JetStream stored (first publish of each).
	Published uint64
	// Duplicates counts republished events JetStream dropped as already
	// stored (their earlier ack was lost).
	Duplicates uint64
	// Retries counts failed rounds (NATS down, ack timeout, ...).
	Retries uint64
}

// Relay drains a store's outbox into the MATCHREC stream.
//
// Each round reads up to Batch pending entries in commit order, publishes
// them asynchronously on one connection, waits for every ack, and then Acks
// in the outbox exactly the prefix of entries JetStream acknowledged. After
// a failure it backs off and starts again from the first unacknowledged
// entry; republishing entries that were in fact stored is harmless, because
// each carries its Nats-Msg-Id and JetStream drops the repeat.
//
// Order: the server stores messages of one connection in the order it
// receives them, and a round stops publishing at the first local error, so
// what reaches the stream is always the outbox order. Two details keep it
// so: the connection has no reconnect buffer (a publish made while
// disconnected fails instead of being flushed after the lost in-flight
// ones), and the client's own no-responders retries are off (they would
// resend messages individually, out of order).
type Relay struct {
	ob   store.Outbox
	opts RelayOptions
	log  zerolog.Logger

	published, duplicates, retries atomic.Uint64

	// progress is closed and replaced after every round, so Drained can
	// wait for the relay instead of polling blindly.
	mu       sync.Mutex
	progress chan struct{}

	// Reused across rounds; only Run's goroutine touches them.
	entries []store.OutboxEntry
	futs    []jetstream.PubAckFuture
	keys    []uint64
}

// NewRelay returns a relay for ob; start it with Run.
func NewRelay(ob store.Outbox, opts RelayOptions) *Relay {
	opts.defaults()
	return &Relay{
		ob: ob, opts: opts, log: opts.Logger.With().Str("component", "relay").Logger(),
		progress: make(chan struct{}),
	}
}

// Stats returns the relay's counters.
func (r *Relay) Stats() RelayStats {
	return RelayStats{
		Published:  r.published.Load(),
		Duplicates: r.duplicates.Load(),
		Retries:    r.retries.Load(),
	}
}

var errNotConnected = errors.New("not connected to NATS")

// Run relays until ctx is done, then closes its connection and returns nil.
// It returns an error only if the connection cannot be set up at all (bad
// options); NATS being unreachable is not an error: the connection retries
// forever (RetryOnFailedConnect, MaxReconnects(-1)) and the outbox keeps
// the events meanwhile. Run one Run per Relay at a time: a second would
// publish the same entries concurrently and break their order.
func (r *Relay) Run(ctx context.Context) error {
	connect := r.opts.Connect
	if connect == nil {
		connect = func(opts ...nats.Option) (*nats.Conn, error) { return nats.Connect(r.opts.URL, opts...) }
	}
	nopts := append([]nats.Option{
		nats.Name("matchrec-relay"),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		// No reconnect buffer: see the ordering note on Relay.
		nats.ReconnectBufSize(-1),
	}, r.opts.ConnectOptions...)
	nc, err := connect(nopts...)
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
		streamOK bool
		backoff  = r.opts.MinBackoff
		failing  bool
	)
	for {
		n, err := r.round(ctx, nc, js, &streamOK)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			r.retries.Add(1)
			// Log the start of an outage loudly and its repeats quietly:
			// during a long outage this runs every MaxBackoff.
			ev := r.log.Debug()
			if !failing {
				ev = r.log.Warn()
			}
			ev.Err(err).Dur("backoff", backoff).Msg("relay round failed; will retry from the first unacknowledged event")
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
			}
			backoff = min(2*backoff, r.opts.MaxBackoff)
			continue
		}
		if failing {
			r.log.Info().Uint64("retries", r.retries.Load()).Msg("relay recovered")
			failing = false
		}
		backoff = r.opts.MinBackoff
		if n == r.opts.Batch {
			continue // more is waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.ob.Notify():
		case <-poll.C:
		case <-connected:
		}
	}
}

// round publishes one batch and acks what JetStream stored. It returns the
// number of entries read.
func (r *Relay) round(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, streamOK *bool) (int, error) {
	defer r.signalProgress()
	if nc.Status() != nats.CONNECTED {
		return 0, errNotConnected
	}
	if !*streamOK {
		// Also after failures: the server may have come back with a fresh
		// store dir and no stream, where every publish would find no
		// responders.
		sctx, cancel := context.WithTimeout(ctx, r.opts.AckTimeout)
		_, err := EnsureStream(sctx, js)
		cancel()
		if err != nil {
			return 0, err
		}
		*streamOK = true
	}

	r.entries = r.entries[:0]
	err := r.ob.Pending(ctx, r.opts.Batch, func(e store.OutboxEntry) error {
		r.entries = append(r.entries, e)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("natsbus: read outbox: %w", err)
	}
	if len(r.entries) == 0 {
		return 0, nil
	}

	// Publish in commit order; stop at the first local failure so nothing
	// after an unsent entry can reach the stream ahead of it.
	r.futs = r.futs[:0]
	var pubErr error
	for _, e := range r.entries {
		msg, err := NewMsg(e.Event)
		if err != nil {
			// Cannot ever be published (the store accepted an id the bus
			// cannot carry). Stalling is deliberate: skipping would drop
			// the event from the feed for good.
			pubErr = fmt.Errorf("natsbus: outbox entry %d is unpublishable: %w", e.Key, err)
			r.log.Error().Err(pubErr).Msg("relay stalled on an unpublishable event")
			break
		}
		f, err := js.PublishMsgAsync(msg, jetstream.WithRetryAttempts(0))
		if err != nil {
			pubErr = fmt.Errorf("natsbus: publish %s: %w", msg.Subject, err)
			break
		}
		r.futs = append(r.futs, f)
	}

	// Wait for every outstanding ack, even past a failure: retrying while
	// earlier publishes are still in flight could store an event after
	// its successor.
	acked := 0
	var (
		ackErr    error
		notStored bool
	)
	for i, f := range r.futs {
		select {
		case pa := <-f.Ok():
			if ackErr == nil {
				acked = i + 1
			}
			if pa.Duplicate {
				r.duplicates.Add(1)
			} else {
				r.published.Add(1)
				if notStored {
					// Stored behind a predecessor that surely was not: the
					// ordering argument above says this cannot happen, so
					// shout if it does (Subscribe reports the gap).
					r.log.Error().Str("subject", f.Msg().Subject).Err(ackErr).
						Msg("event stored although an earlier one failed; stream order may differ from commit order")
				}
			}
		case err := <-f.Err():
			if ackErr == nil {
				ackErr = fmt.Errorf("natsbus: ack for %s: %w", f.Msg().Subject, err)
			}
			// Timeouts and disconnects leave it open whether the server
			// stored the message; a refusal does not.
			var apiErr *jetstream.APIError
			if errors.Is(err, jetstream.ErrNoStreamResponse) || errors.As(err, &apiErr) {
				notStored = true
			}
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	// A failed ack (timeout, lost connection) may still mean the message
	// was stored; it is republished next round and deduplicated. No
	// responders means the stream itself is missing: re-create it first.
	if ackErr != nil && (errors.Is(ackErr, jetstream.ErrNoStreamResponse) || errors.Is(ackErr, jetstream.ErrStreamNotFound)) {
		*streamOK = false
	}

	if acked > 0 {
		if r.opts.Published != nil {
			for _, e := range r.entries[:acked] {
				r.opts.Published(e.Event.Match)
			}
		}
		r.keys = r.keys[:0]
		for _, e := range r.entries[:acked] {
			r.keys = append(r.keys, e.Key)
		}
		if err := r.ob.Ack(ctx, r.keys); err != nil {
			// The events stay pending and are republished, then dropped as
			// duplicates: late, never lost.
			return 0, fmt.Errorf("natsbus: ack %d outbox entries: %w", len(r.keys), err)
		}
	}
	if pubErr != nil {
		return 0, pubErr
	}
	if ackErr != nil {
		return 0, ackErr
	}
	return len(r.entries), nil
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

// Drained waits until the outbox has no pending entries (at some instant:
// appends may follow at once) or ctx is done. Tests and benchmarks use it
// to know everything appended so far has reached the stream.
func (r *Relay) Drained(ctx context.Context) error {
	// A fallback poll covers a relay that is not running yet.
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		ch := r.progressCh() // before checking, so no round is missed
		empty := true
		err := r.ob.Pending(ctx, 1, func(store.OutboxEntry) error {
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
