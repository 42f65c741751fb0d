package natsbus

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/store"
)

// The follower: every cluster recorder keeps a full local copy of the
// stream. It reads the stream in order from the position its store
// recorded (store.Streamed.Followed: 0 for a new, empty data directory,
// which so fills itself) with an ordered consumer, and applies what it
// reads in batches, one store transaction each, that also record the new
// position — so the position and the events it covers are written
// together, and a recorder killed at any instant resumes exactly where
// its store stands. The consumer is ephemeral and flow-controlled: the
// cluster keeps no state per recorder, and a recorder that is gone for a
// week costs the cluster nothing (docs/cluster.md says why this, and not
// a durable consumer, is the position's home).
//
// Events the recorder wrote itself (its own appends, after the stream's
// acknowledgement) are found stored and skipped; an event that differs
// from the stored one is a divergence: logged as an error, counted, never
// written over.

// followBatch is the most messages applied in one transaction.
const followBatch = 512

// Follow applies the stream to the store until ctx is done. It returns
// nil then; failures (NATS down, the stream leaderless) are retried with
// backoff, resuming from the store's position.
func (c *Cluster) Follow(ctx context.Context) error {
	return c.followLoop(ctx, StreamName, &c.followed)
}

// FollowArchive applies a hub's archive of its venues' streams
// (ArchiveStream, archive.go) to the store, beside Follow, with its own
// position, until ctx is done: the hub's viewers and analysts read every
// venue's matches from the hub recorder's store.
func (c *Cluster) FollowArchive(ctx context.Context) error {
	return c.followLoop(ctx, ArchiveStream, &c.archived)
}

func (c *Cluster) followLoop(ctx context.Context, stream string, at *atomic.Uint64) error {
	backoff := 50 * time.Millisecond
	for {
		err := c.follow(ctx, stream, at)
		if ctx.Err() != nil {
			return nil
		}
		c.log.Warn().Err(err).Str("stream", stream).Dur("backoff", backoff).Msg("follower stopped; resuming from the store's position")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// positionKey is the store's name of stream's position ("": the cluster's).
func positionKey(stream string) string {
	if stream == StreamName {
		return ""
	}
	return stream
}

func (c *Cluster) follow(ctx context.Context, stream string, at *atomic.Uint64) error {
	pos, err := c.st.Followed(ctx, positionKey(stream))
	if err != nil {
		return err
	}
	at.Store(pos)
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	if pos > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, pos+1
	}
	cons, err := c.js.OrderedConsumer(ctx, stream, cfg)
	if err != nil {
		return fmt.Errorf("natsbus: follower consumer on %s: %w", stream, err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(followBatch))
	if err != nil {
		return fmt.Errorf("natsbus: follower: %w", err)
	}
	defer it.Stop()
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()

	archive := stream != StreamName
	batch := make([]store.StreamEvent, 0, followBatch)
	var last uint64
	for {
		m, err := it.Next()
		if err != nil {
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) && ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("natsbus: follower: %w", err)
		}
		md, err := m.Metadata()
		if err != nil {
			return fmt.Errorf("natsbus: follower: %w", err)
		}
		last = md.Sequence.Stream
		e, err := DecodeMsg(m)
		if err == nil && archive {
			if err = c.vouch.check(ctx, m, e); err != nil && !errors.Is(err, ErrNotRecorders) {
				return err // the venue's key is not known yet: read again from the store's position
			}
		}
		if err != nil {
			// Not an event, or (in the archive) not its venue recorder's:
			// nothing to apply, and nothing the stream can take back.
			// Counted as a divergence.
			c.diverged.Add(1)
			c.log.Error().Err(err).Str("stream", stream).Uint64("stream_seq", last).Msg("the stream holds a message that is no event of its recorder's; skipped")
		} else {
			se := store.StreamEvent{Event: e, StreamSeq: last}
			if archive {
				se.StreamSeq = 0 // a venue's event: never appended to here
			}
			key, req, ok, herr := requestHeaders(m.Headers())
			if herr != nil {
				c.log.Error().Err(herr).Uint64("stream_seq", last).Msg("bad request index headers; the event is applied without them")
			} else if ok {
				se.Key, se.Request = key, req
			}
			batch = append(batch, se)
		}
		if md.NumPending > 0 && len(batch) < followBatch {
			continue // more is waiting: apply it together
		}
		if err := c.apply(ctx, stream, batch, last, at); err != nil {
			return err
		}
		batch = batch[:0]
	}
}

// apply writes a batch and tells who needs to know.
func (c *Cluster) apply(ctx context.Context, stream string, batch []store.StreamEvent, pos uint64, at *atomic.Uint64) error {
	moved, rejected, err := c.st.Follow(ctx, positionKey(stream), batch, pos)
	if err != nil {
		return fmt.Errorf("natsbus: follower: %w", err)
	}
	for _, r := range rejected {
		c.diverged.Add(1)
		c.log.Error().Err(r).Str("stream", stream).Msg("the stream and this recorder's store diverge; the stored event is kept")
	}
	c.applied.Add(uint64(len(moved)))
	at.Store(pos)
	if c.opts.Moved != nil {
		for match, head := range moved {
			c.opts.Moved(match, head)
		}
	}
	c.signal()
	return nil
}

func (c *Cluster) signal() {
	c.progressMu.Lock()
	close(c.progress)
	c.progress = make(chan struct{})
	c.progressMu.Unlock()
}

func (c *Cluster) progressCh() <-chan struct{} {
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	return c.progress
}

// CaughtUp waits until the follower has applied the whole stream as it
// stood when CaughtUp was called (tests, the cluster demo, a recorder
// that must not serve reads from a stale copy at start).
func (c *Cluster) CaughtUp(ctx context.Context) error {
	s, err := c.js.Stream(ctx, StreamName)
	if err != nil {
		return fmt.Errorf("natsbus: stream: %w", err)
	}
	want := s.CachedInfo().State.LastSeq
	for {
		ch := c.progressCh()
		if c.followed.Load() >= want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("natsbus: follower at %d of %d: %w", c.followed.Load(), want, ctx.Err())
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		}
	}
}
