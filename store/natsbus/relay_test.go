package natsbus

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/storetest"
)

func TestRelayPublishesInOrderWithHeaders(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)

	// Some events are waiting before the relay starts, more arrive while
	// it runs, interleaved across matches; Batch is small so several
	// rounds are needed.
	a.add("m1", 5)
	a.add("m2", 3)
	var told []string // Published runs on the relay's goroutine, before Drained sees the outbox empty
	id := newIdentity(t)
	a.key = id.PublicKey()
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect, Batch: 7, Sign: id, Published: func(m string) { told = append(told, m) }})
	for i := 0; i < 10; i++ {
		a.add("m1", 2)
		a.add("m2", 1)
		a.add("m-3_x", 3)
	}
	drained(t, r, 10*time.Second)

	checkFeed(t, a, readStream(t, js, a.total()))
	if s := r.Stats(); s.Published != uint64(a.total()) || s.Duplicates != 0 || s.Refused != 0 || s.Differs != 0 {
		t.Errorf("stats %+v, want %d published, nothing else", s, a.total())
	}
	// Every published event was told, by its match, once.
	count := map[string]int{}
	for _, m := range told {
		count[m]++
	}
	for m, log := range a.logs {
		if count[m] != len(log) {
			t.Errorf("match %s: told %d times, %d events published", m, count[m], len(log))
		}
	}
	if len(told) != a.total() {
		t.Errorf("told %d events, %d published", len(told), a.total())
	}
}

// TestRelaySurvivesOutage: the relay starts while NATS is down, NATS comes
// up, goes away, and comes back on the same dir and port; appends succeed
// throughout and every event reaches the stream once, in order.
func TestRelaySurvivesOutage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	// Learn a free port, then stop: NATS is down when the relay starts.
	srv := startServer(t, dir, EmbeddedOptions{Port: -1})
	port, url := srv.Port(), srv.ClientURL()
	srv.Shutdown()

	st := openBolt(t)
	a := newAppender(t, st)
	r := startRelay(t, st, RelayOptions{
		URL:        url,
		Reconnect:  Reconnect{Wait: 20 * time.Millisecond, MaxWait: 50 * time.Millisecond},
		MaxBackoff: 200 * time.Millisecond,
	})

	a.add("m1", 4)
	a.add("m2", 2)
	waitRetries(t, r, 2) // it is trying, and failing
	srv = startServer(t, dir, EmbeddedOptions{Port: port})
	drained(t, r, 15*time.Second)
	published := r.Stats().Published

	// Outage while running.
	srv.Shutdown()
	a.add("m1", 3)
	for i := 0; i < 20; i++ {
		a.add("m2", 1)
		a.add("m3", 2)
	}
	pending := countPending(t, st)
	if pending != 3+20+40 {
		t.Fatalf("%d events pending during the outage, want %d", pending, 63)
	}
	waitRetries(t, r, r.Stats().Retries+2)
	if got := r.Stats().Published; got != published {
		t.Fatalf("published %d events while NATS was down", got-published)
	}
	if lag := r.Lag(); !strings.Contains(lag, "the bus is behind") {
		t.Errorf("Lag during the outage: %q", lag)
	}

	srv = startServer(t, dir, EmbeddedOptions{Port: port})
	drained(t, r, 15*time.Second)
	t.Logf("relay stats after the outages: %+v", r.Stats())
	if lag := r.Lag(); lag != "" {
		t.Errorf("Lag after recovering: %q", lag)
	}

	_, js := connect(t, srv)
	checkFeed(t, a, readStream(t, js, a.total()))
	if s := r.Stats(); s.Differs != 0 {
		t.Errorf("an outage made the relay flag a match: %+v %v", s, r.AllDiffers())
	}
}

// TestRelayOutageUnderLoad: NATS is stopped and restarted several times
// while appends keep arriving and the relay is mid-batch; the stream still
// ends up with every event once, each match in order.
func TestRelayOutageUnderLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	srv := startServer(t, dir, EmbeddedOptions{Port: -1})
	port := srv.Port()
	st := openBolt(t)
	a := newAppender(t, st)
	r := startRelay(t, st, RelayOptions{
		URL:        srv.ClientURL(),
		Reconnect:  Reconnect{Wait: 10 * time.Millisecond, MaxWait: 50 * time.Millisecond},
		Batch:      50,
		MaxBackoff: 100 * time.Millisecond,
	})

	// The appender owns a; the test goroutine only reads it after stop.
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		matches := []string{"a", "b", "c", "d"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			m := matches[i%len(matches)]
			log := a.logs[m]
			var prev events.Hash
			if len(log) > 0 {
				prev = log[len(log)-1].Hash
			}
			evs := storetest.MakeEvents(m, uint64(len(log))+1, prev, 1+i%3)
			if err := st.Append(context.Background(), m, uint64(len(log)), evs); err != nil {
				done <- err
				return
			}
			a.logs[m] = append(log, evs...)
			time.Sleep(100 * time.Microsecond)
		}
	}()

	for i := 0; i < 3; i++ {
		time.Sleep(60 * time.Millisecond)
		srv.Shutdown()
		time.Sleep(60 * time.Millisecond)
		srv = startServer(t, dir, EmbeddedOptions{Port: port})
	}
	time.Sleep(50 * time.Millisecond)
	close(stop)
	if err := <-done; err != nil {
		t.Fatalf("append during outages: %v", err)
	}
	drained(t, r, 15*time.Second)
	t.Logf("%d events; relay stats %+v", a.total(), r.Stats())

	_, js := connect(t, srv)
	checkFeed(t, a, readStream(t, js, a.total()))
}

// lossyAcks is the bbolt store with Ack failing on chosen calls, as if the
// process died between JetStream's ack and the outbox update.
type lossyAcks struct {
	*bolt.Store
	calls, failFrom, failTo atomic.Int64
}

func (l *lossyAcks) Ack(ctx context.Context, keys []uint64) error {
	n := l.calls.Add(1)
	if n >= l.failFrom.Load() && n <= l.failTo.Load() {
		return errors.New("simulated crash before the outbox ack")
	}
	return l.Store.Ack(ctx, keys)
}

// TestRelayRepublishIsNeverStoredTwice: outbox acks are lost after
// JetStream stored the events, so the relay meets them again; none is
// stored twice.
func TestRelayRepublishIsNeverStoredTwice(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	a.add("m1", 10)
	a.add("m2", 10)

	ob := &lossyAcks{Store: st}
	ob.failFrom.Store(1)
	ob.failTo.Store(3)
	r := startRelay(t, ob, RelayOptions{Connect: srv.Connect, Batch: 8, MinBackoff: time.Millisecond})
	drained(t, r, 10*time.Second)
	a.add("m1", 5)
	drained(t, r, 10*time.Second)

	s := r.Stats()
	if s.Published != uint64(a.total()) {
		t.Errorf("published %d, want %d", s.Published, a.total())
	}
	// Each lost ack makes the relay meet its entries again (how many a
	// round holds depends on timing: at most the whole backlog); none of
	// them may reach the stream twice (checkFeed).
	if s.Duplicates == 0 || s.Duplicates > s.Published || s.Retries != 3 {
		t.Errorf("stats %+v, want duplicates after each of 3 lost acks", s)
	}
	checkFeed(t, a, readStream(t, js, a.total()))
}

// TestRelayRepublishAfterTheDuplicateWindow: a relay restarted long after a
// crash (its outbox never acked, the duplicate window long gone) meets
// every event again, and still stores none twice: the expected-sequence
// publish is refused and the relay finds each event already there.
func TestRelayRepublishAfterTheDuplicateWindow(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	a.add("m1", 6)
	a.add("m2", 4)

	// The first relay publishes everything but every outbox ack is lost.
	lost := &lossyAcks{Store: st}
	lost.failTo.Store(1 << 40)
	ctx, cancel := context.WithCancel(context.Background())
	first := NewRelay(lost, RelayOptions{Connect: srv.Connect, MinBackoff: time.Millisecond})
	done := make(chan error, 1)
	go func() { done <- first.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for first.Stats().Published < uint64(a.total()) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := countPending(t, st); n != a.total() {
		t.Fatalf("%d entries pending after the lost acks, want %d", n, a.total())
	}

	time.Sleep(DuplicateWindow + 200*time.Millisecond)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect})
	drained(t, r, 10*time.Second)
	if s := r.Stats(); s.Published != 0 || s.Duplicates != uint64(a.total()) {
		t.Errorf("second relay: %+v, want all %d found already there", s, a.total())
	}
	checkFeed(t, a, readStream(t, js, a.total()))
}

// TestRelayRecreatesAndBackfillsMissingStream: the stream is deleted under
// a running relay (or NATS came back with an empty dir); the relay
// re-creates it and republishes every match from the store, in order,
// before what is appended next.
func TestRelayRecreatesAndBackfillsMissingStream(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect, MinBackoff: time.Millisecond, Batch: 5})
	a.add("m1", 3)
	a.add("m2", 12)
	drained(t, r, 10*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := js.DeleteStream(ctx, StreamName); err != nil {
		t.Fatal(err)
	}
	a.add("m2", 4)
	a.add("m3", 2)
	drained(t, r, 10*time.Second)
	checkFeed(t, a, readStream(t, js, a.total()))
	s := r.Stats()
	if s.Retries == 0 {
		t.Errorf("publishing to the deleted stream did not fail once")
	}
	if s.Backfilled != 15 {
		t.Errorf("backfilled %d events, want the 15 the deleted stream held (stats %+v)", s.Backfilled, s)
	}
	if d := r.AllDiffers(); len(d) != 0 {
		t.Errorf("a re-created stream is no finding, got %v", d)
	}
}

// TestRelayBackfillsAStreamLostWhileStopped: the recorder restarts on a
// NATS server that lost its store; the relay fills the new stream from the
// record, every match in order, and flags nothing.
func TestRelayBackfillsAStreamLostWhileStopped(t *testing.T) {
	st := openBolt(t)
	a := newAppender(t, st)
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	r := NewRelay(st, RelayOptions{Connect: srv.Connect})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	a.add("m1", 7)
	a.add("m2", 3)
	drained(t, r, 10*time.Second)
	cancel()
	<-done
	srv.Shutdown()

	srv = startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true}) // an empty store dir
	r = startRelay(t, st, RelayOptions{Connect: srv.Connect, Batch: 4})
	drained(t, r, 10*time.Second)
	_, js := connect(t, srv)
	checkFeed(t, a, readStream(t, js, a.total()))
	if s := r.Stats(); s.Backfilled != 10 || len(r.AllDiffers()) != 0 {
		t.Errorf("stats %+v, findings %v; want 10 backfilled, none", s, r.AllDiffers())
	}
}

func waitRetries(t *testing.T, r *Relay, n uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.Stats().Retries < n {
		if time.Now().After(deadline) {
			t.Fatalf("relay retried %d times, want %d", r.Stats().Retries, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func countPending(t *testing.T, ob store.Outbox) int {
	t.Helper()
	n := 0
	if err := ob.Pending(context.Background(), 0, func(store.OutboxEntry) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRelayPublishesBranchesFromTheirFork: a branch's subject carries only
// its own events, the first published with no predecessor on the subject;
// a lost stream is refilled the same way (the inherited events stay on the
// parent's subject), and the branch's copy checks out.
func TestRelayPublishesBranchesFromTheirFork(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	parent := a.add("m1", 5)
	own := storetest.MakeEvents("b1", 4, parent[2].Hash, 3)
	if err := st.Branch(context.Background(), "b1", "m1", 3, own); err != nil {
		t.Fatal(err)
	}
	a.logs["b1"] = own
	id := newIdentity(t)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect, Sign: id, MinBackoff: time.Millisecond})
	drained(t, r, 10*time.Second)
	checkFeed(t, a, readStream(t, js, a.total()))

	follow := startFollow(t, srv, "b1", store.Head{Seq: 3, Hash: parent[2].Hash}, &SignatureCheck{Key: id.PublicKey()})
	follow.expect(t, own)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := js.DeleteStream(ctx, StreamName); err != nil {
		t.Fatal(err)
	}
	more := storetest.MakeEvents("b1", 7, own[2].Hash, 1)
	if err := st.Append(ctx, "b1", 6, more); err != nil {
		t.Fatal(err)
	}
	a.logs["b1"] = append(a.logs["b1"], more...)
	drained(t, r, 10*time.Second)
	checkFeed(t, a, readStream(t, js, a.total()))
	if res := busCheck(t, js, st, "b1"); !res.Equal || res.Recorded != 4 || res.Checked != 4 {
		t.Fatalf("buscheck of the branch: %+v", res)
	}
	if d := r.AllDiffers(); len(d) != 0 {
		t.Fatalf("findings %v", d)
	}
}
