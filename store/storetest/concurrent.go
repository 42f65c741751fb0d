package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
)

// Concurrent writers: optimistic concurrency must let exactly one of
// several racing appends win, and unrelated matches must not disturb each
// other.

func testConcurrentSameExpected(t *testing.T, s store.Store) {
	const rounds, writers, per = 5, 8, 3
	var log []events.Event
	for round := range rounds {
		var head store.Head
		if len(log) > 0 {
			last := log[len(log)-1]
			head = store.Head{Seq: last.Seq, Hash: last.Hash}
		}
		batches := make([][]events.Event, writers)
		for w := range batches {
			batches[w] = makeEvents("race", head.Seq+1, head.Hash, per, fmt.Sprintf("w%d", w))
		}
		errs := make([]error, writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				<-start
				errs[w] = s.Append(bg, "race", head.Seq, batches[w])
			})
		}
		close(start)
		wg.Wait()

		winner := -1
		for w, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: writers %d and %d both won", round, winner, w)
			case err == nil:
				winner = w
			case !errors.Is(err, store.ErrConflict):
				t.Fatalf("round %d: writer %d: %v, want nil or ErrConflict", round, w, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer won", round)
		}
		// The log is the earlier rounds plus the winner's events, whole.
		log = append(log, batches[winner]...)
		wantLog(t, s, "race", log)
		wantHead(t, s, "race", log)
	}
}

func testConcurrentManyMatches(t *testing.T, s store.Store) {
	heads := appendMany(t, s, 24, 15)
	ms, err := s.Matches(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != len(heads) {
		t.Fatalf("Matches listed %d, want %d", len(ms), len(heads))
	}
	for _, m := range ms {
		if m.Head != heads[m.ID] {
			t.Fatalf("match %q: listed head %d, want %d", m.ID, m.Head.Seq, heads[m.ID].Seq)
		}
		if got := verifyChain(t, s, m.ID); got != heads[m.ID] {
			t.Fatalf("match %q: chain ends at %d, want %d", m.ID, got.Seq, heads[m.ID].Seq)
		}
	}
}

// appendMany runs one writer per match, each making appends of 1..3 events,
// while a reader scans the matches and checks every prefix it sees is a
// valid chain. It returns the final head of each match.
func appendMany(t *testing.T, s store.Store, matches, appends int) map[string]store.Head {
	t.Helper()
	heads := make(map[string]store.Head, matches)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errc := make(chan error, matches+1)
	for m := range matches {
		id := fmt.Sprintf("match-%03d", m)
		wg.Go(func() {
			var h store.Head
			for i := range appends {
				evs := MakeEvents(id, h.Seq+1, h.Hash, 1+(m+i)%3)
				if err := s.Append(bg, id, h.Seq, evs); err != nil {
					errc <- fmt.Errorf("match %s append %d: %w", id, i, err)
					return
				}
				last := evs[len(evs)-1]
				h = store.Head{Seq: last.Seq, Hash: last.Hash}
			}
			mu.Lock()
			heads[id] = h
			mu.Unlock()
		})
	}
	done := make(chan struct{})
	var rwg sync.WaitGroup
	rwg.Go(func() {
		for {
			for m := range matches {
				select {
				case <-done:
					return
				default:
				}
				id := fmt.Sprintf("match-%03d", m)
				var prev store.Head
				err := s.Scan(bg, id, 0, func(e events.Event) error {
					if e.Seq != prev.Seq+1 {
						return fmt.Errorf("event %d after %d", e.Seq, prev.Seq)
					}
					if err := events.Verify(e, prev.Hash); err != nil {
						return err
					}
					prev = store.Head{Seq: e.Seq, Hash: e.Hash}
					return nil
				})
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					errc <- fmt.Errorf("concurrent scan of %s: %w", id, err)
					return
				}
			}
		}
	})
	wg.Wait()
	close(done)
	rwg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	return heads
}
