package natsbus

import (
	"context"
	"crypto/ed25519"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/identity"
	"github.com/matchrec/matchrec/store/storetest"
)

// startServer starts an embedded server on dir, stopped at cleanup.
func startServer(t testing.TB, dir string, opts EmbeddedOptions) *Embedded {
	t.Helper()
	e, err := StartEmbedded(dir, opts)
	if err != nil {
		t.Fatalf("StartEmbedded: %v", err)
	}
	t.Cleanup(e.Shutdown)
	return e
}

// connect opens a client connection closed at cleanup.
func connect(t testing.TB, e *Embedded) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := e.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// openBolt opens a real bbolt store in a temp dir. NoSync: the tests are
// about the bus, and fsync per commit only slows them down.
func openBolt(t testing.TB) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(filepath.Join(t.TempDir(), "matchrec.db"), bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// appender appends valid chained events to matches of a store and
// remembers them in commit order per match.
type appender struct {
	t    testing.TB
	s    store.Store
	logs map[string][]events.Event
	key  ed25519.PublicKey // the relay's, when it signs
}

func newAppender(t testing.TB, s store.Store) *appender {
	return &appender{t: t, s: s, logs: map[string][]events.Event{}}
}

// add appends n events to match, in one Append.
func (a *appender) add(match string, n int) []events.Event {
	a.t.Helper()
	log := a.logs[match]
	var prev events.Hash
	if len(log) > 0 {
		prev = log[len(log)-1].Hash
	}
	evs := storetest.MakeEvents(match, uint64(len(log))+1, prev, n)
	if err := a.s.Append(context.Background(), match, uint64(len(log)), evs); err != nil {
		a.t.Fatalf("append %d events to %s: %v", n, match, err)
	}
	a.logs[match] = append(log, evs...)
	return evs
}

func (a *appender) total() int {
	n := 0
	for _, l := range a.logs {
		n += len(l)
	}
	return n
}

// newIdentity makes a recorder identity in a temp dir.
func newIdentity(t testing.TB) *identity.Identity {
	t.Helper()
	id, err := identity.LoadOrCreate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// startRelay runs a relay over st until the test ends.
func startRelay(t testing.TB, st RelayStore, opts RelayOptions) *Relay {
	t.Helper()
	r := NewRelay(st, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("relay Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("relay did not stop")
		}
	})
	return r
}

func drained(t testing.TB, r *Relay, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	if err := r.Drained(ctx); err != nil {
		t.Fatalf("outbox not drained within %s: %v (stats %+v)", within, err, r.Stats())
	}
}

// readStream reads every message of the stream, from the start, through
// an ordered consumer, and checks no more than want are there.
func readStream(t testing.TB, js jetstream.JetStream, want int) []jetstream.Msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.State.Msgs; got != uint64(want) {
		t.Fatalf("stream holds %d messages, want %d", got, want)
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var out []jetstream.Msg
	for len(out) < want {
		batch, err := cons.Fetch(want-len(out), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m := range batch.Messages() {
			out = append(out, m)
			n++
		}
		if batch.Error() != nil {
			t.Fatalf("fetch: %v", batch.Error())
		}
		if n == 0 {
			t.Fatalf("read %d of %d messages, then nothing", len(out), want)
		}
	}
	return out
}

// checkFeed checks that msgs are exactly the appender's events: each once,
// each match in sequence order, with the right subject, headers and data.
func checkFeed(t testing.TB, a *appender, msgs []jetstream.Msg) {
	t.Helper()
	next := map[string]int{}
	for i, m := range msgs {
		e, err := DecodeMsg(m)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		log := a.logs[e.Match]
		k := next[e.Match]
		if k >= len(log) {
			t.Fatalf("message %d: extra event %s/%d", i, e.Match, e.Seq)
		}
		want := log[k]
		if e.Seq != want.Seq || e.Hash != want.Hash {
			t.Fatalf("message %d: got %s/%d, want %s/%d (out of order or duplicated)", i, e.Match, e.Seq, want.Match, want.Seq)
		}
		if got, want := string(m.Data()), string(events.Marshal(want)); got != want {
			t.Fatalf("message %d: data is not events.Marshal of the stored event", i)
		}
		h := m.Headers()
		if got := h.Get(HeaderType); got != string(e.Type) {
			t.Errorf("message %d: %s %q, want %q", i, HeaderType, got, e.Type)
		}
		if got, want := h.Get(HeaderSeq), strconv.FormatUint(e.Seq, 10); got != want {
			t.Errorf("message %d: %s %q, want %q", i, HeaderSeq, got, want)
		}
		if got := h.Get(jetstream.ExpectedLastSubjSeqHeader); got == "" {
			t.Errorf("message %d: published without %s", i, jetstream.ExpectedLastSubjSeqHeader)
		}
		if a.key != nil {
			if err := (&SignatureCheck{Key: a.key}).Check(context.Background(), m, e); err != nil {
				t.Errorf("message %d: %v", i, err)
			}
		}
		if m.Subject() != SubjectPrefix+e.Match {
			t.Errorf("message %d: subject %q", i, m.Subject())
		}
		next[e.Match] = k + 1
	}
	for match, log := range a.logs {
		if next[match] != len(log) {
			t.Errorf("match %s: %d of %d events on the stream", match, next[match], len(log))
		}
	}
}

// closedServer starts an embedded server closed by its own users
// (OpenAuth), with the stream made through the recorder's connection; it
// returns the server, its users, the recorder's JetStream and the stream.
func closedServer(t testing.TB) (*Embedded, *Auth, jetstream.JetStream, jetstream.Stream) {
	t.Helper()
	auth, err := OpenAuth(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true, Auth: auth})
	js, err := jetstream.New(connectAs(t, srv, auth, RoleRecorder))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, _, err := EnsureStream(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	return srv, auth, js, s
}

// connectAs connects to e as role r (then opts), closed at cleanup.
func connectAs(t testing.TB, e *Embedded, a *Auth, r Role, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := e.Connect(append(a.ConnectOptions(r), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
