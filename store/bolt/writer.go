package bolt

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Group commit. Callers never touch a write transaction: Append builds a
// request, hands it to the single writer goroutine, and waits. The writer
// takes everything queued (up to MaxBatch requests), applies it in one
// db.Update, which fsyncs once, and only then replies to every caller.
// Each append is checked against the head as this transaction sees it, so
// an earlier request in the same batch counts: two appends with the same
// expected seq in one batch give one success and one ErrConflict. The
// outbox entries acked since the last commit are deleted in the same
// transaction (acks.go), or in one of their own when no append comes.

// Request states. The CAS between queued and taken/cancelled is what makes
// a context error from Append mean "nothing was written".
const (
	stateQueued int32 = iota
	stateTaken
	stateCancelled
)

// request is one Append on its way to the writer.
type request struct {
	ctx   context.Context
	state atomic.Int32
	done  chan error // buffered(1): the writer never blocks on a caller

	// Append.
	match    string
	expected uint64
	prev     events.Hash // PrevHash of the first event
	last     store.Head  // the head after this append
	created  int64       // Time of the first event, kept if it is event 1
	records  [][]byte    // events.Marshal of each event, seq expected+1...
	reqKey   []byte      // AppendRequest: the index key, nil for a plain Append
	reqVal   []byte      // and its value (requestValue)
	evs      []events.Event
	// indexStart is the index entry a new branch starts from (nil for an
	// append): the writer applies evs to it, or to the match's entry.
	indexStart *store.MatchEntry

	// AppendStream: the events JetStream acknowledged, written
	// idempotently (stream.go) instead of the fields above.
	stream []streamWrite

	// logged, for AppendLogged, is told where the last event is in the
	// transparency log (headlog.go) and the batch's checkpoint; leaf is
	// that leaf, set in the transaction.
	logged *store.Logged
	leaf   int64
	// Follow: the events the follower read (stream.go), also written
	// idempotently, and the stream position they bring the store to; the
	// writer fills moved and rejected.
	follow    []streamWrite
	position  uint64
	followKey []byte
	moved     map[string]uint64
	rejected  []error
}

// Append writes evs as the continuation of match after seq expected; see
// store.Store for the contract. It returns once the transaction holding the
// events is fsync'd.
//
// Cancellation: if ctx ends while the request is still queued, Append
// returns ctx's error and nothing is written. Once the writer has taken the
// request into a transaction, Append waits for that transaction (about one
// fsync) and reports its outcome, so a context error from Append always
// means the events were not written.
func (s *Store) Append(ctx context.Context, match string, expected uint64, evs []events.Event) error {
	return s.appendReq(ctx, match, expected, evs, nil, nil, nil)
}

// AppendRequest implements store.Requests: Append and the request index
// entry in the same transaction.
func (s *Store) AppendRequest(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req store.Request) error {
	if len(key) == 0 {
		return fmt.Errorf("%w: match %q: empty request key", store.ErrInvalid, match)
	}
	return s.appendReq(ctx, match, expected, evs, key, requestValue(req), nil)
}

func (s *Store) appendReq(ctx context.Context, match string, expected uint64, evs []events.Event, reqKey, reqVal []byte, logged *store.Logged) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.CheckAppend(match, expected, evs); err != nil {
		return err
	}
	r := &request{
		ctx:      ctx,
		done:     make(chan error, 1),
		match:    match,
		expected: expected,
		prev:     evs[0].PrevHash,
		last:     store.Head{Seq: evs[len(evs)-1].Seq, Hash: evs[len(evs)-1].Hash},
		created:  evs[0].Time,
		records:  make([][]byte, len(evs)),
		reqKey:   reqKey,
		reqVal:   reqVal,
		evs:      evs,
		logged:   logged,
	}
	for i, e := range evs {
		r.records[i] = events.Marshal(e)
	}
	return s.submit(ctx, r)
}

// submit queues r and waits for its outcome.
func (s *Store) submit(ctx context.Context, r *request) error {
	s.mu.RLock()
	if s.closed.Load() {
		s.mu.RUnlock()
		return store.ErrClosed
	}
	select {
	case s.reqs <- r:
		s.mu.RUnlock()
	case <-ctx.Done():
		s.mu.RUnlock()
		return ctx.Err()
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		if r.state.CompareAndSwap(stateQueued, stateCancelled) {
			return ctx.Err()
		}
		// Taken (or cancelled by the writer, which then replies ctx's
		// error): the reply is at most one commit away.
		return <-r.done
	}
}

// run is the writer goroutine. It exits when Close closes reqs, after
// committing whatever was queued before that, and the acks.
func (s *Store) run() {
	defer close(s.exited)
	batch := make([]*request, 0, s.maxBatch)
	var (
		flush *time.Timer
		due   <-chan time.Time // set while acks wait for a commit
	)
	for {
		select {
		case r, ok := <-s.reqs:
			if !ok {
				s.commit(nil) // the last acks, so a clean stop keeps them
				return
			}
			batch = append(batch[:0], r)
		drain:
			for len(batch) < s.maxBatch {
				select {
				case r, ok := <-s.reqs:
					if !ok {
						break drain
					}
					batch = append(batch, r)
				default:
					break drain
				}
			}
			s.commit(batch)
			clear(batch) // drop references to finished requests
		case <-s.ackKick:
			if s.ackDelay < 0 {
				s.commit(nil)
				continue
			}
			// Acks arrived while idle: give an append AckDelay to carry
			// them, then commit them on their own.
			if due == nil {
				if flush == nil {
					flush = time.NewTimer(s.ackDelay)
				} else {
					flush.Reset(s.ackDelay)
				}
				due = flush.C
			}
		case <-due:
			due = nil
			s.commit(nil)
		}
	}
}

// commit applies batch, and the acks waiting, in one transaction and
// replies to every request. With nothing to write it does nothing.
func (s *Store) commit(batch []*request) {
	live := make([]*request, 0, len(batch))
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil && r.state.CompareAndSwap(stateQueued, stateCancelled) {
			r.done <- err
			continue
		}
		if r.state.CompareAndSwap(stateQueued, stateTaken) {
			live = append(live, r)
		}
		// Otherwise the caller cancelled and has already returned.
	}
	acks := s.acks.take()
	if len(live) == 0 && len(acks) == 0 {
		return
	}

	start := time.Now()
	results := make([]error, len(live))
	var written int
	var tree tlog.Tree
	err := s.db.Update(func(tx *bbolt.Tx) error {
		w, err := s.newTxWriter(tx)
		if err != nil {
			return err
		}
		for i, r := range live {
			var err error
			if r.follow != nil {
				if err = w.follow(r); err != nil {
					return err
				}
				continue
			}
			if r.stream != nil {
				for _, sw := range r.stream {
					var reject error
					if _, reject, err = w.applyStream(sw); err != nil || reject != nil {
						results[i] = reject
						break
					}
				}
				if err != nil {
					return err
				}
				continue
			}
			results[i], err = w.append(r)
			if results[i] == nil && err == nil {
				written += len(r.records)
			}
			if err != nil {
				return err
			}
		}
		if w.lg.added {
			if tree, err = w.lg.flush(); err != nil {
				return err
			}
		}
		return w.ack(acks)
	})
	if err != nil {
		// Nothing of the batch is on disk. Every caller gets the failure,
		// including those the batch had rejected: their rejection was
		// judged against writes that no longer exist. The acks wait for
		// the next commit.
		err = fmt.Errorf("commit %s: %w", s.path, store.DiskFull(err))
		s.log.Error().Err(err).Int("requests", len(live)).Msg("group commit failed")
		for _, r := range live {
			r.done <- err
		}
		return
	}
	s.acks.deleted(acks)
	if tree.N > 0 {
		// One signature for every append of the batch: each caller's
		// receipt is this checkpoint and its head's inclusion proof.
		cp := s.signCheckpoint(tree)
		for i, r := range live {
			if results[i] == nil && r.logged != nil {
				*r.logged = store.Logged{Leaf: r.leaf, Checkpoint: cp}
			}
		}
	}
	s.log.Trace().Int("requests", len(live)).Int("events", written).Int("acks", len(acks)).Dur("took", time.Since(start)).Msg("group commit")
	for i, r := range live {
		r.done <- results[i]
	}
	if written > 0 {
		select {
		case s.notify <- struct{}{}:
		default: // a signal is already pending; the relay will see all entries
		}
	}
}

// txWriter applies requests inside one write transaction. Reads through it
// see the transaction's own earlier writes, which is how later requests of
// a batch are checked against earlier ones.
type txWriter struct {
	tx                     *bbolt.Tx
	matches, heads, outbox *bbolt.Bucket
	ix                     indexTx
	lg                     *logTx
}

func (s *Store) newTxWriter(tx *bbolt.Tx) (txWriter, error) {
	lg := &logTx{} // Options.NoLog: adds do nothing
	if !s.noLog {
		var err error
		if lg, err = openLogTx(tx, s.hashes); err != nil {
			return txWriter{}, err
		}
	}
	return txWriter{tx: tx, matches: tx.Bucket(bktMatches), heads: tx.Bucket(bktHeads), outbox: tx.Bucket(bktOutbox), ix: openIndex(tx), lg: lg}, nil
}

// append writes r if it continues its match's head. It returns the
// rejection for r (ErrConflict, ErrInvalid) or a fatal error that aborts
// the transaction.
func (w txWriter) append(r *request) (reject, fatal error) {
	name := []byte(r.match)
	var index *bbolt.Bucket
	if r.reqKey != nil {
		root, err := w.tx.CreateBucketIfNotExists(bktRequests)
		if err != nil {
			return nil, fmt.Errorf("requests: %w", err)
		}
		if index, err = root.CreateBucketIfNotExists(name); err != nil {
			return nil, fmt.Errorf("requests of match %q: %w", r.match, err)
		}
		if index.Get(r.reqKey) != nil {
			return fmt.Errorf("%w: match %q", store.ErrDuplicate, r.match), nil
		}
	}
	h := headRecord{created: r.created}
	if v := w.heads.Get(name); v != nil {
		cur, err := decodeHead(r.match, v)
		if err != nil {
			return nil, err
		}
		h.head, h.created = cur.head, cur.created
	}
	if r.expected != h.head.Seq {
		return fmt.Errorf("%w: match %q: expected seq %d, head is %d", store.ErrConflict, r.match, r.expected, h.head.Seq), nil
	}
	if r.prev != h.head.Hash {
		return fmt.Errorf("%w: match %q event %d: prev_hash does not link to the head", store.ErrInvalid, r.match, r.expected+1), nil
	}

	b, err := w.matches.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, fmt.Errorf("match %q: %w", r.match, err)
	}
	// Keys only ever grow, so pack pages full instead of splitting them at
	// bbolt's default 50%: the file stays about half the size.
	b.FillPercent = 1.0
	w.outbox.FillPercent = 1.0
	for i, rec := range r.records {
		seq := r.expected + 1 + uint64(i)
		if err := b.Put(u64(seq), rec); err != nil {
			return nil, fmt.Errorf("match %q event %d: %w", r.match, seq, err)
		}
		// Every event is a leaf of the transparency log, in this
		// transaction; its outbox entry names the leaf.
		if r.leaf, err = w.lg.add(&r.evs[i]); err != nil {
			return nil, fmt.Errorf("match %q event %d: log: %w", r.match, seq, err)
		}
		key, err := w.outbox.NextSequence()
		if err != nil {
			return nil, fmt.Errorf("outbox: %w", err)
		}
		if err := w.outbox.Put(u64(key), outboxValue(r.match, seq, r.leaf)); err != nil {
			return nil, fmt.Errorf("outbox: %w", err)
		}
	}
	if index != nil {
		if err := index.Put(bytes.Clone(r.reqKey), r.reqVal); err != nil {
			return nil, fmt.Errorf("requests of match %q: %w", r.match, err)
		}
	}
	h.head = r.last
	if err := w.heads.Put(name, h.encode()); err != nil {
		return nil, fmt.Errorf("match %q head: %w", r.match, err)
	}
	if err := w.ix.update(r.match, r.evs, r.indexStart); err != nil {
		return nil, fmt.Errorf("match %q index: %w", r.match, err)
	}
	return nil, nil
}

// ack deletes outbox entries; missing keys are not an error.
func (w txWriter) ack(keys []uint64) error {
	for _, k := range keys {
		if err := w.outbox.Delete(u64(k)); err != nil {
			return fmt.Errorf("outbox ack %d: %w", k, err)
		}
	}
	return nil
}
