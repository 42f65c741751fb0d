package bolt_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

// Benchmarks come in pairs for docs/PERFORMANCE.md: our full path
// (AppendGroupCommit, StoreScanDecode) beside bbolt doing the same I/O with
// nothing of ours around it (RawBoltBatch, ScanDecode). The raw figures are
// the ceiling the dependency allows on this machine.

const (
	benchMatches    = 500     // concurrent writers, one match each
	benchScanEvents = 100_000 // events in the scanned match
)

// benchChains returns per events of each of benchMatches matches.
func benchChains(per int) [][]events.Event {
	chains := make([][]events.Event, benchMatches)
	for m := range chains {
		chains[m] = storetest.MakeEvents(fmt.Sprintf("bench-%03d", m), 1, events.Hash{}, per)
	}
	return chains
}

// runWriters runs benchMatches goroutines, each writing its own chain one
// event at a time through write, until b.N events are written in total.
func runWriters(b *testing.B, chains [][]events.Event, write func(m, i int) error) {
	var budget atomic.Int64
	budget.Store(int64(b.N))
	var wg sync.WaitGroup
	errc := make(chan error, len(chains))
	b.ResetTimer()
	start := time.Now()
	for m := range chains {
		wg.Go(func() {
			for i := range chains[m] {
				if budget.Add(-1) < 0 {
					return
				}
				if err := write(m, i); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errc)
	for err := range errc {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
}

// BenchmarkAppendGroupCommit is our write path: 500 matches appending one
// event per Append concurrently, with real fsync, validation and hashing
// in the callers, head and outbox records written with every event.
func BenchmarkAppendGroupCommit(b *testing.B) {
	chains := benchChains(b.N/benchMatches + 1)
	s, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	runWriters(b, chains, func(m, i int) error {
		e := chains[m][i]
		return s.Append(bg, e.Match, uint64(i), chains[m][i:i+1])
	})
}

// BenchmarkAppendSingleWriter is one match appending one event at a time:
// every Append waits for its own fsync, so this is the commit latency
// group commit amortises.
func BenchmarkAppendSingleWriter(b *testing.B) {
	evs := storetest.MakeEvents("single", 1, events.Hash{}, b.N)
	s, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for i := range evs {
		if err := s.Append(bg, "single", uint64(i), evs[i:i+1]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkRawBoltBatch is the dependency's figure for the same writes:
// the same encoded records from the same number of goroutines through
// bbolt's own db.Batch (default batching, real fsync), into the same
// bucket layout, with no validation, head, outbox or group-commit writer.
func BenchmarkRawBoltBatch(b *testing.B) {
	chains := benchChains(b.N/benchMatches + 1)
	records := make([][][]byte, len(chains))
	for m, c := range chains {
		records[m] = make([][]byte, len(c))
		for i, e := range c {
			records[m][i] = events.Marshal(e)
		}
	}
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket([]byte("matches"))
		return err
	}); err != nil {
		b.Fatal(err)
	}
	runWriters(b, chains, func(m, i int) error {
		name := []byte(chains[m][i].Match)
		return db.Batch(func(tx *bbolt.Tx) error {
			bkt, err := tx.Bucket([]byte("matches")).CreateBucketIfNotExists(name)
			if err != nil {
				return err
			}
			return bkt.Put(be(uint64(i)+1), records[m][i])
		})
	})
}

var scanFixture struct {
	once sync.Once
	evs  []events.Event
}

// scanFile writes benchScanEvents events of one match to a new store file
// (NoSync: only reading is measured) and returns its path.
func scanFile(b *testing.B) (path, match string) {
	scanFixture.once.Do(func() {
		scanFixture.evs = storetest.MakeEvents("scan", 1, events.Hash{}, benchScanEvents)
	})
	path = filepath.Join(b.TempDir(), "scan.db")
	s, err := bolt.Open(path, bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	evs := scanFixture.evs
	for i := 0; i < len(evs); i += 5000 {
		if err := s.Append(bg, "scan", uint64(i), evs[i:min(i+5000, len(evs))]); err != nil {
			b.Fatal(err)
		}
	}
	return path, "scan"
}

// BenchmarkScanDecode is the dependency's read figure: a raw bbolt cursor
// over the 100k records of one match in one read transaction, each decoded
// by msgpack alone (reflectiveDecode).
func BenchmarkScanDecode(b *testing.B) {
	path, match := scanFile(b)
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ResetTimer()
	for range b.N {
		var n int
		err := db.View(func(tx *bbolt.Tx) error {
			c := tx.Bucket([]byte("matches")).Bucket([]byte(match)).Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				if err := reflectiveDecode(v); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil || n != benchScanEvents {
			b.Fatalf("scanned %d: %v", n, err)
		}
	}
	b.ReportMetric(float64(b.N)*benchScanEvents/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkStoreScanDecode is our read path over the same file: Store.Scan
// (chunked read transactions, key and match checks) and the core vocabulary's Decode.
func BenchmarkStoreScanDecode(b *testing.B) {
	path, match := scanFile(b)
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for range b.N {
		var n int
		err := s.Scan(bg, match, 0, func(e events.Event) error {
			_, err := events.Core().Decode(e)
			n++
			return err
		})
		if err != nil || n != benchScanEvents {
			b.Fatalf("scanned %d: %v", n, err)
		}
	}
	b.ReportMetric(float64(b.N)*benchScanEvents/b.Elapsed().Seconds(), "events/s")
}
