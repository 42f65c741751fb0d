package replay_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/store/bolt"
)

// generated records n autoplayed 3e matches in a bbolt file and returns the
// store, the match ids and the event count.
func generated(b *testing.B, n int) (*bolt.Store, []string, int) {
	b.Helper()
	st, err := bolt.Open(filepath.Join(b.TempDir(), "events.db"), bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	ctx := context.Background()
	var ids []string
	total := 0
	for i := 0; i < n; i++ {
		g := projtest.New(b, ed3e.Rules{}, sim.RandomMatch("3e", rand.New(rand.NewPCG(uint64(i), 7))))
		ap := &sim.Autoplay{Rules: ed3e.Rules{}, Dice: sim.NewDice(uint64(i)), MaxTurns: 5}
		for {
			actor, c, done := ap.Next(g.State)
			if done {
				break
			}
			g.Do(actor, c)
		}
		id := fmt.Sprintf("bench%04d", i)
		evs := projtest.Relabel(id, g.Events)
		if err := st.Append(ctx, id, 0, evs); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
		total += len(evs)
	}
	return st, ids, total
}

// BenchmarkFold: events read from bbolt, decoded and applied (the full
// fold), beside BenchmarkRawScanDecode on the same data: bbolt scan and
// msgpack decode of envelope and payload, nothing applied.
func BenchmarkFold(b *testing.B) {
	st, ids, total := generated(b, 200)
	ctx := context.Background()
	b.Run("fold", func(b *testing.B) {
		for b.Loop() {
			for _, id := range ids {
				if _, _, err := fold.Fold(ctx, st, id, 0, editions.Lookup); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(total*b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("raw-scan-decode", func(b *testing.B) {
		for b.Loop() {
			for _, id := range ids {
				err := st.Scan(ctx, id, 1, func(e events.Event) error {
					_, err := events.Core().Decode(e) // 3e: core types only
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(total*b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.ReportMetric(float64(total), "events")
}
