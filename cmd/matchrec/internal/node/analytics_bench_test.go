package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
)

// BenchmarkAppendsWithAnalytics measures what keeping the analytic tables
// current costs the recorder. Two serving nodes (fsync on, each with its
// own data directory) record the same generated matches, 4 at a time,
// through the recorder, outbox relay and NATS; one runs its live
// analytics consumer, the other has it stopped. Each iteration records a
// batch on both, alternating which goes first, so drift and order affect
// both alike; the "with" batch counts until its tables hold every event
// (the consumer's tail, caught up at once), so no analytics work spills
// into the other node's timing. Reported: events/s without and with, and
// the cost in percent.
func BenchmarkAppendsWithAnalytics(b *testing.B) {
	const matchesPerOp = 20
	without, with := startServing(b, b.TempDir()), startServing(b, b.TempDir())
	if err := without.an.Close(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var (
		events   [2]uint64
		took     [2]time.Duration
		nodes    = [2]*Node{without, with}
		batchFor = func(n *Node, i int) (uint64, time.Duration) {
			start := time.Now()
			res, err := generate.Run(ctx, generate.Direct{Recorder: n.Recorder()}, editions.Lookup,
				generate.Options{Edition: "3e", Matches: matchesPerOp, Seed: uint64(i + 1), IDPrefix: fmt.Sprintf("b%d", i)})
			if err != nil {
				b.Fatal(err)
			}
			return res.Events, time.Since(start)
		}
	)
	sync := with.an.Verbs()[api.VerbSync] // a catch-up, as the sync verb makes it
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < 2; k++ {
			which := (i + k) % 2
			ev, d := batchFor(nodes[which], i)
			if which == 1 {
				// Count the consumer's tail too: the batch is done when the
				// tables hold it, and none of its work spills into the
				// other node's batch.
				t0 := time.Now()
				if _, err := sync(ctx, nil); err != nil {
					b.Fatal(err)
				}
				d += time.Since(t0)
			}
			events[which] += ev
			took[which] += d
		}
	}
	b.StopTimer()
	rate := [2]float64{float64(events[0]) / took[0].Seconds(), float64(events[1]) / took[1].Seconds()}
	b.ReportMetric(rate[0], "events/s-without")
	b.ReportMetric(rate[1], "events/s-with")
	b.ReportMetric(100*(rate[0]-rate[1])/rate[0], "cost-%")
}
