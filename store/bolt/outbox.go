package bolt

import (
	"context"
	"encoding/binary"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/store"
)

// Pending calls fn for up to limit outbox entries (limit <= 0: all), oldest
// first, which is commit order, leaving out those acked (acks.go). Like
// Scan, it reads in chunks and calls fn outside any transaction, so fn may
// call Ack. Entries committed while Pending runs may or may not be seen.
func (s *Store) Pending(ctx context.Context, limit int, fn func(store.OutboxEntry) error) error {
	var after uint64 // last key handed to fn; keys start at 1
	buf := make([]store.OutboxEntry, 0, scanChunk)
	for sent := 0; limit <= 0 || sent < limit; {
		if err := ctx.Err(); err != nil {
			return err
		}
		want := scanChunk
		if limit > 0 {
			want = min(want, limit-sent)
		}
		buf = buf[:0]
		err := s.view(func(tx *bbolt.Tx) error {
			matches := tx.Bucket(bktMatches)
			c := tx.Bucket(bktOutbox).Cursor()
			for k, v := c.Seek(u64(after + 1)); k != nil && len(buf) < want; k, v = c.Next() {
				if s.acks.has(binary.BigEndian.Uint64(k)) {
					continue
				}
				match, seq, leaf, err := decodeOutbox(k, v)
				if err != nil {
					return err
				}
				key := u64(seq)
				var rec []byte
				if b := matches.Bucket([]byte(match)); b != nil {
					rec = b.Get(key)
				}
				if rec == nil {
					return corruptf("outbox entry %d: match %q has no event %d", binary.BigEndian.Uint64(k), match, seq)
				}
				e, err := decodeRecord(match, key, rec)
				if err != nil {
					return err
				}
				buf = append(buf, store.OutboxEntry{Key: binary.BigEndian.Uint64(k), Event: e, Leaf: leaf})
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
		if len(buf) < want {
			return nil
		}
		sent += len(buf)
		after = buf[len(buf)-1].Key
	}
	return nil
}

// Notify returns a channel that receives a value after each commit that
// added outbox entries. It is buffered(1) and sent to without blocking, so
// one receive may stand for many commits: on a signal, drain Pending.
func (s *Store) Notify() <-chan struct{} { return s.notify }
