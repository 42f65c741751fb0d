package bolt_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

// indexFixture records three matches (m2 ended) and a branch of m1 into
// a store at path and returns their entries.
func indexFixture(t *testing.T, path string) map[string]store.MatchEntry {
	t.Helper()
	s, err := bolt.Open(path, bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"m1", "m2", "m3"} {
		if err := s.Append(bg, id, 0, storetest.IndexedMatch(id, "3e", "Match "+id, int64(i)*100, 5, id == "m2")); err != nil {
			t.Fatal(err)
		}
	}
	m1 := storetest.IndexedMatch("m1", "3e", "Match m1", 0, 5, false)
	own, err := events.New("b", 4, m1[2].Hash, m1[2].Time+1, events.Actor{Kind: events.ActorSystem}, events.BranchCreated{Parent: "m1", At: 3, Name: "if"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Branch(bg, "b", "m1", 3, []events.Event{own}); err != nil {
		t.Fatal(err)
	}
	out := map[string]store.MatchEntry{}
	for _, id := range []string{"m1", "m2", "m3", "b"} {
		if out[id], err = s.MatchEntry(bg, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameButRev compares entries ignoring their revisions.
func sameButRev(a, b store.MatchEntry) bool {
	a.Rev, b.Rev = 0, 0
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// A data directory written before the index existed (no index buckets)
// gets its index built from the events when it opens: the same entries,
// listed in the order of their last events.
func TestIndexBuiltOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "matchrec.db")
	want := indexFixture(t, path)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, name := range []string{"ix-matches", "ix-rev", "ix-created"} {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("info")).Delete([]byte("index"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path)
	for id, w := range want {
		got, err := s.MatchEntry(bg, id)
		if err != nil || !sameButRev(got, w) {
			t.Fatalf("rebuilt entry of %s:\n got %+v (%v)\nwant %+v", id, got, err, w)
		}
	}
	p, err := s.ListMatches(bg, store.MatchQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range p.Matches {
		got = append(got, e.ID)
	}
	// By the times of their last events (b's own event follows m1's
	// third, before m1's fifth).
	if !slices.Equal(got, []string{"m3", "m2", "m1", "b"}) {
		t.Fatalf("rebuilt index lists %v", got)
	}
}

// An entry that disagrees with its match's head (events appended by a
// build that did not keep the index) is rebuilt when the store opens, and
// listed once.
func TestIndexStaleEntryRebuilt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "matchrec.db")
	want := indexFixture(t, path)
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("ix-matches"))
		v := slices.Clone(b.Get([]byte("m2")))
		binary.BigEndian.PutUint64(v, 2) // an older head
		return b.Put([]byte("m2"), v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path)
	got, err := s.MatchEntry(bg, "m2")
	if err != nil || !sameButRev(got, want["m2"]) || got.Rev <= want["b"].Rev {
		t.Fatalf("m2 after reopening: %+v %v; want %+v with a new revision", got, err, want["m2"])
	}
	p, err := s.ListMatches(bg, store.MatchQuery{Limit: 10})
	if err != nil || len(p.Matches) != 4 || p.Matches[0].ID != "m2" {
		t.Fatalf("listing after the rebuild: %+v %v", p, err)
	}
}

func openAt(t *testing.T, path string) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		if err := bolt.Check(path); err != nil {
			t.Errorf("Check: %v", err)
		}
	})
	return s
}

// BenchmarkListMatches lists pages of a store of 100,000 matches
// (MATCHREC_BENCH_INDEX_MATCHES to change it; the store is built once per
// run, with NoSync): the first page in each order, a page of changes, and
// filtered pages; beside what the matches verb read before the index (every
// match's head and event 1); and the time Open takes to check the index.
func BenchmarkListMatches(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MATCHREC_BENCH_INDEX_MATCHES")); err == nil && v > 0 {
		n = v
	}
	path := filepath.Join(b.TempDir(), "matchrec.db")
	s, err := bolt.Open(path, bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				id := fmt.Sprintf("m%06d", i)
				ed := []string{"3e", "6e", "11e"}[i%3]
				if err := s.Append(bg, id, 0, storetest.IndexedMatch(id, ed, "Match "+id, int64(i), 4, i%4 == 0)); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	b.Logf("recorded %d matches in %s", n, time.Since(start).Round(time.Millisecond))
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	if s, err = bolt.Open(path, bolt.Options{}); err != nil {
		b.Fatal(err)
	}
	b.Logf("Open with %d index entries to check: %s", n, time.Since(t0).Round(time.Millisecond))
	defer s.Close()
	rev, err := s.ListMatches(bg, store.MatchQuery{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	// What the matches verb did before the index, for comparison: every
	// match's head, and its event 1 for the name, edition and players.
	b.Run("before-index-all-matches", func(b *testing.B) {
		for b.Loop() {
			infos, err := s.Matches(bg)
			if err != nil {
				b.Fatal(err)
			}
			for _, mi := range infos {
				err := s.Scan(bg, mi.ID, 1, func(e events.Event) error {
					var mc events.MatchCreated
					if err := events.DecodeValue(e.Payload, &mc); err != nil {
						return err
					}
					return events.ErrStop
				})
				if err != nil && err != events.ErrStop {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(n), "rows")
	})
	for _, c := range []struct {
		name string
		q    store.MatchQuery
	}{
		{"updated", store.MatchQuery{}},
		{"created", store.MatchQuery{Sort: store.SortCreated}},
		{"since", store.MatchQuery{Since: rev.Rev - 100}},
		{"status=ended", store.MatchQuery{Status: store.StatusEnded}},
		{"edition=11e", store.MatchQuery{Edition: "11e"}},
		{"text=m09999", store.MatchQuery{Text: "m09999"}},
		{"page-1000", store.MatchQuery{Cursor: fmt.Sprintf("%016x", rev.Rev-50_000)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var rows int
			for b.Loop() {
				p, err := s.ListMatches(bg, c.q)
				if err != nil {
					b.Fatal(err)
				}
				rows = len(p.Matches)
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
