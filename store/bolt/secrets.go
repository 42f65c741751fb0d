package bolt

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/store"
)

// Secret dice seeds live in their own bucket, never in an event:
//
//	secrets/<match id>/<epoch as decimal>    seed bytes
//
// They are written in a direct fsync'd transaction (not through the group
// commit) because the recorder must have the seed on disk before the
// commitment to it is appended.
var bktSecrets = []byte("secrets")

var _ store.Secrets = (*Store)(nil)

// PutSecret implements store.Secrets.
func (s *Store) PutSecret(ctx context.Context, match string, epoch int, secret []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return store.ErrClosed
	}
	err := s.db.Update(func(tx *bbolt.Tx) error {
		root, err := tx.CreateBucketIfNotExists(bktSecrets)
		if err != nil {
			return err
		}
		b, err := root.CreateBucketIfNotExists([]byte(match))
		if err != nil {
			return err
		}
		return b.Put([]byte(strconv.Itoa(epoch)), bytes.Clone(secret))
	})
	if err != nil {
		return fmt.Errorf("store secret of match %s epoch %d: %w", match, epoch, err)
	}
	return nil
}

// Secret implements store.Secrets.
func (s *Store) Secret(ctx context.Context, match string, epoch int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []byte
	err := s.view(func(tx *bbolt.Tx) error {
		if root := tx.Bucket(bktSecrets); root != nil {
			if b := root.Bucket([]byte(match)); b != nil {
				out = bytes.Clone(b.Get([]byte(strconv.Itoa(epoch))))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("secret of match %s epoch %d: %w", match, epoch, store.ErrNotFound)
	}
	return out, nil
}
