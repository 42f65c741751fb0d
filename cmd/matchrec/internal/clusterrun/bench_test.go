package clusterrun

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/cmd/matchrec/internal/natscluster"
	"github.com/matchrec/matchrec/cmd/matchrec/internal/node"
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/identity"
	"github.com/matchrec/matchrec/store/natsbus"
	"github.com/matchrec/matchrec/store/storetest"
)

// The cluster benchmarks (docs/PERFORMANCE.md, "Cluster"): a 3-node NATS
// cluster in this process, configured by docs/cluster.md, and 1 to 3
// recorders' write paths (natsbus.Cluster on a bbolt file with fsync, each
// with its follower applying every event), 500 matches appended to
// concurrently, one event per append; beside raw JetStream R3 publishes
// from 500 concurrent publishers in the same run. Run with a fixed count,
// as each sub-benchmark starts its own cluster:
//
//	go test -run '^$' -bench BenchmarkCluster -benchtime 6000x -count 3 ./cmd/matchrec/internal/clusterrun/

const benchMatches = 500

func benchCluster(b *testing.B) *natscluster.Cluster {
	b.Helper()
	c, err := natscluster.Start(b.TempDir(), "../../../../docs/cluster.md", 3, natscluster.Passwords{Recorder: "r", Client: "c", Viewer: "v"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Shutdown)
	return c
}

// BenchmarkClusterCommands is the cluster as tables use it: recorders
// (the node of `serve --cluster`, in this process, fsync on) behind the
// API's queue group, and benchTables tables each playing
// examples/6e-grot-wood-assault.yaml match after match, each step a read
// of the match's state and then the command decided at the head it shows
// (its refusals included: they are answered commands). It reports
// commands/s with 1, 2 and 3 recorders; raw-jetstream-R3 is the same
// number of publishers doing synchronous R3 publishes, in the same run:
//
//	go test -run '^$' -bench BenchmarkClusterCommands -benchtime 3000x -count 3 ./cmd/matchrec/internal/clusterrun/
func BenchmarkClusterCommands(b *testing.B) {
	for _, k := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("recorders=%d", k), func(b *testing.B) { benchCommands(b, k) })
	}
	b.Run("raw-jetstream-R3", func(b *testing.B) { benchRawPublish(b, benchTables) })
}

const benchTables = 32

func benchCommands(b *testing.B, k int) {
	c := benchCluster(b)
	ctx := context.Background()
	for range k {
		n, err := node.Open(ctx, node.Config{DataDir: b.TempDir(), NATSURL: c.URLs(), Cluster: true, InProcess: true, NoSync: os.Getenv("BENCH_NOSYNC") != "",
			NATSAuth: natsbus.Credentials{User: "recorder", Password: c.Pw.Recorder, InboxPrefix: natsbus.InboxPrefix(natsbus.RoleRecorder)}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = n.Close() })
	}
	nc, err := c.Connect("client")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	client := &natsbus.Client{Conn: nc, Timeout: 10 * time.Second}
	sc, err := script.Read("../../../../examples/6e-grot-wood-assault.yaml")
	if err != nil {
		b.Fatal(err)
	}
	tally := NewTally()
	tally.ReadFirst = true
	var commands atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := range benchTables {
		wg.Go(func() {
			for r := 0; commands.Load() < int64(b.N); r++ {
				if err := Play(ctx, client, fmt.Sprintf("t%d-%d", i, r), sc, tally); err != nil {
					b.Error(err)
					return
				}
				commands.Add(int64(len(sc.Steps)))
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(commands.Load())/el.Seconds(), "commands/s")
	// The process's CPU per command: the 3 NATS nodes, every recorder and
	// follower, and the tables' clients all run in it.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(commands.Load()), "cpu-µs/command")
	b.ReportMetric(float64(tally.Answers[string(projector.CodeStaleHead)]), "stale_head")
	if n := tally.Unexpected(); n > 0 {
		b.Errorf("%d unexpected answers: %v", n, tally.Answers)
	}
}

// benchRawPublish is publishers synchronous R3 publishes of one event
// each, b.N in all, on a stream like MATCHREC.
func benchRawPublish(b *testing.B, publishers int) {
	c := benchCluster(b)
	nc, err := c.Connect("recorder")
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, _, err := natsbus.EnsureClaimed(ctx, js, natsbus.Claim{Mode: natsbus.ModeCluster}); err != nil {
		b.Fatal(err)
	}
	payload := events.Marshal(storetest.MakeEvents("x", 1, events.Hash{}, 1)[0])
	var published atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for m := range publishers {
		wg.Go(func() {
			subj := natsbus.SubjectPrefix + "raw-" + strconv.Itoa(m)
			for published.Add(1) <= int64(b.N) {
				if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: subj, Data: payload}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/event")
}

func BenchmarkClusterAppend(b *testing.B) {
	for _, k := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("recorders=%d", k), func(b *testing.B) { benchAppend(b, k) })
	}
	b.Run("raw-jetstream-R3", func(b *testing.B) { benchRawPublish(b, benchMatches) })
}

// benchRecorder is one recorder's write path.
type benchRecorder struct {
	st *bolt.Store
	cl *natsbus.Cluster
}

func startBenchRecorders(b *testing.B, c *natscluster.Cluster, k int) []benchRecorder {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out []benchRecorder
	for i := range k {
		st, err := bolt.Open(filepath.Join(b.TempDir(), "events.db"), bolt.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		nc, err := c.Connect("recorder")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		js, _ := jetstream.New(nc)
		if i == 0 {
			if _, _, err := natsbus.EnsureClaimed(ctx, js, natsbus.Claim{Mode: natsbus.ModeCluster}); err != nil {
				b.Fatal(err)
			}
		}
		cl, err := natsbus.NewCluster(st, natsbus.ClusterOptions{Conn: nc})
		if err != nil {
			b.Fatal(err)
		}
		fctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = cl.Follow(fctx) }()
		b.Cleanup(func() { stop(); <-done })
		out = append(out, benchRecorder{st: st, cl: cl})
	}
	return out
}

func benchAppend(b *testing.B, k int) {
	c := benchCluster(b)
	recs := startBenchRecorders(b, c, k)
	ctx := context.Background()
	per := max(1, b.N/benchMatches)
	var appended atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for m := range benchMatches {
		wg.Go(func() {
			r := recs[m%k]
			id := "bench-" + strconv.Itoa(m)
			var prev events.Hash
			for i := range per {
				evs := storetest.MakeEvents(id, uint64(i)+1, prev, 1)
				if err := r.cl.Append(ctx, id, uint64(i), evs, nil, nil); err != nil {
					b.Error(err)
					return
				}
				prev = evs[0].Hash
				appended.Add(1)
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(appended.Load())/el.Seconds(), "events/s")
	// The process's CPU per event: the 3 NATS nodes, the recorders and
	// their followers all run in it.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(appended.Load()), "cpu-µs/event")
	// Every recorder's follower brings every event: the copies are full.
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, r := range recs {
		if err := r.cl.CaughtUp(cctx); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkClusterRead reads a match's state at a random event through 1
// or 3 recorders' stores at once (the seek of docs/PERFORMANCE.md, from
// the local copy each recorder keeps): reads never touch the cluster.
func BenchmarkClusterRead(b *testing.B) {
	c := benchCluster(b)
	recs := startBenchRecorders(b, c, 3)
	ctx := context.Background()
	// One match of 200 events, through recorder 1; every recorder follows.
	var prev events.Hash
	for i := range 200 {
		evs := storetest.MakeEvents("read", uint64(i)+1, prev, 1)
		if err := recs[0].cl.Append(ctx, "read", uint64(i), evs, nil, nil); err != nil {
			b.Fatal(err)
		}
		prev = evs[0].Hash
	}
	for _, r := range recs {
		if err := r.cl.WaitHead(ctx, "read", 200); err != nil {
			b.Fatal(err)
		}
	}
	for _, k := range []int{1, 3} {
		b.Run(fmt.Sprintf("recorders=%d", k), func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				i := int(n.Add(1))
				r := recs[i%k]
				for pb.Next() {
					seq := uint64(1 + i%200)
					i += 7
					if err := r.st.Scan(ctx, "read", seq, func(events.Event) error { return nil }); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

const benchBacklog = 10000

// BenchmarkVenueCatchUp is a venue's backlog reaching the hub
// (docs/cluster.md, "Venues"): the venue's line is cut, 10,000 events are
// recorded on its stream (100 matches of 100, published as its relay
// does), the line is restored, and it measures how long until the hub's
// archive holds them all (sourcing across domains) and until a hub
// recorder's store has applied them (the archive's follower, fsync on).
//
//	go test -run '^$' -bench BenchmarkVenueCatchUp -benchtime 3x ./cmd/matchrec/internal/clusterrun/
func BenchmarkVenueCatchUp(b *testing.B) {
	c := benchCluster(b)
	venue, err := natscluster.StartVenue(b.TempDir(), "../../../../docs/cluster.md", "north", c)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(venue.Shutdown)
	ctx := context.Background()
	vnc, err := venue.Connect("recorder")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(vnc.Close)
	vjs, _ := jetstream.New(vnc, jetstream.WithPublishAsyncMaxPending(2*benchBacklog))
	// The venue's recorder key: each event signed with it, as a venue
	// recorder without a log signs them, and the hub checks each.
	venueID, err := identity.LoadOrCreate(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	owner := hex.EncodeToString(venueID.PublicKey())
	if _, _, err := natsbus.EnsureClaimed(ctx, vjs, natsbus.Claim{Mode: natsbus.ModeSingle, Owner: owner, Venue: "north"}); err != nil {
		b.Fatal(err)
	}
	hnc, err := c.Connect("recorder")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(hnc.Close)
	hjs, _ := jetstream.New(hnc)
	if err := natsbus.EnsureArchive(ctx, hjs, []string{"north"}, 3); err != nil {
		b.Fatal(err)
	}
	_, recorders, err := natsbus.EnsureBuckets(ctx, hjs, 3)
	if err != nil {
		b.Fatal(err)
	}
	st, err := bolt.Open(filepath.Join(b.TempDir(), "events.db"), bolt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	cl, err := natsbus.NewCluster(st, natsbus.ClusterOptions{Conn: hnc, Venues: []string{"north"}, Recorders: recorders})
	if err != nil {
		b.Fatal(err)
	}
	fctx, stop := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	go func() { defer func() { done <- struct{}{} }(); _ = cl.FollowArchive(fctx) }()
	// As a hub recorder does: a stalled source is restarted.
	go func() {
		defer func() { done <- struct{}{} }()
		natsbus.WatchVenues(fctx, hnc, hjs, recorders, []string{"north"}, natsbus.VenueWatch, zerolog.Nop())
	}()
	b.Cleanup(func() { stop(); <-done; <-done })

	const matches, per = 100, benchBacklog / 100
	var archive, hub time.Duration
	for i := range b.N {
		venue.Link.Cut()
		var futures []jetstream.PubAckFuture
		for m := range matches {
			id := fmt.Sprintf("north-b%d-%d", i, m)
			var prev events.Hash
			for _, e := range storetest.MakeEvents(id, 1, prev, per) {
				msg, err := natsbus.NewMsg(e, venueID)
				if err != nil {
					b.Fatal(err)
				}
				f, err := vjs.PublishMsgAsync(msg)
				if err != nil {
					b.Fatal(err)
				}
				futures = append(futures, f)
			}
		}
		for _, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				b.Fatal(err)
			}
		}
		vs, err := vjs.Stream(ctx, natsbus.StreamName)
		if err != nil {
			b.Fatal(err)
		}
		want := vs.CachedInfo().State.LastSeq
		start := time.Now()
		if err := venue.Link.Restore(); err != nil {
			b.Fatal(err)
		}
		var archived uint64
		for {
			s, err := hjs.Stream(ctx, natsbus.ArchiveStream)
			if err == nil && s.CachedInfo().State.Msgs >= want {
				archived = s.CachedInfo().State.LastSeq
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		archive += time.Since(start)
		for cl.Stats().Archived < archived {
			time.Sleep(20 * time.Millisecond)
		}
		hub += time.Since(start)
	}
	b.StopTimer()
	b.ReportMetric(archive.Seconds()/float64(b.N), "s-archive/10k")
	b.Logf("%d cuts: the archive held the backlog %s after the restores, a hub store %s (means)", b.N, archive/time.Duration(b.N), hub/time.Duration(b.N))
	b.ReportMetric(hub.Seconds()/float64(b.N), "s-hub-store/10k")
}
