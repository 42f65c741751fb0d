package replay_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/projtest"
	"github.com/matchrec/matchrec/store"
)

// longEvents is a 3e match of at least n events under id.
func longEvents(tb testing.TB, id string, n int) []events.Event {
	tb.Helper()
	return projtest.Relabel(id, projtest.LongMatch(tb, ed3e.Rules{}, n, 11).Events)
}

// BenchmarkSeek: the state at a random sequence of a 10,000-event match,
// through snapshots every K events (warm cache, the decoded states kept as
// the recorder keeps them: fold.States), beside a full fold of the same
// match. Each K gets its own copy of the match, so no variant reads
// another's snapshots. Reports the median seek in ms.
func BenchmarkSeek(b *testing.B) {
	evs := longEvents(b, "long", 10_000)
	n := len(evs)
	fresh := func(b *testing.B) store.Store {
		st := openBolt(b)
		if err := st.Append(context.Background(), "long", 0, evs); err != nil {
			b.Fatal(err)
		}
		return st
	}
	st := fresh(b)
	ctx := context.Background()
	b.Run("full-fold", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := fold.Fold(ctx, st, "long", 0, editions.Lookup); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n), "events")
	})
	for _, k := range []uint64{32, 128, 512, 2048} {
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			sk := &fold.Seeker{Log: fresh(b), Lookup: editions.Lookup, Every: k, States: &fold.States{}}
			if _, err := sk.StateAt(ctx, "long", uint64(n)); err != nil { // warm the cache
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(k, 1))
			var times []time.Duration
			for b.Loop() {
				seq := 1 + r.Uint64N(uint64(n))
				t0 := time.Now()
				if _, err := sk.StateAt(ctx, "long", seq); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}
