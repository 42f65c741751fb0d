package natsbus

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// busPos is what the stream holds of a match: its last event there and
// that message's stream sequence (all zero: nothing).
type busPos struct {
	seq    uint64
	hash   events.Hash
	stream uint64
}

// item is one event to publish: an outbox entry (key > 0) or an event
// republished from the store into a stream that lacks it (key 0).
type item struct {
	ev   events.Event
	key  uint64
	leaf int64 // its log entry, -1: unknown (vouch.go)
}

// matchQueue is one match's share of a round, published one at a time.
type matchQueue struct {
	match   string
	items   []item
	next    int
	pos     busPos
	known   bool // pos is what the stream holds (cached or read)
	retried bool // one retry is allowed after a stale position
	// was is pos before a refusal made the relay read the subject again
	// (had: there was one), to tell a replayed copy from a lost tail.
	was busPos
	had bool
}

// flight is a publish waiting for its ack.
type flight struct {
	q   *matchQueue
	fut jetstream.PubAckFuture
}

// batch is one round's work: outbox entries grouped by match, in commit
// order within each, plus backfills.
type batch struct {
	r      *Relay
	js     jetstream.JetStream
	vouch  *voucher // the round's checkpoint (nil: sign each event)
	queues map[string]*matchQueue
	order  []*matchQueue
	read   int                 // outbox entries read
	done   []store.OutboxEntry // entries the relay is done with
	fail   error               // the first failure: nothing more is launched
	flying []flight
}

func (r *Relay) newBatch(js jetstream.JetStream) *batch {
	return &batch{r: r, js: js, queues: map[string]*matchQueue{}}
}

func (b *batch) queue(match string) *matchQueue {
	q := b.queues[match]
	if q == nil {
		q = &matchQueue{match: match}
		q.pos, q.known = b.r.bus[match]
		b.queues[match] = q
		b.order = append(b.order, q)
	}
	return q
}

func (b *batch) add(e store.OutboxEntry) {
	b.read++
	q := b.queue(e.Event.Match)
	q.items = append(q.items, item{ev: e.Event, key: e.Key, leaf: e.Leaf})
}

func (b *batch) empty() bool { return len(b.order) == 0 }

// run publishes every queue's items, each match's one after the other,
// the matches side by side. It returns the round's first failure; what
// was done before and beside it stays done.
func (b *batch) run(ctx context.Context) error {
	for _, q := range b.order {
		b.launch(ctx, q)
	}
	for len(b.flying) > 0 {
		f := b.flying[0]
		b.flying = b.flying[1:]
		select {
		case pa := <-f.fut.Ok():
			b.stored(ctx, f.q, pa)
		case err := <-f.fut.Err():
			b.failed(ctx, f.q, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, q := range b.order {
		if q.known {
			b.r.bus[q.match] = q.pos
		} else {
			delete(b.r.bus, q.match)
		}
		if target, ok := b.r.pending[q.match]; ok && q.known && q.pos.seq >= target {
			delete(b.r.pending, q.match)
		}
	}
	b.r.backlog.Store(int64(len(b.r.pending)))
	return b.fail
}

// finish marks q's current item done without publishing it.
func (b *batch) finish(q *matchQueue, counter interface{ Add(uint64) uint64 }) {
	it := q.items[q.next]
	if it.key != 0 {
		b.done = append(b.done, store.OutboxEntry{Key: it.key, Event: it.ev})
		if counter != nil {
			counter.Add(1)
		}
	}
	q.next++
	q.retried = false
}

// launch publishes q's next item that the stream lacks, if any and if the
// round has not failed: items already there are done, a gap before the
// item is filled from the store first, a match whose copy is forged gets
// nothing more.
func (b *batch) launch(ctx context.Context, q *matchQueue) {
	r := b.r
	for b.fail == nil && q.next < len(q.items) {
		if err := b.know(ctx, q); err != nil {
			b.fail = err
			return
		}
		it := q.items[q.next]
		switch {
		case r.forged(q.match):
			b.finish(q, &r.withheld)
			continue
		case it.ev.Seq <= q.pos.seq:
			b.finish(q, &r.duplicates)
			continue
		case it.ev.Seq > q.pos.seq+1:
			if err := b.fillGap(ctx, q, it.ev.Seq); err != nil {
				b.fail = err
				return
			}
			continue
		}
		var msg *nats.Msg
		var err error
		if b.vouch != nil {
			if msg, err = NewMsg(it.ev, nil); err == nil && !b.vouch.vouch(ctx, msg, it.ev, it.leaf) {
				msg, err = NewMsg(it.ev, r.opts.Sign)
			}
		} else {
			msg, err = NewMsg(it.ev, r.opts.Sign)
		}
		if err != nil {
			// Cannot ever be published (the store accepted an id the bus
			// cannot carry). Stalling is deliberate: skipping would drop
			// the event from the feed for good.
			b.fail = fmt.Errorf("natsbus: event %s/%d is unpublishable: %w", it.ev.Match, it.ev.Seq, err)
			r.log.Error().Err(b.fail).Msg("relay stalled on an unpublishable event")
			return
		}
		msg.Header[jetstream.ExpectedLastSubjSeqHeader] = []string{strconv.FormatUint(q.pos.stream, 10)}
		if r.opts.Claim != nil && r.opts.Claim.Venue != "" {
			setArchiveID(msg, it.ev)
		}
		fut, err := b.js.PublishMsgAsync(msg, jetstream.WithRetryAttempts(0))
		if err != nil {
			b.fail = fmt.Errorf("natsbus: publish %s: %w", msg.Subject, err)
			q.known = false // it may or may not have left
			return
		}
		b.flying = append(b.flying, flight{q: q, fut: fut})
		return // one in flight per match
	}
}

// know reads what the stream holds of q's match, unless known.
func (b *batch) know(ctx context.Context, q *matchQueue) error {
	if q.known {
		return nil
	}
	r := b.r
	pos, diff, err := r.lookup(ctx, b.js, q.match)
	if err != nil {
		return err
	}
	if diff == nil && q.had && pos.stream != q.was.stream && pos.seq <= q.was.seq {
		// The subject's last message is a recorded event the stream
		// already held: someone published a copy again. Followers skip it
		// by sequence; the match goes on after it.
		diff = &BusDiff{Match: q.match, Seq: pos.seq, Reason: fmt.Sprintf(
			"event %d was published again after event %d (a replayed copy at stream sequence %d)", pos.seq, q.was.seq, pos.stream)}
		pos = busPos{seq: q.was.seq, hash: q.was.hash, stream: pos.stream}
	}
	if diff != nil {
		r.flag(*diff)
	}
	q.pos, q.known, q.had = pos, true, false
	return nil
}

// stored: JetStream stored q's current item.
func (b *batch) stored(ctx context.Context, q *matchQueue, pa *jetstream.PubAck) {
	it := q.items[q.next]
	q.pos = busPos{seq: it.ev.Seq, hash: it.ev.Hash, stream: pa.Sequence}
	b.r.health.msgs++
	if it.key == 0 {
		b.r.backfilled.Add(1)
	}
	b.finish(q, &b.r.published)
	b.launch(ctx, q)
}

// failed: JetStream did not store q's current item, or it is not known
// whether it did.
func (b *batch) failed(ctx context.Context, q *matchQueue, err error) {
	r := b.r
	var apiErr *jetstream.APIError
	switch {
	case errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant):
		// The subject holds something else than the predecessor we know
		// of: find out what (lookup), then launch resumes from there —
		// done if the event is there already, a gap filled, a forgery
		// withheld.
		r.refused.Add(1)
		if q.known {
			q.was, q.had = q.pos, true
		}
		if q.retried {
			// Refused twice at a position just read: someone else is
			// writing this subject right now.
			if b.fail == nil {
				b.fail = fmt.Errorf("natsbus: match %s event %d refused twice: %w", q.match, q.items[q.next].ev.Seq, err)
			}
			q.known = false
			return
		}
		q.known, q.retried = false, true
		b.launch(ctx, q)
		return
	case errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, jetstream.ErrStreamNotFound) ||
		(errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamNotFound):
		// The stream is gone: check (and re-create) it next round.
		r.stream = nil
	}
	// A timeout or a lost connection leaves it open whether the message
	// was stored; the next round reads the subject again.
	q.known = false
	if b.fail == nil {
		b.fail = fmt.Errorf("natsbus: ack for %s/%d: %w", q.match, q.items[q.next].ev.Seq, err)
	}
}

// fillGap puts the events between what the stream holds of q and seq
// before q's current item, read from the store (at most Batch of them; the
// rest of the queue then waits for the next round).
func (b *batch) fillGap(ctx context.Context, q *matchQueue, seq uint64) error {
	r := b.r
	start, err := r.ownStart(ctx, q.match)
	if err != nil {
		return err
	}
	from := max(q.pos.seq+1, start)
	if q.pos.seq > 0 {
		// A faithful copy that ends at event pos.seq holds exactly the
		// events from the first to it; more messages than that means
		// copies or forgeries sit before its end, and republishing after
		// it would only add to the muddle.
		on, err := r.subjectCount(ctx, q.match)
		if err != nil {
			return err
		}
		if want := q.pos.seq - start + 1; r.onCopy(q.match, on) != want {
			r.flag(BusDiff{Match: q.match, Seq: q.pos.seq, Forged: true, Reason: fmt.Sprintf(
				"the bus holds %d messages but its last is event %d: it is not a copy of the record", on, q.pos.seq)})
			return nil // launch withholds the rest
		}
	}
	fill, err := r.readRecord(ctx, q.match, from, seq-1, r.opts.Batch)
	if err != nil {
		return err
	}
	if len(fill) == 0 {
		// The record starts here (a branch's first own event): nothing
		// was lost, the stream simply has none of the match yet.
		q.pos = busPos{seq: seq - 1}
		return nil
	}
	if !r.fresh {
		r.flag(BusDiff{Match: q.match, Seq: from, Reason: fmt.Sprintf(
			"events %d-%d of the record are missing from the bus (purged or lost); republished from the record", from, seq-1)})
	}
	items := make([]item, 0, len(fill)+len(q.items)-q.next)
	for _, e := range fill {
		items = append(items, item{ev: e, leaf: -1})
	}
	if last := fill[len(fill)-1].Seq; last == seq-1 {
		items = append(items, q.items[q.next:]...)
	}
	// else: more to fill than one round takes; the outbox entries wait.
	q.items, q.next = items, 0
	return nil
}
