package bolt

import (
	"bytes"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// corruptf wraps ErrCorrupt with a description.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Check opens the store file at path read-only and runs CheckTx on it. The
// file must not be open elsewhere (not even by a Store in this process):
// bbolt's file lock would make Check wait DefaultTimeout and fail with
// ErrLocked.
func Check(path string) error {
	db, err := bbolt.Open(path, fileMode, &bbolt.Options{ReadOnly: true, Timeout: DefaultTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("check %s: %w", path, ErrLocked)
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	defer db.Close()
	if err := db.View(CheckTx); err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	return nil
}

// Check runs CheckTx on the open store. It uses a write transaction that
// it rolls back: bbolt's tx.Check reads the freelist, which a concurrent
// writer mutates, so it is only safe in a read transaction when nothing
// writes. Holding the write lock stalls appends for the duration.
func (s *Store) Check() error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	tx, err := s.db.Begin(true)
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return store.ErrClosed
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", s.path, err)
	}
	defer func() { _ = tx.Rollback() }()
	return CheckTx(tx)
}

// CheckTx verifies a whole store file and returns every problem found,
// joined:
//   - bbolt's own consistency check (tx.Check: page reachability, freelist,
//     key order);
//   - the layout: format version, every match's events keyed 1..n without
//     gaps, each record decoding to the event its key names, the hash chain
//     verifying from event 1, the head record naming the last event and the
//     time of event 1;
//   - every outbox entry pointing at a stored event, with keys not beyond
//     the outbox's sequence;
//   - the match index: one entry per match, at its head, in both orders.
//
// It reads and hashes every event: it is for tests and offline repair, not
// for a hot path.
func CheckTx(tx *bbolt.Tx) error {
	var errs []error
	for err := range tx.Check() {
		errs = append(errs, fmt.Errorf("bbolt: %w", err))
	}
	if len(errs) > 0 {
		// The layout walk below could trip over the same damage.
		return errors.Join(errs...)
	}
	if err := checkLayout(tx); err != nil {
		return err
	}
	matches, heads, outbox := tx.Bucket(bktMatches), tx.Bucket(bktHeads), tx.Bucket(bktOutbox)

	err := matches.ForEachBucket(func(name []byte) error {
		match := string(name)
		b := matches.Bucket(name)
		var prev events.Hash
		var last uint64
		var created int64
		if parent, at := parentOf(tx, match); parent != "" {
			// A branch's own log starts after its fork, linked to the
			// parent's event there, and shares the parent's creation time.
			fork, err := recordAt(tx, parent, at)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w: branch %q: %w", ErrCorrupt, match, err))
				return nil
			}
			last, prev, created = at, fork.Hash, fork.Time
			if pv := heads.Get([]byte(parent)); pv != nil {
				if ph, err := decodeHead(parent, pv); err == nil {
					created = ph.created
				}
			}
		}
		err := b.ForEach(func(k, v []byte) error {
			e, err := decodeRecord(match, k, v)
			if err != nil {
				return err
			}
			if e.Seq != last+1 {
				return corruptf("match %q: event %d follows event %d", match, e.Seq, last)
			}
			if err := events.Verify(e, prev); err != nil {
				return fmt.Errorf("%w: match %q: %w", ErrCorrupt, match, err)
			}
			if e.Seq == 1 {
				created = e.Time
			}
			prev, last = e.Hash, e.Seq
			return nil
		})
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		v := heads.Get(name)
		if v == nil {
			errs = append(errs, corruptf("match %q has events but no head record", match))
			return nil
		}
		h, err := decodeHead(match, v)
		switch {
		case err != nil:
			errs = append(errs, err)
		case h.head.Seq != last || h.head.Hash != prev || h.created != created:
			errs = append(errs, corruptf("match %q: head record (seq %d, created %d) disagrees with its log (seq %d, created %d) or hash",
				match, h.head.Seq, h.created, last, created))
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}

	err = heads.ForEach(func(k, _ []byte) error {
		if matches.Bucket(k) == nil {
			errs = append(errs, corruptf("head record for match %q, which has no events", k))
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}

	var lastKey []byte
	err = outbox.ForEach(func(k, v []byte) error {
		match, seq, _, err := decodeOutbox(k, v)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if b := matches.Bucket([]byte(match)); b == nil || b.Get(u64(seq)) == nil {
			errs = append(errs, corruptf("outbox entry %x: match %q has no event %d", k, match, seq))
		}
		lastKey = k
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	if lastKey != nil && bytes.Compare(lastKey, u64(outbox.Sequence())) > 0 {
		errs = append(errs, corruptf("outbox key %x is beyond the outbox sequence %d", lastKey, outbox.Sequence()))
	}
	errs = append(errs, checkIndex(tx)...)
	return errors.Join(errs...)
}
