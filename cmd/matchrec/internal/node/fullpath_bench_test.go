package node

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

const fullPathMatches = 500

// BenchmarkFullPath is issue 2's append benchmark: 500 concurrent matches,
// each driven by its own client goroutine (over 8 TCP connections), every
// command going API request → decide → group commit (fsync) → reply, and
// the run ends only when the relay has published every event to JetStream.
// Beside it, in the same run, the raw figures of the two dependencies it
// sits on: JetStream async publish and bbolt batched writes.
func BenchmarkFullPath(b *testing.B) {
	b.Run("full-path", benchFullPath)
	b.Run("raw-jetstream-async", benchRawJetStream)
	b.Run("raw-bbolt-batch", benchRawBolt)
}

func benchFullPath(b *testing.B) {
	n := startServing(b, b.TempDir())
	ctx := context.Background()
	sc := readScript(b, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	conns := make([]*natsbus.Client, 8)
	for i := range conns {
		conns[i] = remote(b, n)
	}
	type match struct{ id, token string }
	ms := make([]match, fullPathMatches)
	for i := range ms {
		var created api.CreateResult
		if err := conns[0].Call(ctx, api.VerbCreate, api.CreateRequest{Match: fmt.Sprintf("fp%03d", i), MatchCreated: sc.Match.Created()}, &created); err != nil {
			b.Fatal(err)
		}
		ms[i] = match{created.Match, created.Tokens[api.RolePlayer("alice")]}
		if err := conns[0].Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: ms[i].id, Token: ms[i].token, Command: &projector.Command{Type: projector.CmdNextTurn}}, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := n.Relay().Drained(ctx); err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	total := int64(b.N)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(ms))
	for i, m := range ms {
		wg.Add(1)
		go func(c *natsbus.Client, m match) {
			defer wg.Done()
			xs := [2]float64{9, 8}
			y := 32.0
			for k := 0; next.Add(1) <= total; k++ {
				cmd := projector.Command{Type: projector.CmdMove, Unit: "dev", Model: "dev-1", X: &xs[k%2], Y: &y}
				if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: m.id, Token: m.token, Command: &cmd}, nil); err != nil {
					errs <- err
					return
				}
			}
		}(conns[i%len(conns)], m)
	}
	wg.Wait()
	if err := n.Relay().Drained(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
}

func benchRawJetStream(b *testing.B) {
	srv, err := natsbus.StartEmbedded(b.TempDir(), natsbus.EmbeddedOptions{Port: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := natsbus.EnsureStream(ctx, js); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 300) // about one recorded event
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := js.PublishAsync(natsbus.SubjectPrefix+"raw"+strconv.Itoa(i%fullPathMatches), data, jetstream.WithMsgID(strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

func benchRawBolt(b *testing.B) {
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	_ = db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket([]byte("m")); return err })
	data := make([]byte, 300)
	var next atomic.Int64
	total := int64(b.N)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < fullPathMatches; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > total {
					return
				}
				_ = db.Batch(func(tx *bbolt.Tx) error {
					return tx.Bucket([]byte("m")).Put([]byte(strconv.FormatInt(i, 10)), data)
				})
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}
