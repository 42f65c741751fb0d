package bolt

import (
	"bytes"
	"context"
	"encoding/binary"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/store"
)

var _ store.RawScanner = (*Store)(nil)

// ScanRaw implements store.RawScanner: records are copied out of the read
// transaction (bbolt's slices must not escape it) and handed to fn after
// it, in chunks. A branch's inherited records come first, as in Scan. A
// record whose key is not 8 bytes is passed with key 0.
func (s *Store) ScanRaw(ctx context.Context, match string, from uint64, fn func(key uint64, record []byte) error) error {
	type rec struct {
		key uint64
		val []byte
	}
	from = max(from, 1)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var buf []rec
		err := s.view(func(tx *bbolt.Tx) error {
			return readSegments(tx, match, from, func(_ string, k, v []byte) (bool, error) {
				key := uint64(0)
				if len(k) == 8 {
					key = binary.BigEndian.Uint64(k)
				}
				buf = append(buf, rec{key, bytes.Clone(v)})
				return len(buf) < scanChunk, nil
			})
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
		from = buf[len(buf)-1].key + 1
	}
}
