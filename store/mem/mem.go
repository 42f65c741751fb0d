// Package mem is an in-memory store.Store and store.Outbox for unit tests
// of logic that sits on a store. It honours the same contract as the bbolt
// backend (both pass store/storetest), minus durability: everything is lost
// when the process ends.
package mem

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Store keeps every match's events in a slice behind one mutex. The zero
// value is not usable; call New.
type Store struct {
	mu      sync.Mutex
	closed  bool
	matches map[string]*matchLog
	outbox  []outboxRef // ascending Key = commit order
	nextKey uint64      // last outbox key handed out; never reused
	notify  chan struct{}
	secrets map[secretKey][]byte
	snaps   map[string]map[uint64][]byte
	reqs    map[string]map[string]store.Request // match → request key → entry
	entries map[string]*store.MatchEntry        // the match index (index.go)
	rev     uint64                              // the index revision
}

// matchLog is one match. evs only grows, and its elements are never modified
// once appended, so a reader may keep a sub-slice after unlocking.
type matchLog struct {
	evs    []events.Event
	parent string // for a branch: the match and event it was forked from
	at     uint64
}

type outboxRef struct {
	key   uint64
	match string
	seq   uint64
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Outbox   = (*Store)(nil)
	_ store.Requests = (*Store)(nil)
)

// New returns an empty store.
func New() *Store {
	return &Store{matches: map[string]*matchLog{}, notify: make(chan struct{}, 1), entries: map[string]*store.MatchEntry{}}
}

// Append implements store.Store. The checks and their order match the bbolt
// backend: malformed input is ErrInvalid before a stale expected seq is
// ErrConflict; then a first PrevHash that does not link to the head is
// ErrInvalid. The events are copied, so the caller may reuse evs.
func (s *Store) Append(ctx context.Context, match string, expected uint64, evs []events.Event) error {
	return s.append(ctx, match, expected, evs, nil, store.Request{})
}

// AppendRequest implements store.Requests.
func (s *Store) AppendRequest(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req store.Request) error {
	if len(key) == 0 {
		return fmt.Errorf("%w: match %q: empty request key", store.ErrInvalid, match)
	}
	return s.append(ctx, match, expected, evs, key, req)
}

// Request implements store.Requests.
func (s *Store) Request(ctx context.Context, match string, key []byte) (store.Request, error) {
	if err := s.checkOpen(ctx); err != nil {
		return store.Request{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reqs[match][string(key)]
	if !ok {
		return store.Request{}, fmt.Errorf("request of match %s: %w", match, store.ErrNotFound)
	}
	return r, nil
}

func (s *Store) append(ctx context.Context, match string, expected uint64, evs []events.Event, key []byte, req store.Request) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := store.CheckAppend(match, expected, evs); err != nil {
		return err
	}
	cp := make([]events.Event, len(evs))
	for i, e := range evs {
		cp[i] = clone(e)
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	if _, dup := s.reqs[match][string(key)]; key != nil && dup {
		s.mu.Unlock()
		return fmt.Errorf("%w: match %q", store.ErrDuplicate, match)
	}
	l := s.matches[match]
	var head store.Head
	if l != nil {
		last := l.evs[len(l.evs)-1]
		head = store.Head{Seq: last.Seq, Hash: last.Hash}
	}
	if expected != head.Seq {
		s.mu.Unlock()
		return fmt.Errorf("%w: match %q: expected seq %d, head is %d", store.ErrConflict, match, expected, head.Seq)
	}
	if evs[0].PrevHash != head.Hash {
		s.mu.Unlock()
		return fmt.Errorf("%w: match %q event %d: prev_hash does not link to the head", store.ErrInvalid, match, expected+1)
	}
	if l == nil {
		l = &matchLog{}
		s.matches[match] = l
	}
	l.evs = append(l.evs, cp...)
	if key != nil {
		if s.reqs == nil {
			s.reqs = map[string]map[string]store.Request{}
		}
		if s.reqs[match] == nil {
			s.reqs[match] = map[string]store.Request{}
		}
		s.reqs[match][string(key)] = req
	}
	s.index(match, cp, nil)
	for _, e := range cp {
		s.nextKey++
		s.outbox = append(s.outbox, outboxRef{key: s.nextKey, match: match, seq: e.Seq})
	}
	s.mu.Unlock()

	select {
	case s.notify <- struct{}{}:
	default:
	}
	return nil
}

// Scan implements store.Store. fn runs without the lock held, so it may
// call back into the store.
func (s *Store) Scan(ctx context.Context, match string, from uint64, fn func(events.Event) error) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	l := s.matches[match]
	var evs []events.Event
	if l != nil {
		evs = l.evs // safe after unlock: see matchLog
	}
	s.mu.Unlock()
	if l == nil {
		return fmt.Errorf("%w: %q", store.ErrNotFound, match)
	}
	if from > 1 {
		evs = evs[min(from-1, uint64(len(evs))):]
	}
	for _, e := range evs {
		if err := fn(clone(e)); err != nil {
			return err
		}
	}
	return nil
}

// Head implements store.Store.
func (s *Store) Head(ctx context.Context, match string) (store.Head, error) {
	if err := s.checkOpen(ctx); err != nil {
		return store.Head{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.matches[match]
	if l == nil {
		return store.Head{}, fmt.Errorf("%w: %q", store.ErrNotFound, match)
	}
	last := l.evs[len(l.evs)-1]
	return store.Head{Seq: last.Seq, Hash: last.Hash}, nil
}

// Matches implements store.Store.
func (s *Store) Matches(ctx context.Context) ([]store.MatchInfo, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	out := make([]store.MatchInfo, 0, len(s.matches))
	for id, l := range s.matches {
		last := l.evs[len(l.evs)-1]
		out = append(out, store.MatchInfo{
			ID:      id,
			Head:    store.Head{Seq: last.Seq, Hash: last.Hash},
			Created: l.evs[0].Time,
			Parent:  l.parent,
			At:      l.at,
		})
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b store.MatchInfo) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Close implements store.Store. Later calls return store.ErrClosed;
// closing twice is a no-op.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

// Pending implements store.Outbox (limit <= 0: all). fn runs without the
// lock held, so it may call Ack.
func (s *Store) Pending(ctx context.Context, limit int, fn func(store.OutboxEntry) error) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	refs := s.outbox
	if limit > 0 && len(refs) > limit {
		refs = refs[:limit]
	}
	entries := make([]store.OutboxEntry, len(refs))
	for i, r := range refs {
		entries[i] = store.OutboxEntry{Key: r.key, Event: clone(s.matches[r.match].evs[r.seq-1]), Leaf: -1}
	}
	s.mu.Unlock()
	for _, e := range entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Ack implements store.Outbox; unknown keys are ignored.
func (s *Store) Ack(ctx context.Context, keys []uint64) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	drop := make(map[uint64]bool, len(keys))
	for _, k := range keys {
		drop[k] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	s.outbox = slices.DeleteFunc(s.outbox, func(r outboxRef) bool { return drop[r.key] })
	return nil
}

// Notify implements store.Outbox: a buffered(1) channel signalled, without
// blocking, after each append.
func (s *Store) Notify() <-chan struct{} { return s.notify }

// checkOpen reports ErrClosed first, then ctx's error.
func (s *Store) checkOpen(ctx context.Context) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return store.ErrClosed
	}
	return ctx.Err()
}

// clone gives each caller its own payload bytes, as decoding a stored
// record would: no caller can change what another one reads.
func clone(e events.Event) events.Event {
	e.Payload = slices.Clone(e.Payload)
	if e.Auth != nil {
		e.Auth = &events.Auth{Statement: slices.Clone(e.Auth.Statement), Signature: slices.Clone(e.Auth.Signature)}
	}
	return e
}
