package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/store"
)

var _ store.RawScanner = (*Store)(nil)

// ScanRaw implements store.RawScanner: records are copied out of the read
// transaction (bbolt's slices must not escape it) and handed to fn after
// it, in chunks.
func (s *Store) ScanRaw(ctx context.Context, match string, fn func(key uint64, record []byte) error) error {
	type rec struct {
		key uint64
		val []byte
	}
	next := []byte{}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var buf []rec
		err := s.view(func(tx *bbolt.Tx) error {
			b := tx.Bucket(bktMatches).Bucket([]byte(match))
			if b == nil {
				return fmt.Errorf("%w: %q", store.ErrNotFound, match)
			}
			c := b.Cursor()
			for k, v := c.Seek(next); k != nil && len(buf) < scanChunk; k, v = c.Next() {
				key := uint64(0)
				if len(k) == 8 {
					key = binary.BigEndian.Uint64(k)
				}
				buf = append(buf, rec{key, bytes.Clone(v)})
				next = append(bytes.Clone(k), 0) // the smallest key after k
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range buf {
			if err := fn(r.key, r.val); err != nil {
				return err
			}
		}
		if len(buf) < scanChunk {
			return nil
		}
	}
}
