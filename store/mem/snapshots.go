package mem

import (
	"context"
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/store"
)

var _ store.Snapshots = (*Store)(nil)

// PutSnapshots implements store.Snapshots.
func (s *Store) PutSnapshots(ctx context.Context, match string, snaps map[uint64][]byte) error {
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
	for seq, data := range snaps {
		s.snaps[match][seq] = slices.Clone(data)
	}
	return nil
}

// NearestSnapshot implements store.Snapshots.
func (s *Store) NearestSnapshot(ctx context.Context, match string, seq uint64) (uint64, []byte, error) {
	if err := s.checkOpen(ctx); err != nil {
		return 0, nil, err
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
		return 0, nil, fmt.Errorf("snapshot of match %s at or before %d: %w", match, seq, store.ErrNotFound)
	}
	return best, slices.Clone(s.snaps[match][best]), nil
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
