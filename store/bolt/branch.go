package bolt

import (
	"context"
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Branches are pointers, never copies:
//
//	branches/<branch id>    at (8) | parent id
//
// The branch's own events live in matches/<branch id> from at+1 on; its
// inherited events are read from the ancestors' buckets (lineage).
var bktBranches = []byte("branches")

var _ store.Brancher = (*Store)(nil)

// parentOf returns the parent and fork point of a branch, or "" for a
// match that is no branch.
func parentOf(tx *bbolt.Tx, id string) (string, uint64) {
	b := tx.Bucket(bktBranches)
	if b == nil {
		return "", 0
	}
	v := b.Get([]byte(id))
	if len(v) < 9 {
		return "", 0
	}
	return string(v[8:]), binary.BigEndian.Uint64(v[:8])
}

// lineageTx is id's lineage from the root (see store.Brancher).
func lineageTx(tx *bbolt.Tx, id string) []events.BranchPoint {
	out := []events.BranchPoint{{Match: id}}
	for cur, guard := id, 0; guard < 1000; guard++ {
		parent, at := parentOf(tx, cur)
		if parent == "" {
			break
		}
		out = append([]events.BranchPoint{{Match: parent, Upto: at}}, out...)
		cur = parent
	}
	return out
}

// recordAt reads event seq of match through its lineage.
func recordAt(tx *bbolt.Tx, match string, seq uint64) (events.Event, error) {
	lo := uint64(1)
	for _, p := range lineageTx(tx, match) {
		if seq >= lo && (p.Upto == 0 || seq <= p.Upto) {
			b := tx.Bucket(bktMatches).Bucket([]byte(p.Match))
			if b == nil {
				break
			}
			v := b.Get(u64(seq))
			if v == nil {
				break
			}
			return decodeRecord(p.Match, u64(seq), v)
		}
		lo = p.Upto + 1
	}
	return events.Event{}, fmt.Errorf("%w: match %q has no event %d", store.ErrNotFound, match, seq)
}

// Lineage implements store.Brancher.
func (s *Store) Lineage(ctx context.Context, id string) ([]events.BranchPoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []events.BranchPoint
	err := s.view(func(tx *bbolt.Tx) error {
		if tx.Bucket(bktHeads).Get([]byte(id)) == nil {
			return fmt.Errorf("%w: %q", store.ErrNotFound, id)
		}
		out = lineageTx(tx, id)
		return nil
	})
	return out, err
}

// Branch implements store.Brancher in one fsync'd transaction of its own:
// branching is rare, and bbolt serialises it with the group commits.
func (s *Store) Branch(ctx context.Context, id, parent string, at uint64, evs []events.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := store.CheckAppend(id, at, evs); err != nil {
		return err
	}
	r := &request{match: id, expected: at, prev: evs[0].PrevHash,
		last: store.Head{Seq: evs[len(evs)-1].Seq, Hash: evs[len(evs)-1].Hash}, records: make([][]byte, len(evs)), evs: evs}
	for i, e := range evs {
		r.records[i] = events.Marshal(e)
	}
	var reject error
	var tree tlog.Tree
	err := s.db.Update(func(tx *bbolt.Tx) error {
		heads := tx.Bucket(bktHeads)
		if heads.Get([]byte(id)) != nil {
			reject = fmt.Errorf("%w: match %q already exists", store.ErrConflict, id)
			return nil
		}
		pv := heads.Get([]byte(parent))
		if pv == nil {
			reject = fmt.Errorf("%w: parent match %q", store.ErrNotFound, parent)
			return nil
		}
		ph, err := decodeHead(parent, pv)
		if err != nil {
			return err
		}
		if at < 1 || at > ph.head.Seq {
			reject = fmt.Errorf("%w: match %q has events 1..%d, cannot branch at %d", store.ErrInvalid, parent, ph.head.Seq, at)
			return nil
		}
		fork, err := recordAt(tx, parent, at)
		if err != nil {
			return err
		}
		br, err := tx.CreateBucketIfNotExists(bktBranches)
		if err != nil {
			return err
		}
		if err := br.Put([]byte(id), append(u64(at), parent...)); err != nil {
			return err
		}
		start := headRecord{head: store.Head{Seq: at, Hash: fork.Hash}, created: ph.created}
		if err := heads.Put([]byte(id), start.encode()); err != nil {
			return err
		}
		w, err := s.newTxWriter(tx)
		if err != nil {
			return err
		}
		pe, ok, err := w.ix.entry(parent)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: parent match %q has no index entry", ErrCorrupt, parent)
		}
		be := store.BranchEntry(pe, id, at)
		r.indexStart = &be
		rej, err := w.append(r)
		if rej != nil {
			reject = rej
			return errRollback
		}
		if err != nil {
			return err
		}
		if w.lg.added {
			tree, err = w.lg.flush()
		}
		return err
	})
	if reject != nil {
		return reject
	}
	if err != nil {
		return fmt.Errorf("branch %q of %q at %d: %w", id, parent, at, err)
	}
	if tree.N > 0 {
		s.signCheckpoint(tree)
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return nil
}

// startBranch begins a branch whose first own event a cluster's stream
// brings (its branch.created, sw): the pointer to its parent, as Branch
// keeps it, and the head and index entry it starts from. The parent's
// events up to the fork come earlier on the stream, so they are stored;
// a branch.created that does not fork a stored event of its parent, at
// the event it names, is rejected (nothing written).
func (w txWriter) startBranch(sw streamWrite) (headRecord, *store.MatchEntry, error, error) {
	var bc events.BranchCreated
	if err := events.DecodeValue(sw.ev.Payload, &bc); err != nil {
		return headRecord{}, nil, fmt.Errorf("%w: match %q event %d: branch.created: %v", store.ErrInvalid, sw.match, sw.seq, err), nil
	}
	pv := w.heads.Get([]byte(bc.Parent))
	if bc.Parent == sw.match || pv == nil || sw.seq != bc.At+1 {
		return headRecord{}, nil, fmt.Errorf("%w: match %q event %d (stream sequence %d) branches match %q at event %d, which this store does not hold",
			store.ErrInvalid, sw.match, sw.seq, sw.sseq, bc.Parent, bc.At), nil
	}
	ph, err := decodeHead(bc.Parent, pv)
	if err != nil {
		return headRecord{}, nil, nil, err
	}
	fork, err := recordAt(w.tx, bc.Parent, bc.At)
	if err != nil || bc.At > ph.head.Seq || fork.Hash != sw.prev {
		return headRecord{}, nil, fmt.Errorf("%w: match %q event %d (stream sequence %d) does not link to event %d of its parent %q",
			store.ErrDiverged, sw.match, sw.seq, sw.sseq, bc.At, bc.Parent), nil
	}
	br, err := w.tx.CreateBucketIfNotExists(bktBranches)
	if err != nil {
		return headRecord{}, nil, nil, err
	}
	if err := br.Put([]byte(sw.match), append(u64(bc.At), bc.Parent...)); err != nil {
		return headRecord{}, nil, nil, err
	}
	pe, ok, err := w.ix.entry(bc.Parent)
	if err != nil {
		return headRecord{}, nil, nil, err
	}
	if !ok {
		return headRecord{}, nil, nil, fmt.Errorf("%w: parent match %q has no index entry", ErrCorrupt, bc.Parent)
	}
	be := store.BranchEntry(pe, sw.match, bc.At)
	return headRecord{head: store.Head{Seq: bc.At, Hash: fork.Hash}, created: ph.created}, &be, nil, nil
}

// errRollback aborts a transaction whose request was rejected.
var errRollback = fmt.Errorf("rolled back")
