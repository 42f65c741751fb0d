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
//	tlog/size                the number of entries (8)
//	tlog-hashes/<index>      stored hash <index> (32), tlog's layout
//	tlog-entries/<leaf>      the entry (headlog.Entry.Marshal)
//	tlog-matches/<match>     signed (1) | created, ended, newest leaf + 1
//	                         (8 each; 0: none) | newest entry's seq (8)
//
// Every integer key is big-endian, so a cursor walks entries and hashes in
// order. The hashes are x/mod's stored hashes (tlog.StoredHashes): a leaf
// adds one hash plus one per level it completes, and any proof reads
// O(log n) of them. A match's record is one small value beside its head
// record, so an append touches a page or two more than without the log;
// an older event's leaf is found by walking the match's entries back from
// its newest (each names the one before: headlog.Entry.Prev).
var (
	bktLog        = []byte("tlog")
	bktLogHashes  = []byte("tlog-hashes")
	bktLogEntries = []byte("tlog-entries")
	bktLogMatches = []byte("tlog-matches")

	keyLogSize = []byte("size")
)

var _ store.HeadLog = (*Store)(nil)

// logMatch is a match's record in tlog-matches.
type logMatch struct {
	signed                bool
	created, ended, newst int64 // -1: none
	newestSeq             uint64
}

const logMatchLen = 1 + 4*8

func decodeLogMatch(v []byte) (logMatch, error) {
	m := logMatch{created: -1, ended: -1, newst: -1}
	if v == nil {
		return m, nil
	}
	if len(v) != logMatchLen {
		return m, fmt.Errorf("%w: a log match record of %d bytes", ErrCorrupt, len(v))
	}
	m.signed = v[0] == 1
	m.created = int64(binary.BigEndian.Uint64(v[1:])) - 1
	m.ended = int64(binary.BigEndian.Uint64(v[9:])) - 1
	m.newst = int64(binary.BigEndian.Uint64(v[17:])) - 1
	m.newestSeq = binary.BigEndian.Uint64(v[25:])
	return m, nil
}

func (m logMatch) encode() []byte {
	v := make([]byte, logMatchLen)
	if m.signed {
		v[0] = 1
	}
	binary.BigEndian.PutUint64(v[1:], uint64(m.created+1))
	binary.BigEndian.PutUint64(v[9:], uint64(m.ended+1))
	binary.BigEndian.PutUint64(v[17:], uint64(m.newst+1))
	binary.BigEndian.PutUint64(v[25:], m.newestSeq)
	return v
}

// logTx is the log inside one transaction.
type logTx struct {
	info, hashes, entries, matches *bbolt.Bucket
	size                           int64
	added                          bool

	cache     *hashCache  // the store's (nil: none)
	committed int64       // stored hashes committed when the transaction began
	fresh     []freshLeaf // hashes this transaction wrote, cached once it commits
}

// freshLeaf is the stored hashes one added entry wrote, from index first.
type freshLeaf struct {
	first int64
	hs    []tlog.Hash
}

// openLogTx opens the log in tx, reading stored hashes through cache (nil:
// straight from the bucket).
func openLogTx(tx *bbolt.Tx, cache *hashCache) (*logTx, error) {
	l := &logTx{info: tx.Bucket(bktLog), hashes: tx.Bucket(bktLogHashes), entries: tx.Bucket(bktLogEntries), matches: tx.Bucket(bktLogMatches), cache: cache}
	if l.info == nil || l.hashes == nil || l.entries == nil || l.matches == nil {
		return nil, fmt.Errorf("%w: the transparency log's buckets are missing", ErrCorrupt)
	}
	if v := l.info.Get(keyLogSize); v != nil {
		if len(v) != 8 {
			return nil, fmt.Errorf("%w: log size of %d bytes", ErrCorrupt, len(v))
		}
		l.size = int64(binary.BigEndian.Uint64(v))
	}
	l.committed = tlog.StoredHashCount(l.size)
	if cache != nil && tx.Writable() {
		tx.OnCommit(func() {
			for _, f := range l.fresh {
				cache.putFrom(f.first, f.hs)
			}
		})
	}
	return l, nil
}

// ReadHashes implements tlog.HashReader over the transaction (its own
// writes included), through the store's cache of committed hashes.
func (l *logTx) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		if h, ok := l.cache.get(x); ok {
			out[i] = h
			continue
		}
		v := l.hashes.Get(u64(uint64(x)))
		if len(v) != tlog.HashSize {
			return nil, fmt.Errorf("%w: stored hash %d missing", ErrCorrupt, x)
		}
		copy(out[i][:], v)
		if x < l.committed {
			l.cache.put(x, out[i])
		}
	}
	return out, nil
}

// nop reports whether l is the log of a store that keeps none
// (Options.NoLog): adds do nothing.
func (l *logTx) nop() bool { return l.info == nil }

func (l *logTx) match(name string) (logMatch, error) {
	return decodeLogMatch(l.matches.Get([]byte(name)))
}

// entry reads and parses entry leaf.
func (l *logTx) entry(leaf int64) (headlog.Entry, error) {
	e, err := headlog.ParseEntry(l.entries.Get(u64(uint64(leaf))))
	if err != nil {
		return e, fmt.Errorf("%w: log entry %d: %v", ErrCorrupt, leaf, err)
	}
	return e, nil
}

// add enters event e (of a match whose signedness its creating event set)
// and returns its leaf. An event already entered (a cluster's follower
// reading back the recorder's own) is not entered again.
func (l *logTx) add(e *events.Event) (int64, error) {
	if l.nop() {
		return -1, nil
	}
	m, err := l.match(e.Match)
	if err != nil {
		return 0, err
	}
	if m.newst >= 0 && e.Seq <= m.newestSeq {
		return l.leafOf(m, e.Seq)
	}
	if creates, signed := headlog.Creates(e); creates {
		m.signed = signed
	}
	entry := headlog.EntryOf(e, m.signed, m.newst).Marshal()
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
	if l.cache != nil {
		l.fresh = append(l.fresh, freshLeaf{first: first, hs: hs})
	}
	leaf := l.size
	if err := l.entries.Put(u64(uint64(leaf)), entry); err != nil {
		return 0, err
	}
	if m.created < 0 {
		m.created = leaf
	}
	if e.Type == events.TypeMatchEnded && m.ended < 0 {
		m.ended = leaf
	}
	m.newst, m.newestSeq = leaf, e.Seq
	if err := l.matches.Put([]byte(e.Match), m.encode()); err != nil {
		return 0, err
	}
	l.size++
	l.added = true
	return leaf, nil
}

// leafOf walks a match's entries back from its newest to the one of seq
// (-1: none).
func (l *logTx) leafOf(m logMatch, seq uint64) (int64, error) {
	for leaf := m.newst; leaf >= 0; {
		e, err := l.entry(leaf)
		if err != nil {
			return 0, err
		}
		switch {
		case e.Seq == seq:
			return leaf, nil
		case e.Seq < seq || e.Prev >= leaf:
			return -1, nil
		}
		leaf = e.Prev
	}
	return -1, nil
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
func ensureLog(db *bbolt.DB, noLog bool) error {
	return db.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(bktLog) != nil || noLog {
			return nil
		}
		for _, name := range [][]byte{bktLog, bktLogHashes, bktLogEntries, bktLogMatches} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %q: %w", name, err)
			}
		}
		l, err := openLogTx(tx, nil)
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
		l, err := openLogTx(tx, s.hashes)
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
	err := s.readLog(ctx, func(l *logTx) error {
		m, err := l.match(match)
		if err != nil || m.newst < 0 {
			return err
		}
		if seq == 0 {
			leaf = m.newst
			return nil
		}
		leaf, err = l.leafOf(m, seq)
		return err
	})
	if err == nil && leaf < 0 {
		err = fmt.Errorf("%w: the log has no entry of match %s event %d", store.ErrNotFound, match, seq)
	}
	return leaf, err
}

// LogLeaves implements store.HeadLog.
func (s *Store) LogLeaves(ctx context.Context, match string) (store.MatchLeaves, error) {
	var m logMatch
	err := s.readLog(ctx, func(l *logTx) error {
		var err error
		m, err = l.match(match)
		return err
	})
	if err == nil && m.newst < 0 {
		err = fmt.Errorf("%w: the log has no entry of match %s", store.ErrNotFound, match)
	}
	return store.MatchLeaves{Created: m.created, Ended: m.ended, Newest: m.newst}, err
}

// readLog runs fn on the log in a read transaction.
func (s *Store) readLog(ctx context.Context, fn func(*logTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.view(func(tx *bbolt.Tx) error {
		l, err := openLogTx(tx, s.hashes)
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
