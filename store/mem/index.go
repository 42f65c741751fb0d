package mem

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

var _ store.Index = (*Store)(nil)

// index applies evs, just appended to match, to its entry under a new
// revision; start is the entry a new branch starts from. s.mu is held.
func (s *Store) index(match string, evs []events.Event, start *store.MatchEntry) {
	e := s.entries[match]
	if e == nil {
		e = &store.MatchEntry{ID: match}
		if start != nil {
			*e = *start
		}
		s.entries[match] = e
	}
	store.ApplyIndex(e, evs)
	s.rev++
	e.Rev = s.rev
}

// MatchEntry implements store.Index.
func (s *Store) MatchEntry(ctx context.Context, id string) (store.MatchEntry, error) {
	if err := s.checkOpen(ctx); err != nil {
		return store.MatchEntry{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[id]
	if e == nil {
		return store.MatchEntry{}, fmt.Errorf("%w: %q", store.ErrNotFound, id)
	}
	return *e, nil
}

// ListMatches implements store.Index by sorting every entry: the
// in-memory store is for tests, where matches are few.
func (s *Store) ListMatches(ctx context.Context, q store.MatchQuery) (store.MatchPage, error) {
	if err := s.checkOpen(ctx); err != nil {
		return store.MatchPage{}, err
	}
	if err := q.Check(); err != nil {
		return store.MatchPage{}, err
	}
	start, _ := q.Start() // checked by Check
	s.mu.Lock()
	all := make([]store.MatchEntry, 0, len(s.entries))
	for _, e := range s.entries {
		all = append(all, *e)
	}
	rev := s.rev
	s.mu.Unlock()

	dir := -1 // newest first
	if q.Forward() {
		dir = 1
	}
	slices.SortFunc(all, func(a, b store.MatchEntry) int { return dir * bytes.Compare(q.OrderKey(&a), q.OrderKey(&b)) })
	pb := store.NewPage(&q, rev)
	for i := range all {
		key := q.OrderKey(&all[i])
		if start != nil && dir*bytes.Compare(key, start) <= 0 {
			continue
		}
		more, _ := pb.Add(key, store.FilterRecord(&all[i]), func() (store.MatchEntry, error) { return all[i], nil })
		if !more {
			break
		}
	}
	return pb.Page(), nil
}
