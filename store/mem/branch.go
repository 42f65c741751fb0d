package mem

import (
	"context"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

var _ store.Brancher = (*Store)(nil)

// Branch implements store.Brancher. Unlike the bbolt backend, which keeps
// a pointer, the in-memory store copies the inherited events (they are
// immutable, so a copy reads the same); the behaviour is the same.
func (s *Store) Branch(ctx context.Context, id, parent string, at uint64, evs []events.Event) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := store.CheckAppend(id, at, evs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.matches[id] != nil {
		return fmt.Errorf("%w: match %q already exists", store.ErrConflict, id)
	}
	p := s.matches[parent]
	if p == nil {
		return fmt.Errorf("%w: parent match %q", store.ErrNotFound, parent)
	}
	if at < 1 || at > uint64(len(p.evs)) {
		return fmt.Errorf("%w: match %q has events 1..%d, cannot branch at %d", store.ErrInvalid, parent, len(p.evs), at)
	}
	if evs[0].PrevHash != p.evs[at-1].Hash {
		return fmt.Errorf("%w: branch %q event %d: prev_hash does not link to %q event %d", store.ErrInvalid, id, at+1, parent, at)
	}
	l := &matchLog{parent: parent, at: at, evs: make([]events.Event, 0, int(at)+len(evs))}
	l.evs = append(l.evs, p.evs[:at]...)
	for _, e := range evs {
		l.evs = append(l.evs, clone(e))
		s.nextKey++
		s.outbox = append(s.outbox, outboxRef{key: s.nextKey, match: id, seq: e.Seq})
	}
	s.matches[id] = l
	start := store.BranchEntry(*s.entries[parent], id, at)
	s.index(id, l.evs[at:], &start)
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return nil
}

// Lineage implements store.Brancher.
func (s *Store) Lineage(ctx context.Context, id string) ([]events.BranchPoint, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.matches[id] == nil {
		return nil, fmt.Errorf("%w: %q", store.ErrNotFound, id)
	}
	out := []events.BranchPoint{{Match: id}}
	for cur := s.matches[id]; cur != nil && cur.parent != ""; cur = s.matches[cur.parent] {
		out = append([]events.BranchPoint{{Match: cur.parent, Upto: cur.at}}, out...)
	}
	return out, nil
}
