package mem

import (
	"context"
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/store"
)

var _ store.Secrets = (*Store)(nil)

type secretKey struct {
	match string
	epoch int
}

// PutSecret implements store.Secrets.
func (s *Store) PutSecret(ctx context.Context, match string, epoch int, secret []byte) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.secrets == nil {
		s.secrets = map[secretKey][]byte{}
	}
	s.secrets[secretKey{match, epoch}] = slices.Clone(secret)
	return nil
}

// Secret implements store.Secrets.
func (s *Store) Secret(ctx context.Context, match string, epoch int) ([]byte, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.secrets[secretKey{match, epoch}]
	if !ok {
		return nil, fmt.Errorf("secret of match %s epoch %d: %w", match, epoch, store.ErrNotFound)
	}
	return slices.Clone(v), nil
}
