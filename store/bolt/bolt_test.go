package bolt_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

var bg = context.Background()

// openTest opens a store on a new file in t's temp dir, and on cleanup
// closes it and runs the full consistency check on what it left behind.
func openTest(t *testing.T, opts bolt.Options) *bolt.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "matchrec.db")
	s, err := bolt.Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := bolt.Check(path); err != nil {
			t.Errorf("Check after the test: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTest(t, bolt.Options{}) })
}

// TestConformanceSmallBatch runs the suite with one request per
// transaction, the degenerate group commit.
func TestConformanceSmallBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("the default-options run covers the logic")
	}
	storetest.Run(t, func(t *testing.T) store.Store { return openTest(t, bolt.Options{MaxBatch: 1, NoSync: true}) })
}

func TestReopenKeepsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "matchrec.db")
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := storetest.MakeEvents("a", 1, events.Hash{}, 4)
	if err := s.Append(bg, "a", 0, a); err != nil {
		t.Fatal(err)
	}
	var keys []uint64
	if err := s.Pending(bg, 0, func(e store.OutboxEntry) error {
		keys = append(keys, e.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Ack(bg, keys); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	h, err := s.Head(bg, "a")
	if err != nil || h.Seq != 4 || h.Hash != a[3].Hash {
		t.Fatalf("head after reopen: %+v, %v", h, err)
	}
	more := storetest.MakeEvents("a", 5, a[3].Hash, 1)
	if err := s.Append(bg, "a", 4, more); err != nil {
		t.Fatalf("append after reopen: %v", err)
	}
	var got []store.OutboxEntry
	if err := s.Pending(bg, 0, func(e store.OutboxEntry) error {
		got = append(got, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Event.Seq != 5 || got[0].Key <= keys[len(keys)-1] {
		t.Fatalf("outbox after reopen: %+v (acked keys up to %d)", got, keys[len(keys)-1])
	}
	if err := s.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
}

func TestOpenLocked(t *testing.T) {
	t.Parallel() // Check waits out its one-second lock timeout
	s := openTest(t, bolt.Options{NoSync: true})
	start := time.Now()
	_, err := bolt.Open(s.Path(), bolt.Options{Timeout: 100 * time.Millisecond})
	if !errors.Is(err, bolt.ErrLocked) {
		t.Fatalf("second Open of a held file: %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("second Open waited %s for a 100ms timeout", d)
	}
	if err := bolt.Check(s.Path()); !errors.Is(err, bolt.ErrLocked) {
		t.Fatalf("Check of an open file: %v, want ErrLocked", err)
	}
}

// TestGroupCommitBatchesConflicts races many appends with the same expected
// seq, most of which land in one transaction: the check against the head
// must see the batch's earlier writes, so exactly one wins.
func TestGroupCommitBatchesConflicts(t *testing.T) {
	s := openTest(t, bolt.Options{})
	const writers = 64
	errs := make([]error, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range writers {
		evs := storetest.MakeEvents("m", 1, events.Hash{}, 1)
		wg.Go(func() {
			<-start
			errs[w] = s.Append(bg, "m", 0, evs)
		})
	}
	close(start)
	wg.Wait()
	var won int
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict):
			t.Fatalf("append: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d appends won, want 1", won)
	}
}

// TestCancelWhileQueued: a request whose context ends before the writer
// takes it writes nothing and returns the context's error.
func TestCancelWhileQueued(t *testing.T) {
	s := openTest(t, bolt.Options{})
	ctx, cancel := context.WithTimeout(bg, time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	evs := storetest.MakeEvents("m", 1, events.Hash{}, 1)
	if err := s.Append(ctx, "m", 0, evs); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Append with an expired context: %v", err)
	}
	if _, err := s.Head(bg, "m"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired append left a match: %v", err)
	}
}

// TestCancelRace: whatever Append returns under a racing deadline must be
// true: nil means stored, a context error means not stored.
func TestCancelRace(t *testing.T) {
	s := openTest(t, bolt.Options{})
	var wg sync.WaitGroup
	results := make([]error, 200)
	for i := range results {
		id := "m" + string(rune('A'+i%26)) + string(rune('a'+i/26))
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(bg, time.Duration(i%20)*100*time.Microsecond)
			defer cancel()
			results[i] = s.Append(ctx, id, 0, storetest.MakeEvents(id, 1, events.Hash{}, 1))
		})
	}
	wg.Wait()
	for i, err := range results {
		id := "m" + string(rune('A'+i%26)) + string(rune('a'+i/26))
		_, herr := s.Head(bg, id)
		switch {
		case err == nil && herr != nil:
			t.Fatalf("%s: Append succeeded but Head says %v", id, herr)
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			t.Fatalf("%s: Append: %v", id, err)
		case err != nil && herr == nil:
			t.Fatalf("%s: Append returned %v but the event was stored", id, err)
		}
	}
}

func TestOpenForeignFile(t *testing.T) {
	dir := t.TempDir()

	// Someone else's bbolt file: refused, and left as it was.
	foreign := filepath.Join(dir, "foreign.db")
	db, err := bbolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket([]byte("theirs"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if _, err := bolt.Open(foreign, bolt.Options{}); !errors.Is(err, bolt.ErrFormat) {
		t.Fatalf("Open of a foreign bbolt file: %v, want ErrFormat", err)
	}
	if err := bolt.Check(foreign); !errors.Is(err, bolt.ErrFormat) {
		t.Fatalf("Check of a foreign bbolt file: %v, want ErrFormat", err)
	}

	// Not a bbolt file at all.
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("matchrec"), 1024), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := bolt.Open(junk, bolt.Options{}); err == nil {
		_ = s.Close()
		t.Fatal("Open of a non-bbolt file succeeded")
	}

	// A new store checks clean; a missing file does not.
	fresh := filepath.Join(dir, "fresh.db")
	s, err := bolt.Open(fresh, bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := bolt.Check(fresh); err != nil {
		t.Fatalf("Check of an empty store: %v", err)
	}
	if err := bolt.Check(filepath.Join(dir, "missing.db")); err == nil {
		t.Fatal("Check of a missing file succeeded")
	}
}

// TestCheckFindsDamage damages a closed store through raw bbolt, one way
// at a time, and expects Check to say ErrCorrupt: a check that never fails
// would make the crash test vacuous.
func TestCheckFindsDamage(t *testing.T) {
	damage := map[string]func(tx *bbolt.Tx) error{
		"gap": func(tx *bbolt.Tx) error {
			return tx.Bucket([]byte("matches")).Bucket([]byte("a")).Delete(be(2))
		},
		"lost tail": func(tx *bbolt.Tx) error {
			return tx.Bucket([]byte("matches")).Bucket([]byte("a")).Delete(be(3))
		},
		"record swapped": func(tx *bbolt.Tx) error {
			b := tx.Bucket([]byte("matches")).Bucket([]byte("a"))
			v := append([]byte(nil), b.Get(be(3))...)
			return b.Put(be(2), v)
		},
		"edited event": func(tx *bbolt.Tx) error {
			b := tx.Bucket([]byte("matches")).Bucket([]byte("a"))
			e := storetest.MakeEvents("a", 2, events.Hash{}, 1)[0] // right seq, wrong chain
			return b.Put(be(2), events.Marshal(e))
		},
		"stale head": func(tx *bbolt.Tx) error {
			h := tx.Bucket([]byte("heads"))
			v := append([]byte(nil), h.Get([]byte("a"))...)
			v[7] = 2
			return h.Put([]byte("a"), v)
		},
		"dangling outbox": func(tx *bbolt.Tx) error {
			return tx.Bucket([]byte("outbox")).Put(be(1), append(be(9), 'a'))
		},
	}
	for name, fn := range damage {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "matchrec.db")
			s, err := bolt.Open(path, bolt.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(bg, "a", 0, storetest.MakeEvents("a", 1, events.Hash{}, 3)); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			if err := bolt.Check(path); err != nil {
				t.Fatalf("Check before damage: %v", err)
			}
			db, err := bbolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(fn)
			_ = db.Close()
			if err != nil {
				t.Fatal(err)
			}
			if err := bolt.Check(path); !errors.Is(err, bolt.ErrCorrupt) {
				t.Fatalf("Check after damage: %v, want ErrCorrupt", err)
			}
		})
	}
}

func be(n uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, n)
	return b
}

// TestCheckWhileWriting runs the online Check against concurrent appends
// (under -race this is what shows it does not read the freelist unlocked).
func TestCheckWhileWriting(t *testing.T) {
	s := openTest(t, bolt.Options{NoSync: true})
	done := make(chan struct{})
	var wg sync.WaitGroup
	for m := range 4 {
		id := fmt.Sprintf("m%d", m)
		wg.Go(func() {
			var h store.Head
			for {
				select {
				case <-done:
					return
				default:
				}
				evs := storetest.MakeEvents(id, h.Seq+1, h.Hash, 2)
				if err := s.Append(bg, id, h.Seq, evs); err != nil {
					t.Error(err)
					return
				}
				h = store.Head{Seq: evs[1].Seq, Hash: evs[1].Hash}
			}
		})
	}
	for range 5 {
		if err := s.Check(); err != nil {
			t.Error(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(done)
	wg.Wait()
}
