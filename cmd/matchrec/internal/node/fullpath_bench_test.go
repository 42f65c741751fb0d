package node

import (
	"context"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

const fullPathMatches = 500

// msgpackClients: full-path-msgpack's clients send their commands in
// msgpack (natsbus.Client.Msgpack, as the CLI does); full-path's in JSON,
// as the nats CLI and scripts do.
var msgpackClients bool

// BenchmarkFullPath is issue 2's append benchmark: 500 concurrent matches,
// each driven by its own client goroutine (over 8 TCP connections), every
// command going API request → decide → group commit (fsync) → reply, and
// the run ends only when the relay has published every event to JetStream
// and the live analytics have written it. Beside it, in the same run: the
// same without the live analytics (what they cost), and the raw figures of
// the two dependencies it sits on: JetStream async publish and bbolt
// batched writes. Each reports events/s and the process's CPU per event
// (client, API, recorder, store, relay, NATS server and analytics: one
// process).
//
// full-path-msgpack is full-path with the clients speaking msgpack
// (natsbus.Client.Msgpack, the CLI's way) instead of JSON.
//
// full-path-no-log and full-path-signed-no-log are the same without the
// transparency log (docs/transparency.md): every receipt and every bus
// message signed on its own, as before the log — what the log costs, and
// what signing once per batch saves.
//
// full-path-signed is the same with signed matches: every command a
// statement signed by the participant's key (Ed25519, on the client, which
// tracks the head from the replies), verified by the recorder, which signs
// its receipt; full-path sends tokens, with request ids and heads, and
// gets receipts too.
//
// All run as served: the embedded server closed by its users and
// permissions, outbox acks folded into the next append. full-path-no-auth
// is full-path with --insecure-no-auth (no users, no permission checks),
// full-path-eager-acks with each outbox ack committed at once, as before
// acks were folded.
func BenchmarkFullPath(b *testing.B) {
	b.Run("full-path", func(b *testing.B) { benchFullPath(b, Config{}, false, true) })
	b.Run("full-path-msgpack", func(b *testing.B) {
		msgpackClients = true
		benchFullPath(b, Config{}, false, true)
		msgpackClients = false
	})
	b.Run("full-path-no-analytics", func(b *testing.B) { benchFullPath(b, Config{}, false, false) })
	b.Run("full-path-signed", func(b *testing.B) { benchFullPath(b, Config{}, true, true) })
	b.Run("full-path-no-log", func(b *testing.B) { benchFullPath(b, Config{NoLog: true}, false, true) })
	b.Run("full-path-signed-no-log", func(b *testing.B) { benchFullPath(b, Config{NoLog: true}, true, true) })
	b.Run("full-path-no-auth", func(b *testing.B) { benchFullPath(b, Config{Insecure: true}, false, true) })
	b.Run("full-path-eager-acks", func(b *testing.B) { benchFullPath(b, Config{AckDelay: -1}, false, true) })
	b.Run("raw-jetstream-async", benchRawJetStream)
	b.Run("raw-bbolt-batch", benchRawBolt)
}

// report reports events/s and CPU µs per event of n events in elapsed
// wall time and cpu process time.
func report(b *testing.B, n int, elapsed, cpu time.Duration) {
	b.ReportMetric(float64(n)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/event")
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchFullPath(b *testing.B, cfg Config, signed, analytics bool) {
	n := serveWith(b, cfg)
	if !analytics {
		if err := n.an.Close(); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	sc := readScript(b, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	conns := make([]*natsbus.Client, 8)
	for i := range conns {
		conns[i] = remote(b, n)
		conns[i].Msgpack = msgpackClients
	}
	type match struct {
		id, token string
		key       *auth.Key
		head      store.Head
	}
	ms := make([]match, fullPathMatches)
	send := func(c *natsbus.Client, m *match, cmd projector.Command) error {
		n := auth.NewNonce()
		req := api.ExecuteRequest{Match: m.id, Token: m.token, Command: &cmd, RequestID: hex.EncodeToString(n[:]), Head: &m.head}
		if m.key != nil {
			b, _ := events.EncodeValue(cmd)
			st := auth.Statement{Match: m.id, HeadSeq: m.head.Seq, HeadHash: m.head.Hash, Nonce: n, Role: "player:alice", Command: b}
			body := st.Marshal()
			req = api.ExecuteRequest{Match: m.id, Statement: body, Signature: auth.Sign(m.key.Private, auth.StatementDomain, body)}
		}
		var res api.Result
		if err := c.Call(ctx, api.VerbDeclare, req, &res); err != nil {
			return err
		}
		last := res.Events[len(res.Events)-1]
		m.head = store.Head{Seq: last.Seq, Hash: last.Hash}
		return nil
	}
	for i := range ms {
		req := api.CreateRequest{Match: fmt.Sprintf("fp%03d", i), MatchCreated: sc.Match.Created()}
		if signed {
			ms[i].key, _ = auth.GenerateKey("", "player:alice")
			other, _ := auth.GenerateKey("", "")
			req.Keys = map[string]string{"player:alice": ms[i].key.PublicHex(), "player:bob": other.PublicHex(), "judge": other.PublicHex()}
		}
		var created api.CreateResult
		if err := conns[0].Call(ctx, api.VerbCreate, req, &created); err != nil {
			b.Fatal(err)
		}
		ms[i].id, ms[i].token = created.Match, created.Tokens[api.RolePlayer("alice")]
		ms[i].head = store.Head{Seq: created.Receipt.Seq, Hash: created.Receipt.Hash}
		if err := send(conns[0], &ms[i], projector.Command{Type: projector.CmdNextTurn}); err != nil {
			b.Fatal(err)
		}
	}
	if err := n.Relay().Drained(ctx); err != nil {
		b.Fatal(err)
	}
	if analytics { // the tables hold the matches: from here on, they are fed
		if _, err := n.an.Verbs()[api.VerbSync](ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	total := int64(b.N)
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	var wg sync.WaitGroup
	errs := make(chan error, len(ms))
	for i := range ms {
		wg.Add(1)
		go func(c *natsbus.Client, m *match) {
			defer wg.Done()
			xs := [2]float64{9, 8}
			y := 32.0
			for k := 0; next.Add(1) <= total; k++ {
				cmd := projector.Command{Type: projector.CmdMove, Unit: "dev", Model: "dev-1", X: &xs[k%2], Y: &y}
				if err := send(c, m, cmd); err != nil {
					errs <- err
					return
				}
			}
		}(conns[i%len(conns)], &ms[i])
	}
	wg.Wait()
	if err := n.Relay().Drained(ctx); err != nil {
		b.Fatal(err)
	}
	if analytics {
		var recorded uint64
		for _, m := range ms {
			recorded += m.head.Seq
		}
		waitTables(b, n, recorded)
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	report(b, b.N, elapsed, cpu)
}

// waitTables waits until the node's tables hold events events in all.
func waitTables(b *testing.B, n *Node, events uint64) {
	sql := n.an.Verbs()[api.VerbSQL]
	for {
		res, err := sql(context.Background(), []byte(`{"query":"SELECT coalesce(sum(events), 0) FROM matches","no_sync":true}`))
		if err != nil {
			b.Fatal(err)
		}
		if got, _ := res.(*api.SQLResult).Rows[0][0].(int64); uint64(got) >= events {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
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
	if _, _, err := natsbus.EnsureStream(ctx, js); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 300) // about one recorded event
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := js.PublishAsync(natsbus.SubjectPrefix+"raw"+strconv.Itoa(i%fullPathMatches), data, jetstream.WithMsgID(strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	report(b, b.N, time.Since(start), cpuTime()-cpu0)
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
	start, cpu0 := time.Now(), cpuTime()
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
	report(b, b.N, time.Since(start), cpuTime()-cpu0)
}
