package mem

import (
	"context"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

var _ store.RawScanner = (*Store)(nil)

// ScanRaw implements store.RawScanner with freshly marshalled records.
func (s *Store) ScanRaw(ctx context.Context, match string, from uint64, fn func(key uint64, record []byte) error) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	m := s.matches[match]
	var evs []events.Event
	if m != nil {
		evs = m.evs
	}
	s.mu.Unlock()
	if m == nil {
		return fmt.Errorf("%w: %q", store.ErrNotFound, match)
	}
	for _, e := range evs {
		if e.Seq < from {
			continue
		}
		if err := fn(e.Seq, events.Marshal(e)); err != nil {
			return err
		}
	}
	return nil
}
