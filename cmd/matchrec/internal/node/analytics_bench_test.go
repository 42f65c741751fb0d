package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/replay/generate"
)

// BenchmarkAppendsWithAnalytics measures what keeping the analytic tables
// current costs the recorder: the same generated matches recorded (fsync
// on, 4 matches at a time, through the recorder, relay and NATS) on a
// serving node without and with its live analytics consumer, in one run.
// Reported: events/s appended, and for "with" the lag (time from the last
// append until the tables hold every event).
func BenchmarkAppendsWithAnalytics(b *testing.B) {
	const matchesPerOp = 20
	for _, live := range []bool{false, true} {
		name := "without"
		if live {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			n := startServing(b, b.TempDir())
			if !live {
				if err := n.an.close(); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			var events uint64
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				res, err := generate.Run(ctx, generate.Direct{Recorder: n.Recorder()}, editions.Lookup,
					generate.Options{Edition: "3e", Matches: matchesPerOp, Seed: uint64(i + 1), IDPrefix: fmt.Sprintf("b%d", i)})
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
			}
			took := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(events)/took.Seconds(), "events/s")
			if live {
				// The lag: a full round that finds nothing left means caught up.
				t0 := time.Now()
				_, up, err := n.an.open(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := up.CatchUp(ctx, analytics.Round{}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(t0).Milliseconds()), "lag-ms")
			}
		})
	}
}
