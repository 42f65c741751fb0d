package mem

import (
	"context"
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/store"
)

var _ store.Snapshots = (*Store)(nil)

// PutSnapshots implements store.Snapshots.
func (s *Store) PutSnapshots(ctx context.Context, match string, snaps []store.Snapshot) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snaps == nil {
		s.snaps = map[string]map[uint64][]byte{}
	}
	if s.snaps[match] == nil {
		s.snaps[match] = map[uint64][]byte{}
	}
	for _, snap := range snaps {
		s.snaps[match][snap.Seq] = slices.Clone(snap.Data)
	}
	return nil
}

// NearestSnapshot implements store.Snapshots.
func (s *Store) NearestSnapshot(ctx context.Context, match string, seq uint64) (store.Snapshot, error) {
	if err := s.checkOpen(ctx); err != nil {
		return store.Snapshot{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	best, found := uint64(0), false
	for k := range s.snaps[match] {
		if k <= seq && (!found || k > best) {
			best, found = k, true
		}
	}
	if !found {
		return store.Snapshot{}, fmt.Errorf("snapshot of match %s at or before %d: %w", match, seq, store.ErrNotFound)
	}
	return store.Snapshot{Seq: best, Data: slices.Clone(s.snaps[match][best])}, nil
}

// DeleteSnapshot implements store.Snapshots.
func (s *Store) DeleteSnapshot(ctx context.Context, match string, seq uint64) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.snaps[match], seq)
	return nil
}
