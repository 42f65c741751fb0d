package bolt

import (
	"context"
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Scan calls fn for every event of match with Seq >= from (0 or 1 = all),
// in order. Records are copied out in short read transactions (chunk.go)
// and each is decoded only when fn is about to get it, outside any
// transaction, so fn may take its time, may call any method of the store
// (Append included), and a scan fn stops early decodes no more than fn
// saw. Events appended while Scan runs may or may not be seen. ctx is
// checked between chunks.
func (s *Store) Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error {
	return s.scanChunks(ctx, match, from, func(c *chunk) error {
		for _, r := range c.recs {
			if r.badKey {
				return fmt.Errorf("%w: match %q: a key is not a sequence number", ErrCorrupt, match)
			}
			e, err := decodeRecordAt(c.segs[r.seg], r.key, c.record(r))
			if err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// Head returns the last event's seq and hash, or ErrNotFound.
func (s *Store) Head(ctx context.Context, match string) (store.Head, error) {
	if err := ctx.Err(); err != nil {
		return store.Head{}, err
	}
	var h headRecord
	err := s.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bktHeads).Get([]byte(match))
		if v == nil {
			return fmt.Errorf("%w: %q", store.ErrNotFound, match)
		}
		var err error
		h, err = decodeHead(match, v)
		return err
	})
	return h.head, err
}

// Matches lists every match, ordered by id (bbolt's byte order, the same
// as Go's string order).
func (s *Store) Matches(ctx context.Context) ([]store.MatchInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := []store.MatchInfo{}
	err := s.view(func(tx *bbolt.Tx) error {
		out = out[:0]
		return tx.Bucket(bktHeads).ForEach(func(k, v []byte) error {
			id := string(k) // copies: k is bbolt memory
			h, err := decodeHead(id, v)
			if err != nil {
				return err
			}
			parent, at := parentOf(tx, id)
			out = append(out, store.MatchInfo{ID: id, Head: h.head, Created: h.created, Parent: parent, At: at})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readSegments walks match's records from seq from on, through its
// lineage (inherited events first, read from the ancestors' buckets), and
// calls fn with the bucket's match id, key and value until fn says stop.
func readSegments(tx *bbolt.Tx, match string, from uint64, fn func(seg string, k, v []byte) (more bool, err error)) error {
	if tx.Bucket(bktHeads).Get([]byte(match)) == nil {
		return fmt.Errorf("%w: %q", store.ErrNotFound, match)
	}
	lo := uint64(1)
	for _, p := range lineageTx(tx, match) {
		hi := p.Upto
		if hi != 0 && from > hi {
			lo = hi + 1
			continue
		}
		b := tx.Bucket(bktMatches).Bucket([]byte(p.Match))
		if b == nil {
			return fmt.Errorf("%w: match %q: no events of %q", ErrCorrupt, match, p.Match)
		}
		c := b.Cursor()
		for k, v := c.Seek(u64(max(from, lo))); k != nil; k, v = c.Next() {
			if hi != 0 && len(k) == 8 && binary.BigEndian.Uint64(k) > hi {
				break
			}
			more, err := fn(p.Match, k, v)
			if err != nil || !more {
				return err
			}
		}
		if hi == 0 {
			return nil
		}
		lo = hi + 1
	}
	return nil
}
