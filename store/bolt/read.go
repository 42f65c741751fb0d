package bolt

import (
	"context"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// scanChunk is how many events one read transaction decodes before fn sees
// them. fn runs outside any transaction: a slow consumer (a projector, a
// network client) must not hold a read transaction open, because an open
// read transaction blocks the writer from remapping a growing file and
// pins freed pages.
const scanChunk = 1024

// Scan calls fn for every event of match with Seq >= from (0 or 1 = all),
// in order. Events are decoded in chunks of scanChunk per read transaction
// and handed to fn outside it, so fn may take its time and may call any
// method of the store, Append included. Events appended while Scan runs may
// or may not be seen. ctx is checked between chunks.
func (s *Store) Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error {
	if from == 0 {
		from = 1
	}
	buf := make([]events.Event, 0, scanChunk)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf = buf[:0]
		err := s.view(func(tx *bbolt.Tx) error {
			b := tx.Bucket(bktMatches).Bucket([]byte(match))
			if b == nil {
				return fmt.Errorf("%w: %q", store.ErrNotFound, match)
			}
			c := b.Cursor()
			for k, v := c.Seek(u64(from)); k != nil && len(buf) < scanChunk; k, v = c.Next() {
				e, err := decodeRecord(match, k, v)
				if err != nil {
					return err
				}
				buf = append(buf, e)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range buf {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(buf) < scanChunk {
			return nil
		}
		from = buf[len(buf)-1].Seq + 1
	}
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
			out = append(out, store.MatchInfo{ID: id, Head: h.head, Created: h.created})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
