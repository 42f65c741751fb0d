package bolt_test

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

// BenchmarkHeadLog measures the transparency log beside the store's own
// append (docs/PERFORMANCE.md, "The transparency log"), in one run:
//
//   - append-logged / append-no-log: the group commit of BenchmarkAppend-
//     GroupCommit (500 matches, one event per Append, each a leaf of the
//     log) with the log and a checkpoint signed per commit, and without any
//     log — the difference is what appending a head to the log costs. Real
//     fsync, as served.
//   - prove-one-of-100k: the inclusion proof of one match's newest entry in
//     a log of 100,000 matches × 10 events (1,000,000 entries), as the
//     prove verb answers it: reported in ns and in bytes (its JSON, with
//     the checkpoint).
//   - consistency-<n>: verifying a consistency proof between two
//     checkpoints of a log of n entries, and its hashes: O(log n).
func BenchmarkHeadLog(b *testing.B) {
	k := ed25519.NewKeyFromSeed(make([]byte, 32))
	signer, err := headlog.NewSigner(k)
	if err != nil {
		b.Fatal(err)
	}
	appendBench := func(opts bolt.Options) func(*testing.B) {
		return func(b *testing.B) {
			chains := benchChains(b.N/benchMatches + 1)
			s, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			cpu0 := processCPU()
			runWriters(b, chains, func(m, i int) error {
				e := chains[m][i]
				_, err := s.AppendLogged(bg, e.Match, uint64(i), chains[m][i:i+1], nil, nil)
				return err
			})
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/event")
		}
	}
	b.Run("append-logged", appendBench(bolt.Options{Signer: signer}))
	b.Run("append-no-log", appendBench(bolt.Options{NoLog: true}))
	b.Run("prove-one-of-100k", func(b *testing.B) {
		s, cp := bigLog(b, signer, 100_000, 10)
		leaf, err := s.LogLeaf(bg, "m-042424", 0)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		var p headlog.Proof
		for i := 0; i < b.N; i++ {
			in, err := s.ProveInclusion(bg, leaf, cp.Size)
			if err != nil {
				b.Fatal(err)
			}
			p = headlog.Proof{Checkpoint: string(cp.Note), Entries: []headlog.Inclusion{in}}
		}
		b.StopTimer()
		j, _ := json.Marshal(&p)
		c, _ := headlog.Open(cp.Note, k.Public().(ed25519.PublicKey))
		if _, err := p.Entries[0].Check(c); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(j)), "proof-bytes")
		b.ReportMetric(float64(len(p.Entries[0].Proof)), "hashes")
	})
	for _, n := range []int64{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("consistency-%d", n), func(b *testing.B) {
			var tree headlog.MemTree
			for i := int64(0); i < n; i++ {
				e := headlog.Entry{Match: "m", Seq: uint64(i + 1)}
				_, _ = tree.Append(e.Marshal())
			}
			old := n/2 + 7
			oh, _ := tlog.TreeHash(old, &tree)
			nh, _ := tlog.TreeHash(n, &tree)
			proof, err := tlog.ProveTree(n, old, &tree)
			if err != nil {
				b.Fatal(err)
			}
			o, nw := headlog.Checkpoint{Size: old, Hash: oh}, headlog.Checkpoint{Size: n, Hash: nh}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := headlog.CheckConsistency(o, nw, proof); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(proof)), "hashes")
		})
	}
}

// bigLog is a store whose log holds matches × per entries (each match's
// events appended in one append; NoSync: building it is not measured).
func bigLog(b *testing.B, signer interface {
	Name() string
	KeyHash() uint32
	Sign([]byte) ([]byte, error)
}, matches, per int) (*bolt.Store, headlog.Checkpoint) {
	b.Helper()
	s, err := bolt.Open(filepath.Join(b.TempDir(), "big.db"), bolt.Options{Signer: signer, NoSync: true, MaxBatch: 2000})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	errc := make(chan error, 64)
	sem := make(chan struct{}, 64)
	for m := 0; m < matches; m++ {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			id := fmt.Sprintf("m-%06d", m)
			if err := s.Append(bg, id, 0, storetest.MakeEvents(id, 1, events.Hash{}, per)); err != nil {
				errc <- err
			}
		}()
	}
	for range cap(sem) {
		sem <- struct{}{}
	}
	close(errc)
	for err := range errc {
		b.Fatal(err)
	}
	cp, err := s.Checkpoint(bg)
	if err != nil || cp.Size != int64(matches*per) {
		b.Fatalf("%d entries, %v", cp.Size, err)
	}
	return s, cp
}

var _ store.HeadLog = (*bolt.Store)(nil)
