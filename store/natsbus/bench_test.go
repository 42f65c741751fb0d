package natsbus

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/store/api"
)

// BenchmarkJetStreamPublishAsync is the raw dependency figure: async
// publishes of ~200-byte messages with message ids (so JetStream does its
// dedup bookkeeping, as for real events) into the file-backed MATCHREC
// stream of the embedded server, over one connection. The full-path
// benchmark (API request -> store -> relay -> stream) is compared with it.
func BenchmarkJetStreamPublishAsync(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts EmbeddedOptions
	}{
		{"inprocess", EmbeddedOptions{DontListen: true}},
		{"tcp", EmbeddedOptions{Port: -1}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := startServer(b, b.TempDir(), tc.opts)
			nc, err := srv.Connect()
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			js, err := jetstream.New(nc)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, _, err := EnsureStream(ctx, js); err != nil {
				b.Fatal(err)
			}
			data := make([]byte, 200)
			for i := range data {
				data[i] = byte('a' + i%26)
			}
			subj := SubjectPrefix + "bench"
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := js.PublishAsync(subj, data, jetstream.WithMsgID("bench:"+strconv.Itoa(i))); err != nil {
					b.Fatal(err)
				}
			}
			select {
			case <-js.PublishAsyncComplete():
			case <-ctx.Done():
				b.Fatal("acks did not arrive")
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
		})
	}
}

// BenchmarkAPIRoundTrip measures the API's own cost: an empty handler,
// 500 concurrent clients (goroutines calling in a loop) spread over a few
// client connections, replies checked by Client.Call.
func BenchmarkAPIRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name  string
		opts  EmbeddedOptions
		conns int
	}{
		{"inprocess/conns=1", EmbeddedOptions{DontListen: true}, 1},
		{"inprocess/conns=8", EmbeddedOptions{DontListen: true}, 8},
		{"tcp/conns=8", EmbeddedOptions{Port: -1}, 8},
		// The same, on a server closed by users and permissions: the
		// API's replies, every publish, go through the permission checks.
		{"tcp/conns=8/auth", EmbeddedOptions{Port: -1, Auth: benchAuth(b)}, 8},
	} {
		b.Run(tc.name, func(b *testing.B) {
			benchAPI(b, tc.opts, tc.conns, 500)
		})
	}
}

func benchAuth(b *testing.B) *Auth {
	a, err := OpenAuth(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// as logs in as role when the server has users.
func as(opts EmbeddedOptions, role Role, more ...nats.Option) []nats.Option {
	if opts.Auth == nil {
		return more
	}
	return append(opts.Auth.ConnectOptions(role), more...)
}

func benchAPI(b *testing.B, opts EmbeddedOptions, conns, clients int) {
	srv := startServer(b, b.TempDir(), opts)
	snc, err := srv.Connect(as(opts, RoleAPI)...)
	if err != nil {
		b.Fatal(err)
	}
	defer snc.Close()
	stop, err := ServeAPI(context.Background(), snc, api.Verbs{
		"noop": func(context.Context, []byte) (any, error) { return nil, nil },
	}, ServeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer stop()

	cs := make([]*Client, conns)
	for i := range cs {
		nc, err := srv.Connect(as(opts, RoleClient, nats.Name("bench-client"))...)
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		cs[i] = &Client{Conn: nc, Timeout: 30 * time.Second}
	}
	body := []byte(`{"match":"m1"}`)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	b.ResetTimer()
	start := time.Now()
	for g := 0; g < clients; g++ {
		wg.Add(1)
		go func(c *Client) {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if err := c.Call(context.Background(), "noop", body, nil); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}(cs[g%conns])
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRelayDrain measures the relay alone: b.N events already waiting
// in a bbolt outbox (10 matches, appended 100 at a time before the timer
// starts) drained into the stream, outbox acks included.
func BenchmarkRelayDrain(b *testing.B) {
	srv := startServer(b, b.TempDir(), EmbeddedOptions{Port: -1})
	st := openBolt(b)
	a := newAppender(b, st)
	for left, i := b.N, 0; left > 0; i++ {
		n := min(left, 100)
		a.add("m"+strconv.Itoa(i%10), n)
		left -= n
	}
	b.ResetTimer()
	start := time.Now()
	r := startRelay(b, st, RelayOptions{URL: srv.ClientURL()})
	drained(b, r, 5*time.Minute)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	b.StopTimer()
	if got := r.Stats().Published; got != uint64(b.N) {
		b.Fatalf("published %d of %d", got, b.N)
	}
}
