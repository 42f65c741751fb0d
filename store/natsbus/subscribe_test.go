package natsbus

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/storetest"
)

// follow runs Subscribe in the background and collects what it delivers.
type follow struct {
	got    chan events.Event
	done   chan error
	cancel context.CancelFunc
}

func startFollow(t *testing.T, srv *Embedded, match string, after store.Head, check Check) *follow {
	t.Helper()
	_, js := connect(t, srv) // its own connection, as a live view would have
	return startFollowOn(t, js, match, after, check)
}

func startFollowOn(t *testing.T, js jetstream.JetStream, match string, after store.Head, check Check) *follow {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &follow{got: make(chan events.Event, 1000), done: make(chan error, 1), cancel: cancel}
	go func() {
		f.done <- Subscribe(ctx, js, match, after, check, func(e events.Event) error {
			f.got <- e
			return nil
		})
	}()
	t.Cleanup(cancel)
	return f
}

// next returns the next delivered event, or Subscribe's result once it
// has returned and everything it delivered has been read (ended true).
func (f *follow) next(wait time.Duration) (e events.Event, ended bool, err error) {
	select {
	case e := <-f.got:
		return e, false, nil
	case err := <-f.done:
		f.done <- err // keep it for the next caller
		// fn sent to got before Subscribe returned: drain that first.
		select {
		case e := <-f.got:
			return e, false, nil
		default:
			return events.Event{}, true, err
		}
	case <-time.After(wait):
		return events.Event{}, false, errors.New("timed out")
	}
}

// expect receives exactly want, in order.
func (f *follow) expect(t *testing.T, want []events.Event) {
	t.Helper()
	for _, w := range want {
		e, ended, err := f.next(10 * time.Second)
		switch {
		case ended:
			t.Fatalf("subscribe ended waiting for %s/%d: %v", w.Match, w.Seq, err)
		case err != nil:
			t.Fatalf("waiting for %s/%d: %v", w.Match, w.Seq, err)
		case e.Seq != w.Seq || e.Hash != w.Hash || e.Match != w.Match:
			t.Fatalf("got %s/%d, want %s/%d", e.Match, e.Seq, w.Match, w.Seq)
		}
	}
}

func (f *follow) expectNothing(t *testing.T) {
	t.Helper()
	e, ended, err := f.next(100 * time.Millisecond)
	switch {
	case ended:
		t.Fatalf("subscribe ended: %v", err)
	case err == nil:
		t.Fatalf("unexpected %s/%d", e.Match, e.Seq)
	}
}

// result waits for Subscribe to return, after everything it delivered.
func (f *follow) result(t *testing.T) error {
	t.Helper()
	e, ended, err := f.next(10 * time.Second)
	if !ended {
		t.Fatalf("subscribe did not end (next: %s/%d, %v)", e.Match, e.Seq, err)
	}
	return err
}

// headAt is the verified head a follower resumes after: event seq of log
// (0: none).
func headAt(log []events.Event, seq uint64) store.Head {
	if seq == 0 {
		return store.Head{}
	}
	return store.Head{Seq: seq, Hash: log[seq-1].Hash}
}

// acceptAll is a check that vouches for every event: for tests of what
// Subscribe checks itself.
type acceptAll struct{}

func (acceptAll) Check(context.Context, jetstream.Msg, events.Event) error { return nil }

func TestSubscribeResumesFromSeq(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	st := openBolt(t)
	a := newAppender(t, st)
	id := newIdentity(t)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect, Sign: id})

	for i := 0; i < 5; i++ {
		a.add("m1", 2)
		a.add("other", 3)
	}
	drained(t, r, 10*time.Second)

	check := RecordCheck{Store: st}
	all := startFollow(t, srv, "m1", store.Head{}, check)
	mid := startFollow(t, srv, "m1", headAt(a.logs["m1"], 3), &SignatureCheck{Key: id.PublicKey()})
	all.expect(t, a.logs["m1"])
	mid.expect(t, a.logs["m1"][3:])

	// A copy of an already delivered event published again (on a bus
	// without permissions anyone can): followers skip it by Seq, and the
	// relay goes on after it.
	old := a.logs["m1"][4]
	m, err := NewMsg(old, id)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if ack, err := js.PublishMsg(ctx, m); err != nil || ack.Duplicate {
		t.Fatalf("publish copy: ack %+v, err %v", ack, err)
	}
	all.expectNothing(t)

	// They keep following live appends.
	live := a.add("m1", 5)
	all.expect(t, live)
	mid.expect(t, live)
	if d, ok := r.Differs("m1"); !ok || d.Forged {
		t.Errorf("relay finding after a replayed copy: %+v %v, want a non-forged flag", d, ok)
	}

	// A follower stopped after event 7 resumes from 8: no gap, no repeat.
	resumed := startFollow(t, srv, "m1", headAt(a.logs["m1"], 7), check)
	resumed.expect(t, a.logs["m1"][7:])
	resumed.expectNothing(t)

	// Cancelling ends Subscribe with nil.
	all.cancel()
	if err := all.result(t); err != nil {
		t.Errorf("Subscribe after cancel: %v", err)
	}
}

func TestSubscribeReportsGapsAndBrokenChains(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := EnsureStream(ctx, js); err != nil {
		t.Fatal(err)
	}
	publish := func(evs ...events.Event) {
		t.Helper()
		for _, e := range evs {
			m, err := NewMsg(e, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := js.PublishMsg(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	// gappy: 1, 2, then 4.
	g := storetest.MakeEvents("gappy", 1, events.Hash{}, 4)
	publish(g[0], g[1], g[3])
	f := startFollow(t, srv, "gappy", store.Head{}, acceptAll{})
	f.expect(t, g[:2])
	if err := f.result(t); !errors.Is(err, ErrGap) || !errors.Is(err, ErrBusDiffers) {
		t.Errorf("gap: got %v, want ErrGap and ErrBusDiffers", err)
	}

	// forked: event 2 of another history follows event 1.
	a := storetest.MakeEvents("forked", 1, events.Hash{}, 1)
	b := storetest.MakeEvents("forked", 2, events.Hash{1}, 1)
	publish(a[0], b[0])
	f = startFollow(t, srv, "forked", store.Head{}, acceptAll{})
	f.expect(t, a)
	var de *BusDiffersError
	if err := f.result(t); !errors.Is(err, ErrBrokenChain) || !errors.As(err, &de) || de.Seq != 2 || de.Match != "forked" {
		t.Errorf("fork: got %v, want a BusDiffersError at event 2 with ErrBrokenChain", err)
	}

	// The first event after the verified head must link to it too.
	f = startFollow(t, srv, "gappy", store.Head{Seq: 1, Hash: events.Hash{7}}, acceptAll{})
	if err := f.result(t); !errors.Is(err, ErrBrokenChain) {
		t.Errorf("after a head it does not link to: got %v, want ErrBrokenChain", err)
	}

	// An error from fn ends Subscribe with that error.
	stop := errors.New("enough")
	err := Subscribe(ctx, js, "gappy", store.Head{}, acceptAll{}, func(events.Event) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("fn error: got %v", err)
	}

	if err := Subscribe(ctx, js, "bad.match", store.Head{}, acceptAll{}, nil); !errors.Is(err, ErrBadMatchID) {
		t.Errorf("bad match id: got %v", err)
	}
	if err := Subscribe(ctx, js, "gappy", store.Head{}, nil, nil); err == nil {
		t.Errorf("a follower without a check was accepted")
	}
}

func TestDecodeRejectsMisroutedAndDamaged(t *testing.T) {
	e := storetest.MakeEvents("m1", 1, events.Hash{}, 1)[0]
	m, err := NewMsg(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeData(m.Subject, m.Data); err != nil || got.Hash != e.Hash {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := DecodeData(SubjectPrefix+"m2", m.Data); !errors.Is(err, events.ErrMalformed) {
		t.Errorf("wrong subject: %v", err)
	}
	damaged := e
	damaged.Time++
	if _, err := DecodeData(m.Subject, events.Marshal(damaged)); !errors.Is(err, events.ErrMalformed) {
		t.Errorf("damaged: %v", err)
	}
	if _, err := DecodeData(m.Subject, []byte("nope")); !errors.Is(err, events.ErrMalformed) {
		t.Errorf("garbage: %v", err)
	}
}

func TestValidMatchID(t *testing.T) {
	for _, id := range []string{"m1", "A-b_9", "x", "0123456789012345678901234567890123456789012345678901234567890123"} {
		if err := ValidMatchID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", "a.b", "a*", ">", "a b", "ä", "a/b", "01234567890123456789012345678901234567890123456789012345678901234"} {
		if err := ValidMatchID(id); !errors.Is(err, ErrBadMatchID) {
			t.Errorf("%q: got %v, want ErrBadMatchID", id, err)
		}
	}
	if _, err := NewMsg(events.Event{Match: "a.b"}, nil); !errors.Is(err, ErrBadMatchID) {
		t.Errorf("NewMsg with a bad id: %v", err)
	}
}
