package natsbus

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// The stream against the record. The outbox holds only events not yet
// relayed, so a stream that lost events (deleted and re-created, a server
// restarted on an empty store, a purge after someone lifted DenyPurge)
// cannot be repaired from it: the relay compares each match's subject with
// the store and republishes what the subject lacks, in order, from the
// store itself.
//
// That comparison (reconcile) runs when the relay starts, when it had to
// re-create the stream, and when its idle check (every Poll) finds fewer
// messages than it knows were stored. It costs one stream info listing
// every subject's message count plus the store's match list; only matches
// whose count is short are looked at further. A match's subject holding
// more messages than the match has events is flagged: it holds something
// the recorder did not write (buscheck says where).

// streamHealth is what the idle check compares: the messages the stream
// should hold by the relay's account.
type streamHealth struct {
	msgs  uint64
	known bool
}

// checkStream makes sure the stream exists (re-creating it if it is gone)
// and is whole; see above.
func (r *Relay) checkStream(ctx context.Context, js jetstream.JetStream) error {
	sctx, cancel := context.WithTimeout(ctx, r.opts.AckTimeout)
	defer cancel()
	if r.stream == nil {
		var (
			s       jetstream.Stream
			created bool
			err     error
		)
		if r.opts.Claim != nil {
			s, created, err = EnsureClaimed(sctx, js, *r.opts.Claim)
		} else {
			s, created, err = EnsureStream(sctx, js)
		}
		if err != nil {
			return err
		}
		r.stream = s
		if created {
			r.log.Warn().Msg("the stream was missing: re-created it; republishing every match from the store")
			clear(r.bus)
			clear(r.copies)
			r.clearFlags()
			r.health = streamHealth{}
		}
	}
	info, err := r.stream.Info(sctx)
	if err != nil {
		r.stream = nil
		return fmt.Errorf("natsbus: stream info: %w", err)
	}
	st := info.State
	switch {
	case !r.health.known:
		// First look: a stream that never held a message is new (or was
		// re-created), and filling it is no finding.
		r.fresh = st.LastSeq == 0
	case st.Msgs < r.health.msgs:
		r.log.Warn().Uint64("messages", st.Msgs).Uint64("expected", r.health.msgs).
			Msg("the stream lost messages; comparing every match with the record")
		clear(r.bus)
		r.fresh = false
	default:
		// Others' messages (a forgery, another recorder) only add.
		r.health.msgs = st.Msgs
		r.checked.Store(true)
		return nil
	}
	return r.reconcile(ctx)
}

// reconcile compares every match's message count on the stream with its
// recorded events, and queues the short ones for backfill.
func (r *Relay) reconcile(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, 4*r.opts.AckTimeout)
	defer cancel()
	info, err := r.stream.Info(sctx, jetstream.WithSubjectFilter(StreamSubjects))
	if err != nil {
		return fmt.Errorf("natsbus: stream subjects: %w", err)
	}
	ms, err := r.st.Matches(ctx)
	if err != nil {
		return fmt.Errorf("natsbus: list matches: %w", err)
	}
	if err := r.readCopies(ctx, info.State.Subjects); err != nil {
		return err
	}
	var short []store.MatchInfo
	for _, m := range ms {
		own := m.Head.Seq - m.At // a branch's inherited events are its parent's
		on := r.onCopy(m.ID, info.State.Subjects[SubjectPrefix+m.ID])
		switch {
		case on > own:
			r.flag(BusDiff{Match: m.ID, Reason: fmt.Sprintf("the bus holds %d messages for %d recorded events", on, own)})
		case on < own:
			short = append(short, m)
		}
	}
	r.health = streamHealth{msgs: info.State.Msgs, known: true}
	// checked is set only once the backlog is known (below): Drained
	// reads the two, and a relay seen checked with the backlog still at
	// its old 0 was taken for drained before its backfill began.
	if len(short) == 0 {
		r.checked.Store(true)
		return nil
	}
	// Events waiting in the outbox explain a short subject: the outbox
	// publishes them. What is missing before a match's first waiting event
	// is what the stream lost.
	firstWaiting := map[string]uint64{}
	err = r.st.Pending(ctx, 0, func(e store.OutboxEntry) error {
		if _, ok := firstWaiting[e.Event.Match]; !ok {
			firstWaiting[e.Event.Match] = e.Event.Seq
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("natsbus: read outbox: %w", err)
	}
	lost := 0
	for _, m := range short {
		published := m.Head.Seq // the last event that left the outbox
		if w, ok := firstWaiting[m.ID]; ok {
			published = w - 1
		}
		on := r.onCopy(m.ID, info.State.Subjects[SubjectPrefix+m.ID])
		if on >= published-m.At {
			continue
		}
		lost++
		r.pending[m.ID] = published
		delete(r.bus, m.ID)
		if !r.fresh {
			r.flag(BusDiff{Match: m.ID, Seq: m.At + on + 1, Reason: fmt.Sprintf(
				"the bus lost %d of the %d events published (purged or lost); republishing them from the record", published-m.At-on, published-m.At)})
		}
	}
	r.backlog.Store(int64(len(r.pending)))
	r.checked.Store(true)
	if lost > 0 {
		r.log.Info().Int("matches", lost).Bool("new_stream", r.fresh).Msg("matches missing from the bus; republishing them from the record")
	}
	return nil
}

// addBackfills adds the matches reconcile found short to the round, up to
// Batch events in all, each from what the stream holds of it.
func (r *Relay) addBackfills(ctx context.Context, b *batch) error {
	budget := r.opts.Batch
	for match, head := range r.pending {
		if budget <= 0 {
			break
		}
		if _, inRound := b.queues[match]; inRound {
			continue // its outbox entries come first, with any gap filled
		}
		q := b.queue(match)
		if err := b.know(ctx, q); err != nil {
			return err
		}
		from := q.pos.seq + 1
		if q.pos.seq == 0 {
			var err error
			if from, err = r.ownStart(ctx, match); err != nil {
				return err
			}
		}
		if from > head || r.forged(match) {
			continue // nothing to add: run drops it from pending
		}
		evs, err := r.readRecord(ctx, match, from, head, budget)
		if err != nil {
			return err
		}
		for _, e := range evs {
			q.items = append(q.items, item{ev: e, leaf: -1})
		}
		budget -= len(evs)
	}
	return nil
}

// lookup reads what the stream holds of match: the subject's last message,
// checked against the record. A message that is not the recorded event of
// its sequence comes back as a forged BusDiff (with the position of that
// message).
func (r *Relay) lookup(ctx context.Context, js jetstream.JetStream, match string) (busPos, *BusDiff, error) {
	subj, err := Subject(match)
	if err != nil {
		return busPos{}, nil, err
	}
	if r.stream == nil {
		return busPos{}, nil, errors.New("natsbus: no stream")
	}
	sctx, cancel := context.WithTimeout(ctx, r.opts.AckTimeout)
	defer cancel()
	m, err := r.stream.GetLastMsgForSubject(sctx, subj)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return busPos{}, nil, nil
	}
	if err != nil {
		return busPos{}, nil, fmt.Errorf("natsbus: last message of %s: %w", subj, err)
	}
	pos := busPos{stream: m.Sequence}
	e, derr := DecodeData(m.Subject, m.Data)
	if derr != nil {
		return pos, &BusDiff{Match: match, Forged: true, Reason: fmt.Sprintf(
			"the bus's last message (stream sequence %d) is not an event of the match: %v", m.Sequence, derr)}, nil
	}
	pos.seq, pos.hash = e.Seq, e.Hash
	rec, err := r.recorded(ctx, match, e.Seq)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return pos, &BusDiff{Match: match, Seq: e.Seq, Forged: true, Reason: fmt.Sprintf(
			"the bus holds event %d, which the recorder never wrote", e.Seq)}, nil
	case err != nil:
		return busPos{}, nil, err
	case rec.Hash != e.Hash || rec.Match != match:
		return pos, &BusDiff{Match: match, Seq: e.Seq, Forged: true, Reason: fmt.Sprintf(
			"event %d on the bus is not the recorded one (hash %s, recorded %s)", e.Seq, e.Hash, rec.Hash)}, nil
	}
	return pos, nil, nil
}

// subjectCount is how many messages the stream holds for match.
func (r *Relay) subjectCount(ctx context.Context, match string) (uint64, error) {
	subj, err := Subject(match)
	if err != nil {
		return 0, err
	}
	sctx, cancel := context.WithTimeout(ctx, r.opts.AckTimeout)
	defer cancel()
	info, err := r.stream.Info(sctx, jetstream.WithSubjectFilter(subj))
	if err != nil {
		return 0, fmt.Errorf("natsbus: count %s: %w", subj, err)
	}
	return info.State.Subjects[subj], nil
}

// recorded returns the stored event seq of match, or store.ErrNotFound.
func (r *Relay) recorded(ctx context.Context, match string, seq uint64) (events.Event, error) {
	return RecordedEvent(ctx, r.st, match, seq)
}

// RecordedEvent returns event seq of match from st, or an error wrapping
// store.ErrNotFound if the match or that event does not exist.
func RecordedEvent(ctx context.Context, st store.Store, match string, seq uint64) (events.Event, error) {
	var got events.Event
	found := false
	err := st.Scan(ctx, match, seq, func(e events.Event) error {
		got, found = e, e.Seq == seq
		return events.ErrStop
	})
	if err != nil && !errors.Is(err, events.ErrStop) {
		return got, err
	}
	if !found {
		return got, fmt.Errorf("%w: match %s has no event %d", store.ErrNotFound, match, seq)
	}
	return got, nil
}

// readRecord returns match's own events from..to (at most limit).
func (r *Relay) readRecord(ctx context.Context, match string, from, to uint64, limit int) ([]events.Event, error) {
	return readOwn(ctx, r.st, match, from, to, limit)
}

// ownStart is the first event match recorded itself.
func (r *Relay) ownStart(ctx context.Context, match string) (uint64, error) {
	return ownStart(ctx, r.st, match)
}
