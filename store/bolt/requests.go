package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/store"
)

// The request index (store.Requests) has its own bucket, created on the
// first indexed append, so files written before it open unchanged:
//
//	requests/<match id>/<key>    statement sum (32) | first seq (8) | last seq (8)
//
// Entries are written by the group commit in the transaction of the
// command's events (writer.go).
var bktRequests = []byte("requests")

var _ store.Requests = (*Store)(nil)

const requestLen = 32 + 8 + 8

func requestValue(r store.Request) []byte {
	b := make([]byte, requestLen)
	copy(b, r.Statement[:])
	binary.BigEndian.PutUint64(b[32:], r.First)
	binary.BigEndian.PutUint64(b[40:], r.Last)
	return b
}

// Request implements store.Requests.
func (s *Store) Request(ctx context.Context, match string, key []byte) (store.Request, error) {
	if err := ctx.Err(); err != nil {
		return store.Request{}, err
	}
	var v []byte
	err := s.view(func(tx *bbolt.Tx) error {
		if root := tx.Bucket(bktRequests); root != nil {
			if b := root.Bucket([]byte(match)); b != nil {
				v = bytes.Clone(b.Get(key))
			}
		}
		return nil
	})
	if err != nil {
		return store.Request{}, err
	}
	if v == nil {
		return store.Request{}, fmt.Errorf("request of match %s: %w", match, store.ErrNotFound)
	}
	if len(v) != requestLen {
		return store.Request{}, fmt.Errorf("%w: match %q: request entry of %d bytes", ErrCorrupt, match, len(v))
	}
	var r store.Request
	copy(r.Statement[:], v)
	r.First = binary.BigEndian.Uint64(v[32:])
	r.Last = binary.BigEndian.Uint64(v[40:])
	return r, nil
}
