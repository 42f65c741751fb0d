package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// A cluster recorder's store follows the MATCHREC stream (docs/cluster.md):
// the stream is the truth, the store a full local copy of it. Events come
// in from two sides — the recorder's own appends, written once JetStream
// has acknowledged them, and the follower, which reads every event of the
// stream in stream order — so writing one is idempotent: an event already
// stored is skipped if it is byte for byte the same, and a different event
// at the same place is a divergence (store.ErrDiverged), never an
// overwrite. No outbox entry is made: the event is on the stream already.
//
// Two buckets beside the events, created on first use so older files open
// unchanged:
//
//	streams/<match id>   the stream sequence of the match's last event (8):
//	                     the expected last subject sequence of its next append
//	info/followed        the stream sequence the follower has applied up to (8)
var (
	bktStreams  = []byte("streams")
	keyFollowed = []byte("followed")
)

var _ store.Streamed = (*Store)(nil)

// streamWrite is one store.StreamEvent ready for a transaction.
type streamWrite struct {
	match  string
	seq    uint64
	prev   events.Hash
	hash   events.Hash
	time   int64
	record []byte
	sseq   uint64
	key    []byte
	reqVal []byte
	ev     events.Event // for the match index
}

func newStreamWrite(e store.StreamEvent) streamWrite {
	w := streamWrite{match: e.Event.Match, seq: e.Event.Seq, prev: e.Event.PrevHash, hash: e.Event.Hash,
		time: e.Event.Time, record: events.Marshal(e.Event), sseq: e.StreamSeq, ev: e.Event}
	if e.Key != nil {
		w.key, w.reqVal = bytes.Clone(e.Key), requestValue(e.Request)
	}
	return w
}

// AppendStream writes the events of one command that JetStream has
// acknowledged at the given stream sequences, through the group commit,
// idempotently (see above): the follower may have written them first.
func (s *Store) AppendStream(ctx context.Context, match string, evs []store.StreamEvent) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(evs) == 0 {
		return fmt.Errorf("%w: match %q: no events", store.ErrInvalid, match)
	}
	r := &request{ctx: ctx, done: make(chan error, 1), match: match}
	for _, e := range evs {
		if e.Event.Match != match {
			return fmt.Errorf("%w: event of match %q in an append to %q", store.ErrInvalid, e.Event.Match, match)
		}
		r.stream = append(r.stream, newStreamWrite(e))
	}
	return s.submit(ctx, r)
}

// Follow applies events read from the stream, in stream order, in one
// transaction, and records that the stream has been applied up to pos.
// It returns each match whose head moved, with its new head. An event
// that diverges from the stored one, or does not continue its match, is
// not written and is returned in rejected (the rest are applied): the
// follower reports it loudly; nothing is overwritten.
func (s *Store) Follow(ctx context.Context, stream string, evs []store.StreamEvent, pos uint64) (moved map[string]uint64, rejected []error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	// Through the group commit: the follower's writes and the recorder's
	// own appends share its transactions, so each recorder a cluster adds
	// does not add a fsync per event to every store (docs/PERFORMANCE.md).
	r := &request{ctx: ctx, done: make(chan error, 1), follow: make([]streamWrite, len(evs)), position: pos, followKey: followedKey(stream)}
	for i, e := range evs {
		r.follow[i] = newStreamWrite(e)
	}
	// A batch of events this store holds already (the recorder's own
	// appends, coming back) changes nothing but the position: it is not
	// worth a transaction and a fsync of its own. The position on disk
	// stays behind until the next batch that writes, so a restart reads
	// those events again and finds them stored.
	if len(evs) > 0 {
		if held, err := s.holds(r.follow); err != nil || held {
			return map[string]uint64{}, nil, err
		}
	}
	if err := s.submit(ctx, r); err != nil {
		return nil, nil, fmt.Errorf("follow %s: %w", s.path, err)
	}
	return r.moved, r.rejected, nil
}

// holds says every write of a follower's batch is in the store as it
// would leave it: the same event stored, its request index entry and its
// stream sequence recorded, and the event entered in the transparency log
// (which only the follower does, in the stream's order).
func (s *Store) holds(ws []streamWrite) (bool, error) {
	held := true
	err := s.view(func(tx *bbolt.Tx) error {
		streams, requests := tx.Bucket(bktStreams), tx.Bucket(bktRequests)
		lg := &logTx{}
		if !s.noLog {
			var err error
			if lg, err = openLogTx(tx, s.hashes); err != nil {
				return err
			}
		}
		for _, sw := range ws {
			if !lg.nop() {
				if m, err := lg.match(sw.match); err != nil || m.newst < 0 || m.newestSeq < sw.seq {
					held = false
					return err
				}
			}
			name := []byte(sw.match)
			b := tx.Bucket(bktMatches).Bucket(name)
			if b == nil || !bytes.Equal(b.Get(u64(sw.seq)), sw.record) {
				held = false
				return nil
			}
			if sw.key != nil {
				var index *bbolt.Bucket
				if requests != nil {
					index = requests.Bucket(name)
				}
				if index == nil || index.Get(sw.key) == nil {
					held = false
					return nil
				}
			}
			if sw.sseq != 0 {
				if streams == nil {
					held = false
					return nil
				}
				if v := streams.Get(name); len(v) != 8 || binary.BigEndian.Uint64(v) < sw.sseq {
					held = false
					return nil
				}
			}
		}
		return nil
	})
	return held, err
}

// follow applies a Follow request in the writer's transaction.
func (w txWriter) follow(r *request) error {
	r.moved, r.rejected = map[string]uint64{}, nil
	for _, sw := range r.follow {
		applied, reject, err := w.applyStream(sw)
		if err != nil {
			return err
		}
		if reject != nil {
			r.rejected = append(r.rejected, reject)
			continue
		}
		if applied {
			r.moved[sw.match] = sw.seq
		}
		// A cluster's log is entered in the stream's order, by the
		// follower alone (the recorder's own appends are entered when
		// the follower reads them back): every recorder builds the same
		// tree of the same stream (docs/transparency.md).
		if _, err := w.lg.add(&sw.ev); err != nil {
			return err
		}
	}
	return w.tx.Bucket(bktInfo).Put(r.followKey, u64(r.position))
}

// followedKey is where stream's position is kept in info: "followed" for
// the cluster's stream (older files have it), "followed.<stream>" for
// another.
func followedKey(stream string) []byte {
	if stream == "" {
		return keyFollowed
	}
	return append(append(bytes.Clone(keyFollowed), '.'), stream...)
}

// Followed is the stream sequence the follower has applied up to (0:
// nothing yet).
func (s *Store) Followed(ctx context.Context, stream string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var pos uint64
	err := s.view(func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bktInfo).Get(followedKey(stream)); len(v) == 8 {
			pos = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return pos, err
}

// MarkFollower records that this store is a cluster recorder's copy of
// the stream (info/followed exists from then on), so a single-machine
// recorder never appends to it behind the cluster's back (IsFollower).
func (s *Store) MarkFollower(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed.Load() {
		return store.ErrClosed
	}
	return s.db.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(bktInfo).Get(keyFollowed) != nil {
			return nil
		}
		return tx.Bucket(bktInfo).Put(keyFollowed, u64(0))
	})
}

// IsFollower says the store is a cluster recorder's copy (MarkFollower).
func (s *Store) IsFollower(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var yes bool
	err := s.view(func(tx *bbolt.Tx) error {
		yes = tx.Bucket(bktInfo).Get(keyFollowed) != nil
		return nil
	})
	return yes, err
}

// StreamHead implements store.Streamed: the match's head and the stream
// sequence of its last event, read together.
func (s *Store) StreamHead(ctx context.Context, match string) (head store.Head, streamSeq uint64, err error) {
	if err := ctx.Err(); err != nil {
		return store.Head{}, 0, err
	}
	err = s.view(func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bktHeads).Get([]byte(match)); v != nil {
			h, err := decodeHead(match, v)
			if err != nil {
				return err
			}
			head = h.head
		}
		if b := tx.Bucket(bktStreams); b != nil {
			if v := b.Get([]byte(match)); len(v) == 8 {
				streamSeq = binary.BigEndian.Uint64(v)
			}
		}
		return nil
	})
	return head, streamSeq, err
}

// applyStream writes one stream event idempotently. applied says the
// event was new; reject is a divergence or a gap (nothing written); err
// aborts the transaction.
func (w txWriter) applyStream(sw streamWrite) (applied bool, reject, err error) {
	name := []byte(sw.match)
	var h headRecord
	if v := w.heads.Get(name); v != nil {
		if h, err = decodeHead(sw.match, v); err != nil {
			return false, nil, err
		}
	}
	switch {
	case sw.seq <= h.head.Seq:
		var have []byte
		if b := w.matches.Bucket(name); b != nil {
			have = b.Get(u64(sw.seq))
		}
		if !bytes.Equal(have, sw.record) {
			return false, fmt.Errorf("%w: match %q event %d (stream sequence %d) differs from the stored one", store.ErrDiverged, sw.match, sw.seq, sw.sseq), nil
		}
	case h.head.Seq == 0 && sw.seq > 1 && sw.ev.Type == events.TypeBranchCreated:
		// A branch's first own event: its earlier events are its parent's,
		// which come earlier on the stream (branch.go keeps the pointer).
		h, start, reject, err := w.startBranch(sw)
		if reject != nil || err != nil {
			return false, reject, err
		}
		return w.putStream(sw, h, start)
	case sw.seq != h.head.Seq+1:
		return false, fmt.Errorf("%w: match %q: event %d (stream sequence %d) after head %d", store.ErrInvalid, sw.match, sw.seq, sw.sseq, h.head.Seq), nil
	case sw.prev != h.head.Hash:
		return false, fmt.Errorf("%w: match %q event %d (stream sequence %d): prev_hash does not link to the head", store.ErrDiverged, sw.match, sw.seq, sw.sseq), nil
	default:
		return w.putStream(sw, h, nil)
	}
	return false, nil, w.indexStream(sw)
}

// putStream writes a new stream event at the head h of its match (start:
// the index entry a new branch starts from).
func (w txWriter) putStream(sw streamWrite, h headRecord, start *store.MatchEntry) (applied bool, reject, err error) {
	name := []byte(sw.match)
	b, err := w.matches.CreateBucketIfNotExists(name)
	if err != nil {
		return false, nil, fmt.Errorf("match %q: %w", sw.match, err)
	}
	b.FillPercent = 1.0
	if err := b.Put(u64(sw.seq), sw.record); err != nil {
		return false, nil, fmt.Errorf("match %q event %d: %w", sw.match, sw.seq, err)
	}
	if h.head.Seq == 0 {
		h.created = sw.time
	}
	h.head = store.Head{Seq: sw.seq, Hash: sw.hash}
	if err := w.heads.Put(name, h.encode()); err != nil {
		return false, nil, fmt.Errorf("match %q head: %w", sw.match, err)
	}
	// A follower's matches are listed like its own (the match index).
	if err := w.ix.update(sw.match, []events.Event{sw.ev}, start); err != nil {
		return false, nil, fmt.Errorf("match %q index: %w", sw.match, err)
	}
	return true, nil, w.indexStream(sw)
}

// indexStream records what a stream event carries besides itself: the
// request index entry of its command, and the stream sequence of its
// match's last event.
func (w txWriter) indexStream(sw streamWrite) error {
	name := []byte(sw.match)
	if sw.key != nil {
		root, err := w.tx.CreateBucketIfNotExists(bktRequests)
		if err != nil {
			return fmt.Errorf("requests: %w", err)
		}
		index, err := root.CreateBucketIfNotExists(name)
		if err != nil {
			return fmt.Errorf("requests of match %q: %w", sw.match, err)
		}
		if index.Get(sw.key) == nil {
			if err := index.Put(sw.key, sw.reqVal); err != nil {
				return fmt.Errorf("requests of match %q: %w", sw.match, err)
			}
		}
	}
	streams, err := w.tx.CreateBucketIfNotExists(bktStreams)
	if err != nil {
		return fmt.Errorf("streams: %w", err)
	}
	if sw.sseq == 0 {
		return nil // an archive's event: never appended to through this store
	}
	if v := streams.Get(name); len(v) != 8 || binary.BigEndian.Uint64(v) < sw.sseq {
		if err := streams.Put(name, u64(sw.sseq)); err != nil {
			return fmt.Errorf("match %q stream sequence: %w", sw.match, err)
		}
	}
	return nil
}
