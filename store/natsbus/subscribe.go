package natsbus

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
)

// Errors Subscribe returns (wrapped) when the feed cannot be trusted. A
// caller should fall back to reading the store rather than show a wrong
// state.
var (
	// ErrGap: the next event on the stream skips one or more sequence
	// numbers (the stream was purged or trimmed, or events reached it out
	// of order).
	ErrGap = errors.New("gap in the event feed")
	// ErrBrokenChain: an event does not link to the hash of the one before.
	ErrBrokenChain = errors.New("event feed breaks the hash chain")
)

// Subscribe delivers the events of match with Seq >= fromSeq (0 or 1 =
// all) to fn, each exactly once and in sequence order, then keeps following
// new ones until ctx is done (returning nil) or fn returns an error
// (returned as is). Live views and `replay --follow` use it.
//
// It reads through an ordered consumer: ephemeral, created by the client
// and re-created after a reconnect at the last stream position it saw, so
// nothing needs cleaning up. Duplicates that outlived JetStream's dedup
// window are dropped by Seq; a gap or a broken hash link stops it with
// ErrGap or ErrBrokenChain instead of delivering a wrong history.
//
// The stream must exist (the relay creates it on start).
func Subscribe(ctx context.Context, js jetstream.JetStream, match string, fromSeq uint64, fn func(events.Event) error) error {
	subj, err := Subject(match)
	if err != nil {
		return fmt.Errorf("natsbus: subscribe: %w", err)
	}
	cons, err := js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subj},
		// From the start of the match: the stream sequence of event
		// fromSeq is unknown, and skipping a match's earlier events is
		// cheap next to delivering a wrong one.
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("natsbus: subscribe to %s: %w", subj, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return fmt.Errorf("natsbus: subscribe to %s: %w", subj, err)
	}
	defer it.Stop()

	next := max(fromSeq, 1)
	var (
		prev     events.Hash
		havePrev bool
	)
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("natsbus: follow %s: %w", subj, err)
		}
		e, err := DecodeMsg(m)
		if err != nil {
			return err
		}
		switch {
		case e.Seq < next:
			continue // before fromSeq, or a duplicate of a delivered event
		case e.Seq > next:
			return fmt.Errorf("natsbus: match %s: %w: expected event %d, got %d", match, ErrGap, next, e.Seq)
		case havePrev && e.PrevHash != prev:
			return fmt.Errorf("natsbus: match %s event %d: %w", match, e.Seq, ErrBrokenChain)
		}
		if err := fn(e); err != nil {
			return err
		}
		next, prev, havePrev = e.Seq+1, e.Hash, true
	}
}
