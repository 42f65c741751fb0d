package natsbus

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/store"
)

// Errors Subscribe returns (wrapped) when the feed cannot be trusted. Each
// of them is also ErrBusDiffers, the one a view tests for: it should say
// that the feed is paused because the bus copy differs from the record,
// and read the store rather than show a wrong state.
var (
	// ErrBusDiffers: the bus copy of the match differs from the record.
	ErrBusDiffers = errors.New("the bus copy differs from the record")
	// ErrGap: the next event on the stream skips one or more sequence
	// numbers (the stream was purged or trimmed, or events reached it out
	// of order).
	ErrGap = errors.New("gap in the event feed")
	// ErrBrokenChain: an event does not link to the hash of the one before.
	ErrBrokenChain = errors.New("event feed breaks the hash chain")
	// ErrNotRecorders: an event is not the recorder's (it differs from
	// the record, or its signature does not verify).
	ErrNotRecorders = errors.New("event is not the recorder's")
)

// BusDiffersError is the error Subscribe stops with when it meets a
// message it will not deliver: which match, at which sequence, and why
// (ErrGap, ErrBrokenChain or ErrNotRecorders, with detail). It is
// ErrBusDiffers.
type BusDiffersError struct {
	Match string
	Seq   uint64
	Err   error
}

func (e *BusDiffersError) Error() string {
	return fmt.Sprintf("natsbus: match %s event %d: %v: %v", e.Match, e.Seq, ErrBusDiffers, e.Err)
}

// Unwrap makes errors.Is find both ErrBusDiffers and the cause.
func (e *BusDiffersError) Unwrap() []error { return []error{ErrBusDiffers, e.Err} }

// Check decides whether an event read from the bus is the recorder's. It
// is asked only once the event decodes, its hash matches its content, and
// it continues the chain delivered so far.
type Check interface {
	Check(ctx context.Context, m jetstream.Msg, e events.Event) error
}

// RecordCheck is the check of a follower inside the recorder's process
// (the web pages): the event must be the store's record of its sequence.
// Key, the recorder's public key, lets the follower read a repaired
// match's copy from its copy notice (copy.go); without it the subject is
// read from its first message.
type RecordCheck struct {
	Store store.Store
	Key   ed25519.PublicKey
}

// Check compares e with the stored event of its sequence.
func (c RecordCheck) Check(ctx context.Context, _ jetstream.Msg, e events.Event) error {
	// The newest event is the usual case: one head lookup settles it.
	if h, err := c.Store.Head(ctx, e.Match); err == nil && h.Seq == e.Seq {
		if h.Hash != e.Hash {
			return fmt.Errorf("%w: the record's event %d has hash %s", ErrNotRecorders, e.Seq, h.Hash)
		}
		return nil
	}
	rec, err := RecordedEvent(ctx, c.Store, e.Match, e.Seq)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: the record has no event %d", ErrNotRecorders, e.Seq)
	}
	if err != nil {
		return err
	}
	if rec.Hash != e.Hash || rec.Match != e.Match {
		return fmt.Errorf("%w: the record's event %d has hash %s", ErrNotRecorders, e.Seq, rec.Hash)
	}
	return nil
}

// SignatureCheck is the check of a follower outside the recorder's
// process (`replay --follow`): the message must be vouched for by the
// recorder's key Key, which the follower got from the recorder over the
// authenticated API (ping's recorder key, `matchrec identity`) — by the
// checkpoint of its transparency log and the event's inclusion proof
// (Matchrec-Checkpoint, Matchrec-Log-Proof: one signature per batch,
// vouch.go), or, on a stream of an older recorder, by a signature of the
// event (Matchrec-Sig). Use one SignatureCheck per feed (a pointer): it
// caches the checkpoints it verified.
type SignatureCheck struct {
	Key ed25519.PublicKey
	cps checkpoints
}

// Check verifies the log proof, or the Matchrec-Sig header.
func (c *SignatureCheck) Check(_ context.Context, m jetstream.Msg, e events.Event) error {
	hs := m.Headers()
	if hs.Get(HeaderLogProof) != "" {
		return c.cps.checkVouched(hs, e, c.Key)
	}
	h := hs.Get(HeaderSig)
	if h == "" {
		return fmt.Errorf("%w: %v: no %s or %s header", ErrNotRecorders, errUnvouched, HeaderLogProof, HeaderSig)
	}
	sig, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		return fmt.Errorf("%w: %s is not base64", ErrNotRecorders, HeaderSig)
	}
	if !auth.Verify(c.Key, SigDomain, BusSignature(e.Match, e.Seq, e.Hash), sig) {
		return fmt.Errorf("%w: %s does not verify with the recorder's key %x", ErrNotRecorders, HeaderSig, []byte(c.Key))
	}
	return nil
}

// Subscribe delivers the events of match after the verified head `after`
// (Seq 0: from the start) to fn, each exactly once and in sequence order,
// then keeps following new ones until ctx is done (returning nil) or fn
// returns an error (returned as is). Live views and `replay --follow` use
// it.
//
// An event is delivered only if it is the recorder's: it decodes, its hash
// matches its content, it links to the hash of the event before it
// (after.Hash for the first), and check accepts it. Anything else stops
// the feed with a *BusDiffersError (ErrBusDiffers, with ErrGap,
// ErrBrokenChain or ErrNotRecorders): a forged or out-of-order message is
// never delivered. Messages for sequences at or before the last delivered
// one are skipped unread, whatever they hold.
//
// A repaired match (copy.go) is read from its latest copy notice on,
// when check knows the recorder's key (SignatureCheck, RecordCheck.Key).
//
// It reads through an ordered consumer: ephemeral, created by the client
// and re-created after a reconnect at the last stream position it saw, so
// nothing needs cleaning up. The stream must exist (the relay creates it).
func Subscribe(ctx context.Context, js jetstream.JetStream, match string, after store.Head, check Check, fn func(events.Event) error) error {
	subj, err := Subject(match)
	if err != nil {
		return fmt.Errorf("natsbus: subscribe: %w", err)
	}
	if check == nil {
		return errors.New("natsbus: subscribe: no check: every follower must verify the events it delivers")
	}
	cc := jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subj},
		// From the start of the match's copy: the stream sequence of the
		// event after `after` is unknown, and skipping a match's earlier
		// events is cheap next to delivering a wrong one.
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
	base, err := copyStart(ctx, js, match, check)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, ErrNotRecorders) {
			return &BusDiffersError{Match: match, Seq: after.Seq + 1, Err: err}
		}
		return fmt.Errorf("natsbus: subscribe to %s: %w", subj, err)
	}
	if base > 0 { // a repaired copy (copy.go): what came before is superseded
		cc.DeliverPolicy, cc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, base
	}
	cons, err := js.OrderedConsumer(ctx, StreamName, cc)
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

	next, prev := after.Seq+1, after.Hash
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("natsbus: follow %s: %w", subj, err)
		}
		if seq, ok := headerSeq(m); ok && seq < next {
			continue // already delivered, or before `after`
		}
		e, err := DecodeMsg(m)
		if err != nil {
			return &BusDiffersError{Match: match, Seq: next, Err: fmt.Errorf("%w: %v", ErrNotRecorders, err)}
		}
		switch {
		case e.Seq < next:
			continue
		case e.Seq > next:
			return &BusDiffersError{Match: match, Seq: next, Err: fmt.Errorf("%w: expected event %d, got %d", ErrGap, next, e.Seq)}
		case e.PrevHash != prev:
			return &BusDiffersError{Match: match, Seq: e.Seq, Err: ErrBrokenChain}
		}
		if err := check.Check(ctx, m, e); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, ErrNotRecorders) {
				return &BusDiffersError{Match: match, Seq: e.Seq, Err: err}
			}
			return fmt.Errorf("natsbus: check %s/%d: %w", match, e.Seq, err)
		}
		if err := fn(e); err != nil {
			return err
		}
		next, prev = e.Seq+1, e.Hash
	}
}

// headerSeq reads Matchrec-Seq, so messages before the wanted one are
// skipped without decoding them. A missing or bad header is decoded.
func headerSeq(m jetstream.Msg) (uint64, bool) {
	h := m.Headers()
	if h == nil {
		return 0, false
	}
	seq, err := strconv.ParseUint(h.Get(HeaderSeq), 10, 64)
	return seq, err == nil
}
