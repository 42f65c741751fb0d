package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/store"
)

// Snapshots of projected states are a cache beside the log:
//
//	snapshots/<match id>/<seq>    encoded state
//
// They are written in their own small transactions (not the group commit):
// losing one to a crash costs a longer fold, never an event.
var bktSnapshots = []byte("snapshots")

var _ store.Snapshots = (*Store)(nil)

// PutSnapshots implements store.Snapshots.
func (s *Store) PutSnapshots(ctx context.Context, match string, snaps map[uint64][]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return store.ErrClosed
	}
	err := s.db.Update(func(tx *bbolt.Tx) error {
		root, err := tx.CreateBucketIfNotExists(bktSnapshots)
		if err != nil {
			return err
		}
		b, err := root.CreateBucketIfNotExists([]byte(match))
		if err != nil {
			return err
		}
		for seq, data := range snaps {
			if err := b.Put(u64(seq), bytes.Clone(data)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store snapshots of match %s: %w", match, err)
	}
	return nil
}

// NearestSnapshot implements store.Snapshots.
func (s *Store) NearestSnapshot(ctx context.Context, match string, seq uint64) (uint64, []byte, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	var (
		at  uint64
		out []byte
	)
	err := s.view(func(tx *bbolt.Tx) error {
		root := tx.Bucket(bktSnapshots)
		if root == nil {
			return nil
		}
		b := root.Bucket([]byte(match))
		if b == nil {
			return nil
		}
		c := b.Cursor()
		k, v := c.Seek(u64(seq))
		if k == nil || binary.BigEndian.Uint64(k) > seq {
			k, v = c.Prev()
		}
		if k != nil && len(k) == 8 {
			at, out = binary.BigEndian.Uint64(k), bytes.Clone(v)
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	if out == nil {
		return 0, nil, fmt.Errorf("snapshot of match %s at or before %d: %w", match, seq, store.ErrNotFound)
	}
	return at, out, nil
}

// DeleteSnapshot implements store.Snapshots.
func (s *Store) DeleteSnapshot(ctx context.Context, match string, seq uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return store.ErrClosed
	}
	return s.db.Update(func(tx *bbolt.Tx) error {
		if root := tx.Bucket(bktSnapshots); root != nil {
			if b := root.Bucket([]byte(match)); b != nil {
				return b.Delete(u64(seq))
			}
		}
		return nil
	})
}
