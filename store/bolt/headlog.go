package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
)

// The transparency log of heads (docs/transparency.md) lives in the store
// file beside the events, written in the same transaction as the events it
// names:
//
//	tlog/size                      the number of entries (8)
//	tlog-hashes/<index>            stored hash <index> (32), tlog's layout
//	tlog-entries/<leaf>            the entry (headlog.Entry.Marshal)
//	tlog-leaves/<match>/<seq>      the leaf of the match's event seq (8)
//	tlog-leaves/<match>/signed     1 if the match is signed, else 0
//	tlog-leaves/<match>/ended      the leaf of its match.ended entry (8)
//
// Every integer key is big-endian, so a cursor walks entries and hashes in
// order. The hashes are x/mod's stored hashes (tlog.StoredHashes): a leaf
// adds one hash plus one per level it completes, and any proof reads
// O(log n) of them.
var (
	bktLog        = []byte("tlog")
	bktLogHashes  = []byte("tlog-hashes")
	bktLogEntries = []byte("tlog-entries")
	bktLogLeaves  = []byte("tlog-leaves")

	keyLogSize   = []byte("size")
	keyLogSigned = []byte("signed")
	keyLogEnded  = []byte("ended")
)

var _ store.HeadLog = (*Store)(nil)

// logTx is the log inside one transaction.
type logTx struct {
	info, hashes, entries, leaves *bbolt.Bucket
	size                          int64
	added                         bool
}

func openLogTx(tx *bbolt.Tx) (*logTx, error) {
	l := &logTx{info: tx.Bucket(bktLog), hashes: tx.Bucket(bktLogHashes), entries: tx.Bucket(bktLogEntries), leaves: tx.Bucket(bktLogLeaves)}
	if l.info == nil || l.hashes == nil || l.entries == nil || l.leaves == nil {
		return nil, fmt.Errorf("%w: the transparency log's buckets are missing", ErrCorrupt)
	}
	if v := l.info.Get(keyLogSize); v != nil {
		if len(v) != 8 {
			return nil, fmt.Errorf("%w: log size of %d bytes", ErrCorrupt, len(v))
		}
		l.size = int64(binary.BigEndian.Uint64(v))
	}
	return l, nil
}

// ReadHashes implements tlog.HashReader over the transaction (its own
// writes included).
func (l *logTx) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		v := l.hashes.Get(u64(uint64(x)))
		if len(v) != tlog.HashSize {
			return nil, fmt.Errorf("%w: stored hash %d missing", ErrCorrupt, x)
		}
		copy(out[i][:], v)
	}
	return out, nil
}

// add enters event e (of a match whose signedness its creating event set)
// and returns its leaf. An event already entered is not entered again.
func (l *logTx) add(e *events.Event) (int64, error) {
	name := []byte(e.Match)
	mb, err := l.leaves.CreateBucketIfNotExists(name)
	if err != nil {
		return 0, fmt.Errorf("log leaves of %q: %w", e.Match, err)
	}
	if v := mb.Get(u64(e.Seq)); len(v) == 8 {
		return int64(binary.BigEndian.Uint64(v)), nil
	}
	if creates, signed := headlog.Creates(e); creates {
		flag := []byte{0}
		if signed {
			flag[0] = 1
		}
		if err := mb.Put(keyLogSigned, flag); err != nil {
			return 0, err
		}
	}
	signed := bytes.Equal(mb.Get(keyLogSigned), []byte{1})
	entry := headlog.EntryOf(e, signed).Marshal()
	hs, err := tlog.StoredHashes(l.size, entry, l)
	if err != nil {
		return 0, fmt.Errorf("log entry %d: %w", l.size, err)
	}
	l.hashes.FillPercent, l.entries.FillPercent = 1.0, 1.0
	first := tlog.StoredHashIndex(0, l.size)
	for i, h := range hs {
		if err := l.hashes.Put(u64(uint64(first+int64(i))), bytes.Clone(h[:])); err != nil {
			return 0, err
		}
	}
	leaf := l.size
	if err := l.entries.Put(u64(uint64(leaf)), entry); err != nil {
		return 0, err
	}
	mb.FillPercent = 1.0
	if err := mb.Put(u64(e.Seq), u64(uint64(leaf))); err != nil {
		return 0, err
	}
	if e.Type == events.TypeMatchEnded && mb.Get(keyLogEnded) == nil {
		if err := mb.Put(keyLogEnded, u64(uint64(leaf))); err != nil {
			return 0, err
		}
	}
	l.size++
	l.added = true
	return leaf, nil
}

// flush writes the size and returns the tree's root.
func (l *logTx) flush() (tlog.Tree, error) {
	if err := l.info.Put(keyLogSize, u64(uint64(l.size))); err != nil {
		return tlog.Tree{}, err
	}
	h, err := tlog.TreeHash(l.size, l)
	if err != nil {
		return tlog.Tree{}, fmt.Errorf("log root: %w", err)
	}
	return tlog.Tree{N: l.size, Hash: h}, nil
}

// ensureLog creates the log's buckets in a file that has none and enters
// every event already stored, match by match in id order, each match's
// in sequence order: a store recorded before the log existed gets one
// holding all it acknowledged.
func ensureLog(db *bbolt.DB) error {
	return db.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(bktLog) != nil {
			return nil
		}
		for _, name := range [][]byte{bktLog, bktLogHashes, bktLogEntries, bktLogLeaves} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %q: %w", name, err)
			}
		}
		l, err := openLogTx(tx)
		if err != nil {
			return err
		}
		matches := tx.Bucket(bktMatches)
		err = tx.Bucket(bktHeads).ForEach(func(k, _ []byte) error {
			b := matches.Bucket(k)
			if b == nil {
				return nil
			}
			return b.ForEach(func(_, v []byte) error {
				e, err := events.Unmarshal(v)
				if err != nil {
					return fmt.Errorf("%w: match %q: %v", ErrCorrupt, k, err)
				}
				_, err = l.add(&e)
				return err
			})
		})
		if err != nil {
			return err
		}
		_, err = l.flush()
		return err
	})
}

// signCheckpoint signs the checkpoint of tree, if the store has a signer,
// and keeps it as the newest.
func (s *Store) signCheckpoint(tree tlog.Tree) headlog.Checkpoint {
	signer := s.logSigner()
	if signer == nil {
		return headlog.Checkpoint{}
	}
	if cp := s.cp.Load(); cp != nil && cp.Size >= tree.N {
		return *cp
	}
	cp, err := headlog.Sign(signer, tree.N, tree.Hash)
	if err != nil {
		s.log.Error().Err(err).Msg("signing the log's checkpoint")
		return headlog.Checkpoint{}
	}
	for {
		old := s.cp.Load()
		if old != nil && old.Size >= cp.Size {
			return *old
		}
		if s.cp.CompareAndSwap(old, &cp) {
			return cp
		}
	}
}

// AppendLogged implements store.HeadLog.
func (s *Store) AppendLogged(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req *store.Request) (store.Logged, error) {
	var val []byte
	if key != nil {
		if len(key) == 0 || req == nil {
			return store.Logged{}, fmt.Errorf("%w: match %q: empty request key", store.ErrInvalid, match)
		}
		val = requestValue(*req)
	}
	var out store.Logged
	err := s.appendReq(ctx, match, expected, evs, key, val, &out)
	return out, err
}

// Checkpoint implements store.HeadLog: the newest signed checkpoint,
// signed now if the tree grew past it (a store that was just opened).
func (s *Store) Checkpoint(ctx context.Context) (headlog.Checkpoint, error) {
	if s.logSigner() == nil {
		return headlog.Checkpoint{}, fmt.Errorf("%w: this store signs no checkpoints", store.ErrNotFound)
	}
	var tree tlog.Tree
	err := s.view(func(tx *bbolt.Tx) error {
		l, err := openLogTx(tx)
		if err != nil {
			return err
		}
		if cp := s.cp.Load(); cp != nil && cp.Size == l.size {
			tree = cp.Tree()
			return nil
		}
		tree.N = l.size
		tree.Hash, err = tlog.TreeHash(l.size, l)
		return err
	})
	if err != nil {
		return headlog.Checkpoint{}, err
	}
	cp := s.signCheckpoint(tree)
	if cp.Note == nil {
		return cp, fmt.Errorf("%w: no checkpoint could be signed", store.ErrNotFound)
	}
	return cp, nil
}

// LogLeaf implements store.HeadLog.
func (s *Store) LogLeaf(ctx context.Context, match string, seq uint64) (int64, error) {
	leaf := int64(-1)
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bktLogLeaves)
		if b == nil {
			return nil
		}
		if mb := b.Bucket([]byte(match)); mb != nil {
			leaf = matchLeaf(mb, seq)
		}
		return nil
	})
	if err == nil && leaf < 0 {
		err = fmt.Errorf("%w: the log has no entry of match %s event %d", store.ErrNotFound, match, seq)
	}
	return leaf, err
}

// matchLeaf is the leaf of seq (0: the newest) in a match's leaves.
func matchLeaf(mb *bbolt.Bucket, seq uint64) int64 {
	if seq > 0 {
		if v := mb.Get(u64(seq)); len(v) == 8 {
			return int64(binary.BigEndian.Uint64(v))
		}
		return -1
	}
	c := mb.Cursor()
	// Sequence keys are 8 bytes; "ended" and "signed" sort after them only
	// by chance, so walk back over any key that is not a sequence.
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		if len(k) == 8 && len(v) == 8 {
			return int64(binary.BigEndian.Uint64(v))
		}
	}
	return -1
}

// LogLeaves implements store.HeadLog.
func (s *Store) LogLeaves(ctx context.Context, match string) (store.MatchLeaves, error) {
	out := store.MatchLeaves{Created: -1, Ended: -1, Newest: -1}
	err := s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bktLogLeaves)
		if b == nil {
			return nil
		}
		mb := b.Bucket([]byte(match))
		if mb == nil {
			return nil
		}
		c := mb.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if len(k) == 8 && len(v) == 8 {
				out.Created = int64(binary.BigEndian.Uint64(v))
				break
			}
		}
		out.Newest = matchLeaf(mb, 0)
		if v := mb.Get(keyLogEnded); len(v) == 8 {
			out.Ended = int64(binary.BigEndian.Uint64(v))
		}
		return nil
	})
	if err == nil && out.Newest < 0 {
		err = fmt.Errorf("%w: the log has no entry of match %s", store.ErrNotFound, match)
	}
	return out, err
}

// readLog runs fn on the log in a read transaction.
func (s *Store) readLog(ctx context.Context, fn func(*logTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.view(func(tx *bbolt.Tx) error {
		l, err := openLogTx(tx)
		if err != nil {
			return err
		}
		return fn(l)
	})
}

// errBeyond: a proof asked of a tree larger than the log.
var errBeyond = errors.New("beyond the log")

// ProveInclusion implements store.HeadLog.
func (s *Store) ProveInclusion(ctx context.Context, leaf, size int64) (headlog.Inclusion, error) {
	var in headlog.Inclusion
	err := s.readLog(ctx, func(l *logTx) error {
		if size > l.size || leaf < 0 || leaf >= size {
			return fmt.Errorf("%w: leaf %d of a tree of %d (the log has %d)", errBeyond, leaf, size, l.size)
		}
		p, err := tlog.ProveRecord(size, leaf, l)
		if err != nil {
			return err
		}
		in = headlog.Inclusion{Index: leaf, Entry: bytes.Clone(l.entries.Get(u64(uint64(leaf)))), Proof: p}
		return nil
	})
	return in, err
}

// ProveConsistency implements store.HeadLog.
func (s *Store) ProveConsistency(ctx context.Context, from, to int64) ([]tlog.Hash, error) {
	var p []tlog.Hash
	err := s.readLog(ctx, func(l *logTx) error {
		if to > l.size || from < 0 || from > to {
			return fmt.Errorf("%w: from %d to %d (the log has %d)", errBeyond, from, to, l.size)
		}
		if from == 0 || from == to {
			return nil
		}
		var err error
		p, err = tlog.ProveTree(to, from, l)
		return err
	})
	return p, err
}

// LogEntry implements store.HeadLog.
func (s *Store) LogEntry(ctx context.Context, leaf int64) ([]byte, error) {
	var e []byte
	err := s.readLog(ctx, func(l *logTx) error {
		if leaf < 0 || leaf >= l.size {
			return fmt.Errorf("%w: log entry %d (the log has %d)", store.ErrNotFound, leaf, l.size)
		}
		e = bytes.Clone(l.entries.Get(u64(uint64(leaf))))
		return nil
	})
	return e, err
}

// LogHashes implements store.HeadLog.
func (s *Store) LogHashes(ctx context.Context, idx []int64) ([]tlog.Hash, error) {
	var hs []tlog.Hash
	err := s.readLog(ctx, func(l *logTx) error {
		var err error
		hs, err = l.ReadHashes(idx)
		return err
	})
	return hs, err
}
