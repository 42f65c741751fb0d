package bolt

import (
	"context"
	"encoding/binary"
	"sync"

	bbolt "go.etcd.io/bbolt"
)

// Scans read a match in chunks: one short read transaction copies the next
// records' bytes out, and the records are handed on (decoded or raw) after
// it, so the consumer never holds a transaction open — an open read
// transaction blocks the writer from remapping a growing file and pins
// freed pages.
//
// A chunk is bounded three ways, so a scan costs what its consumer reads
// and never more than a bounded buffer:
//   - the first chunk of a scan is small (chunkFirst records): a seek, or a
//     reader of one event, stops after one record, and decoding is lazy, so
//     it decodes one;
//   - each later chunk grows ×4 up to chunkMax records;
//   - and stops at chunkBytes of record data (after one record at least).
//
// The buffers are pooled: a fold of a long match reuses one buffer instead
// of allocating a chunk's worth per transaction.
const (
	chunkFirst = 16
	chunkMax   = 1024
	chunkBytes = 1 << 20

	// scanChunk bounds the entries of one outbox read (Pending).
	scanChunk = chunkMax
)

// rawRecord locates one copied record in a chunk's data.
type rawRecord struct {
	seg      int    // index into chunk.segs: the match whose bucket holds it
	key      uint64 // the sequence number it is stored under
	badKey   bool   // the stored key is not 8 bytes
	from, to int    // its bytes: data[from:to]
}

// chunk is one read transaction's worth of records, copied out of bbolt.
type chunk struct {
	segs []string
	recs []rawRecord
	data []byte
}

var chunkPool = sync.Pool{New: func() any { return &chunk{} }}

func getChunk() *chunk {
	c := chunkPool.Get().(*chunk)
	c.segs, c.recs, c.data = c.segs[:0], c.recs[:0], c.data[:0]
	return c
}

func putChunk(c *chunk) {
	if cap(c.data) > 4*chunkBytes { // one huge record: do not keep its buffer
		c.data = nil
	}
	chunkPool.Put(c)
}

// record returns rec's bytes; they live until the chunk is reused.
func (c *chunk) record(r rawRecord) []byte { return c.data[r.from:r.to:r.to] }

// read copies up to limit records of match, from seq from on, in one read
// transaction.
func (c *chunk) read(s *Store, match string, from uint64, limit int) error {
	return s.view(func(tx *bbolt.Tx) error {
		return readSegments(tx, match, from, func(seg string, k, v []byte) (bool, error) {
			if n := len(c.segs); n == 0 || c.segs[n-1] != seg {
				c.segs = append(c.segs, seg)
			}
			r := rawRecord{seg: len(c.segs) - 1, from: len(c.data)}
			if len(k) == 8 {
				r.key = binary.BigEndian.Uint64(k)
			} else {
				r.badKey = true
			}
			c.data = append(c.data, v...)
			r.to = len(c.data)
			c.recs = append(c.recs, r)
			return len(c.recs) < limit && len(c.data) < chunkBytes, nil
		})
	})
}

// scanChunks reads match from seq from on, chunk by chunk, and calls fn
// with each chunk (reused after fn returns) until fn fails, a chunk comes
// back short of its limit (the end), or ctx is done.
func (s *Store) scanChunks(ctx context.Context, match string, from uint64, fn func(*chunk) error) error {
	from = max(from, 1)
	c := getChunk()
	defer putChunk(c)
	for limit := chunkFirst; ; limit = min(limit*4, chunkMax) {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.segs, c.recs, c.data = c.segs[:0], c.recs[:0], c.data[:0]
		if err := c.read(s, match, from, limit); err != nil {
			return err
		}
		if len(c.recs) == 0 {
			return nil
		}
		if err := fn(c); err != nil {
			return err
		}
		if len(c.recs) < limit && len(c.data) < chunkBytes {
			return nil
		}
		// Go on after the last well-formed key (a damaged key of another
		// length sorts among them and has been read already).
		next := uint64(0)
		for _, r := range c.recs {
			if !r.badKey {
				next = max(next, r.key+1)
			}
		}
		if next <= from {
			return nil
		}
		from = next
	}
}
