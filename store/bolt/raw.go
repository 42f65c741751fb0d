package bolt

import (
	"bytes"
	"context"

	"github.com/matchrec/matchrec/store"
)

var _ store.RawScanner = (*Store)(nil)

// ScanRaw implements store.RawScanner: records are copied out of the read
// transaction (bbolt's slices must not escape it) and handed to fn after
// it, chunk by chunk (chunk.go), each in its own copy. A branch's
// inherited records come first, as in Scan. A record whose key is not 8
// bytes is passed with key 0.
func (s *Store) ScanRaw(ctx context.Context, match string, from uint64, fn func(key uint64, record []byte) error) error {
	return s.scanChunks(ctx, match, from, func(c *chunk) error {
		// One allocation per chunk: fn may keep the records, so they are
		// copied out of the pooled chunk, each capped to its own length.
		own := bytes.Clone(c.data)
		for _, r := range c.recs {
			if err := fn(r.key, own[r.from:r.to:r.to]); err != nil {
				return err
			}
		}
		return nil
	})
}
