package web_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/matchrec/matchrec/store/api"
)

// A client that disconnects and reconnects with its last id (as
// EventSource does, in Last-Event-ID) receives every event it missed,
// once, in order, and then the live ones; the first connection gets the
// history and live events alike.
func TestSSEResumeFromLastEventID(t *testing.T) {
	r := newRig(t, 0)
	m := r.create(readScript(t, "3e-boltguns-vs-boyz.yaml"))
	head := r.playTo(m, 10)
	path := "/api/matches/" + m.id + "/stream"

	c, code, body := r.openSSE(path+"?from=1", nil)
	if c == nil {
		t.Fatalf("stream: %d %s", code, body)
	}
	var last uint64
	expect := func(c *sseClient, seq uint64) sseMsg {
		t.Helper()
		msg := c.next(10 * time.Second)
		if msg.data.Event.Seq != seq || msg.id != strconv.FormatUint(seq, 10) {
			t.Fatalf("want event %d, got id %s event %d", seq, msg.id, msg.data.Event.Seq)
		}
		last = seq
		return msg
	}
	for seq := uint64(1); seq <= head; seq++ {
		msg := expect(c, seq)
		if seq == head && msg.data.State == nil {
			t.Fatal("the last event of the history came without the board")
		}
		if msg.data.State != nil && msg.data.State.Seq != seq {
			t.Fatalf("event %d carries the board after %d", seq, msg.data.State.Seq)
		}
	}

	// Live: each acknowledged event arrives, with its board.
	var lat []time.Duration
	for range 3 {
		res := r.step(m)
		acked := time.Now()
		for _, e := range res.Events {
			msg := expect(c, e.Seq)
			lat = append(lat, msg.at.Sub(acked))
			if msg.data.Event.Text == "" {
				t.Fatalf("event %d has no narration", e.Seq)
			}
		}
	}
	t.Logf("acknowledged → received by an SSE client: %v", lat)
	c.close()

	// Missed while away: recorded with no client connected.
	for range 5 {
		r.step(m)
	}
	head = r.state(m.id, 0).Seq

	// The browser reconnects to the URL it first used, with its last id;
	// the header wins over the stale ?from=.
	c2, code, body := r.openSSE(path+"?from=1", http.Header{"Last-Event-Id": {fmt.Sprint(last)}})
	if c2 == nil {
		t.Fatalf("reconnect: %d %s", code, body)
	}
	var got []uint64
	for len(got) == 0 || got[len(got)-1] < head {
		msg := c2.next(10 * time.Second)
		got = append(got, msg.data.Event.Seq)
	}
	if msg, quiet := c2.quiet(300 * time.Millisecond); !quiet {
		t.Fatalf("a duplicate or stray message after the catch-up: %+v", msg)
	}
	want := []uint64{}
	for s := last + 1; s <= head; s++ {
		want = append(want, s)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after reconnecting at %d: got %v, want %v", last, got, want)
	}
	// And it goes on live.
	res := r.step(m)
	for _, e := range res.Events {
		if msg := c2.next(10 * time.Second); msg.data.Event.Seq != e.Seq || msg.data.State == nil {
			t.Fatalf("live after resume: got event %d, want %d with its board", msg.data.Event.Seq, e.Seq)
		}
	}
}

// A branch's stream tells its inherited history (which its own NATS
// subject does not carry: the store does) and then follows its own
// events live, with no gap at the seam.
func TestSSEFollowsABranch(t *testing.T) {
	r := newRig(t, 0)
	sc := readScript(t, "3e-boltguns-vs-boyz.yaml")
	m := r.create(sc)
	r.playTo(m, 12)
	var br api.CreateResult
	if err := r.api.Call(context.Background(), api.VerbBranch, api.BranchRequest{Parent: m.id, At: 4, Name: "what if", Token: m.judge()}, &br); err != nil {
		t.Fatal(err)
	}
	b := &match{id: br.Match, tokens: br.Tokens, sc: sc, next: 2} // at event 4: the shooting phase, as after step 2
	head := r.state(b.id, 0).Seq

	c, code, body := r.openSSE("/api/matches/"+b.id+"/stream", nil)
	if c == nil {
		t.Fatalf("branch stream: %d %s", code, body)
	}
	for seq := uint64(1); seq <= head; seq++ {
		if msg := c.next(10 * time.Second); msg.data.Event.Seq != seq {
			t.Fatalf("branch history: want event %d, got %d", seq, msg.data.Event.Seq)
		}
	}
	res := r.step(b) // the branch's own shooting declaration
	msg := c.next(10 * time.Second)
	if msg.data.Event.Seq != res.Events[0].Seq || msg.data.State == nil || msg.data.State.Match != b.id || msg.data.State.Attack == nil {
		t.Fatalf("branch live: event %d, board %+v", msg.data.Event.Seq, msg.data.State)
	}
}
