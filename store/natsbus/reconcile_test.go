package natsbus

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store/api"
)

// busCheck runs BusCheck on a connection of the test's own.
func busCheck(t *testing.T, js jetstream.JetStream, st RelayStore, match string) api.BusCheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := BusCheck(ctx, js, st, match, nil)
	if err != nil {
		t.Fatalf("buscheck %s: %v", match, err)
	}
	return res
}

// TestRelayDetectsAShortenedStream: the NATS server comes back from an
// older copy of its store (restored from a backup, or an OS crash lost the
// tail JetStream had not synced): the stream lacks events it once
// acknowledged, which the outbox no longer holds. The relay's idle check
// notices the stream lost messages, flags the match, and republishes the
// lost events from the record. DenyPurge itself cannot be lifted: the
// server refuses.
func TestRelayDetectsAShortenedStream(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nats")
	srv := startServer(t, dir, EmbeddedOptions{Port: -1})
	port := srv.Port()
	_, js := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := StreamConfig()
	cfg.DenyPurge = false
	if _, _, err := EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	if _, err := js.UpdateStream(ctx, cfg); err == nil {
		t.Fatal("the server let DenyPurge be lifted")
	}

	st := openBolt(t)
	a := newAppender(t, st)
	a.add("m1", 6)
	a.add("m2", 4)
	r := startRelay(t, st, RelayOptions{URL: srv.ClientURL(), Poll: 50 * time.Millisecond,
		Reconnect: Reconnect{Wait: 10 * time.Millisecond, MaxWait: 50 * time.Millisecond}})
	drained(t, r, 10*time.Second)
	srv.Shutdown()
	backup := filepath.Join(t.TempDir(), "backup")
	if err := os.CopyFS(backup, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}

	srv = startServer(t, dir, EmbeddedOptions{Port: port})
	a.add("m1", 4)
	drained(t, r, 10*time.Second)
	if res := busCheck(t, connectJS(t, srv), st, "m1"); !res.Equal || res.Checked != 10 {
		t.Fatalf("buscheck before: %+v", res)
	}
	srv.Shutdown()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(backup, dir); err != nil {
		t.Fatal(err)
	}
	srv = startServer(t, dir, EmbeddedOptions{Port: port})

	deadline := time.Now().Add(10 * time.Second)
	for {
		d, ok := r.Differs("m1")
		if ok {
			if d.Forged || d.Seq != 7 || !strings.Contains(d.Reason, "lost 4 of the 10") {
				t.Fatalf("finding %+v", d)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay never noticed the lost events (stats %+v)", r.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	drained(t, r, 10*time.Second)
	js = connectJS(t, srv)
	if res := busCheck(t, js, st, "m1"); !res.Equal || res.Checked != 10 {
		t.Fatalf("buscheck after the backfill: %+v", res)
	}
	if r.Stats().Backfilled != 4 {
		t.Errorf("backfilled %d, want 4", r.Stats().Backfilled)
	}
	if _, ok := r.Differs("m2"); ok {
		t.Errorf("m2 was flagged too")
	}
	checkFeed(t, a, readStream(t, js, a.total()))
}

func connectJS(t *testing.T, srv *Embedded) jetstream.JetStream {
	t.Helper()
	_, js := connect(t, srv)
	return js
}

// TestBusCheckNamesTheFirstDifference: a copy that holds something the
// recorder did not write is named at its first differing sequence.
func TestBusCheckNamesTheFirstDifference(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	a.add("m1", 5)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect})
	drained(t, r, 10*time.Second)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := busCheck(t, js, st, "m1")
	if !res.Equal || res.Recorded != 5 || res.OnBus != 5 {
		t.Fatalf("m1: %+v", res)
	}

	// A forgery after event 5.
	forged := a.logs["m1"][4]
	forged.Seq, forged.PrevHash = 6, a.logs["m1"][4].Hash
	forged.Hash = events.ComputeHash(forged)
	m, err := NewMsg(forged, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	res = busCheck(t, js, st, "m1")
	if res.Equal || res.FirstDiffers != 6 || !strings.Contains(res.Problem, "after the record's last") {
		t.Fatalf("m1 with a forgery: %+v", res)
	}
	if _, err := BusCheck(ctx, js, st, "nosuch", nil); err == nil {
		t.Errorf("buscheck of an unknown match: no error")
	}
}

// TestBusCheckTellsALaggingCopyFromADifferentOne (issue 20, item 5): a
// data directory copied without its stream has every event published (the
// outbox is empty) and none on the bus. That copy lags the record; it does
// not differ from it: buscheck names what is missing and no first
// differing event; once the relay republished it, the copy is whole.
func TestBusCheckTellsALaggingCopyFromADifferentOne(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	st := openBolt(t)
	a := newAppender(t, st)
	a.add("m1", 7)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect})
	drained(t, r, 10*time.Second)

	// The copy's server: a stream of its own, empty.
	copied := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	js := connectJS(t, copied)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	res := busCheck(t, js, st, "m1")
	if res.Equal || res.FirstDiffers != 0 || res.Missing != 7 || res.MissingFrom != 1 || !strings.Contains(res.Problem, "nothing on the bus differs") {
		t.Fatalf("a lagging copy: %+v", res)
	}
	drained(t, startRelay(t, st, RelayOptions{Connect: copied.Connect}), 20*time.Second)
	res = busCheck(t, js, st, "m1")
	if !res.Equal {
		t.Fatalf("after the republish: %+v", res)
	}
	if res.Checked != 7 || res.Missing != 0 {
		t.Fatalf("after the republish: %+v", res)
	}
}

// TestBusCheckWantsTheRecordersVouching: someone who read the store
// publishes an event's exact bytes ahead of the relay, without the
// recorder's signature. The relay finds the event there and moves on; the
// copy equals the record byte for byte, yet no follower outside the
// recorder accepts it: buscheck, given the recorder's key, names it.
func TestBusCheckWantsTheRecordersVouching(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	id := newIdentity(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	evs := a.add("m1", 4)
	copied, err := NewMsg(evs[0], nil) // the right bytes, no signature
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.PublishMsg(ctx, copied); err != nil {
		t.Fatal(err)
	}
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect, Sign: id})
	drained(t, r, 10*time.Second)

	if res := busCheck(t, js, st, "m1"); !res.Equal {
		t.Fatalf("without the key, the copy is the record's bytes: %+v", res)
	}
	res, err := BusCheck(ctx, js, st, "m1", id.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	if res.Equal || res.FirstDiffers != 1 || !strings.Contains(res.Problem, "did not put it there") {
		t.Fatalf("with the recorder's key: %+v, want event 1 named", res)
	}
	// The relay's own messages (2-4) pass: a copy of its own is equal.
	st2 := openBolt(t)
	a2 := newAppender(t, st2)
	a2.add("m2", 4)
	r2 := startRelay(t, st2, RelayOptions{Connect: srv.Connect, Sign: id})
	drained(t, r2, 10*time.Second)
	if res, err := BusCheck(ctx, js, st2, "m2", id.PublicKey()); err != nil || !res.Equal {
		t.Fatalf("the relay's own copy, with its key: %+v (%v)", res, err)
	}
}
