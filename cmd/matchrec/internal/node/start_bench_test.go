package node

import (
	"context"
	"fmt"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/storetest"
)

// startBenchEvents is how many events the stream holds, all published
// moments before the benchmark opens the node again.
const startBenchEvents = 100_000

// BenchmarkInProcessStart is the cost every CLI command pays when no
// `serve` runs: open the store, start the in-process NATS server (which
// recovers the stream, and the duplicate window of message ids with it),
// the relay and the API, then close it all. The stream holds
// startBenchEvents events published just before, as after a busy session.
func BenchmarkInProcessStart(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	n, err := Open(ctx, Config{DataDir: dir, InProcess: true, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	const perMatch = 1000
	for m := 0; m < startBenchEvents/perMatch; m++ {
		id := fmt.Sprintf("sb%03d", m)
		if err := n.store.Append(ctx, id, 0, storetest.MakeEvents(id, 1, events.Hash{}, perMatch)); err != nil {
			b.Fatal(err)
		}
	}
	if err := n.Relay().Drained(ctx); err != nil {
		b.Fatal(err)
	}
	if err := n.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n, err := Open(ctx, Config{DataDir: dir, InProcess: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := n.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
