package node

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

func examples(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.yaml", "*.yml", "*.json"} {
		m, err := filepath.Glob(filepath.Join(examplesDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatal("no examples found")
	}
	return out
}

// Replay equals live: each example is recorded through the API of a
// serving node; then the board as a live follower of the event stream
// built it, event by event, the board a fresh fold of the bbolt file gives,
// the board the API reports, and the board after a restart of the node are
// all the same, and the recorder's own last pending step matches the fold.
func TestReplayEqualsLive(t *testing.T) {
	for _, path := range examples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			dir := t.TempDir()
			n := startServing(t, dir)
			c := remote(t, n)
			m, livePending := play(t, c, readScript(t, path), -1)

			head, err := n.Recorder().Store().Head(ctx, m.Match)
			if err != nil {
				t.Fatal(err)
			}
			live := follow(ctx, t, n, m.Match, head.Seq)
			fresh, _, err := fold.Fold(ctx, n.Recorder().Store(), m.Match, 0, editions.Lookup)
			if err != nil {
				t.Fatal(err)
			}
			if fresh.Seq != head.Seq || live.Seq != head.Seq {
				t.Fatalf("fold at %d, follower at %d, store head %d", fresh.Seq, live.Seq, head.Seq)
			}
			sameState(t, "follower vs fresh fold", live, fresh)
			if !reflect.DeepEqual(livePending, fresh.Pending) {
				t.Errorf("the recorder's live pending step %+v differs from the fold's %+v", livePending, fresh.Pending)
			}
			apiBefore := apiState(ctx, t, c, m.Match)
			if want := canonicalJSON(t, fresh); apiBefore != want {
				t.Errorf("the API's state differs from the fresh fold")
			}

			// Restart: the same data directory, an in-process node.
			if err := n.Close(); err != nil {
				t.Fatal(err)
			}
			n2, err := Open(ctx, Config{DataDir: dir, InProcess: true})
			if err != nil {
				t.Fatal(err)
			}
			defer n2.Close()
			nc, err := n2.Connect()
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if after := apiState(ctx, t, &natsbus.Client{Conn: nc}, m.Match); after != apiBefore {
				t.Errorf("the state after a restart differs from the state before")
			}
		})
	}
}

var errCaughtUp = errors.New("caught up")

// follow folds a match as a live viewer would: from the JetStream feed,
// one event at a time, until it reaches seq.
func follow(ctx context.Context, t *testing.T, n *Node, match string, seq uint64) *projector.State {
	t.Helper()
	nc, err := nats.Connect(n.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	f := fold.NewFolder(match, editions.Lookup)
	err = natsbus.Subscribe(ctx, js, match, 1, func(e events.Event) error {
		if err := f.Apply(e); err != nil {
			return err
		}
		if e.Seq == seq {
			return errCaughtUp
		}
		return nil
	})
	if !errors.Is(err, errCaughtUp) {
		t.Fatalf("following %s: %v (at %d of %d)", match, err, f.State.Seq, seq)
	}
	return f.State
}

func sameState(t *testing.T, what string, a, b *projector.State) {
	t.Helper()
	ha, err := a.Hash()
	if err != nil {
		t.Fatal(err)
	}
	hb, err := b.Hash()
	if err != nil {
		t.Fatal(err)
	}
	if ha != hb {
		t.Errorf("%s: state hashes differ (%s vs %s)", what, ha, hb)
	}
}

func apiState(ctx context.Context, t *testing.T, c *natsbus.Client, match string) string {
	t.Helper()
	var raw json.RawMessage
	if err := c.Call(ctx, VerbState, StateRequest{Match: match}, &raw); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// canonicalJSON is a state's JSON with object keys sorted, comparable with
// apiState.
func canonicalJSON(t *testing.T, s *projector.State) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// The events verb tells every event with its narration, and pages a long
// match so that no reply outgrows a NATS message.
func TestEventsVerbPagesAndNarrates(t *testing.T) {
	n := startServing(t, t.TempDir())
	c := remote(t, n)
	ctx := context.Background()
	m, _ := play(t, c, readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml")), -1)

	var all EventsResult
	if err := c.Call(ctx, VerbEvents, EventsRequest{Match: m.Match}, &all); err != nil {
		t.Fatal(err)
	}
	head, _ := n.Recorder().Store().Head(ctx, m.Match)
	if uint64(len(all.Events)) != head.Seq || all.Next != 0 {
		t.Fatalf("%d events (next %d) for a match of %d", len(all.Events), all.Next, head.Seq)
	}
	var summaries int
	for i, e := range all.Events {
		if e.Seq != uint64(i+1) || e.Text == "" || len(e.Payload) == 0 {
			t.Fatalf("event %d: %+v", i+1, e)
		}
		if strings.Contains(e.Text, "\nTurn ") {
			summaries++
		}
		if e.Type == events.TypeMatchCreated && strings.Contains(string(e.Payload), "tokens") {
			t.Error("the log shows the token hashes")
		}
	}
	if summaries == 0 {
		t.Error("no attack summary in the narration")
	}

	// Small pages: the same events, in order, across several replies.
	defer func(old int) { pageBytes = old }(pageBytes)
	pageBytes = 4 << 10
	var paged []EventJSON
	req := EventsRequest{Match: m.Match, From: 2}
	pages := 0
	for {
		var page EventsResult
		if err := c.Call(ctx, VerbEvents, req, &page); err != nil {
			t.Fatal(err)
		}
		pages++
		paged = append(paged, page.Events...)
		if page.Next == 0 {
			break
		}
		req.From = page.Next
	}
	if pages < 2 || !reflect.DeepEqual(paged, all.Events[1:]) {
		t.Fatalf("%d pages gave %d events; want the %d events after the first", pages, len(paged), len(all.Events)-1)
	}

	// A range, and the errors of the verb.
	var some EventsResult
	if err := c.Call(ctx, VerbEvents, EventsRequest{Match: m.Match, From: 5, To: 7}, &some); err != nil || len(some.Events) != 3 || some.Events[0].Seq != 5 {
		t.Fatalf("range 5..7: %+v %v", some.Events, err)
	}
	for _, bad := range []struct {
		req  EventsRequest
		code projector.Code
	}{
		{EventsRequest{Match: "nosuchmatch"}, projector.CodeNotFound},
		{EventsRequest{Match: "../etc"}, projector.CodeBadRequest},
		{EventsRequest{Match: m.Match, From: 9, To: 3}, projector.CodeBadRequest},
	} {
		var ae *api.Error
		if err := c.Call(ctx, VerbEvents, bad.req, nil); !errors.As(err, &ae) || ae.Code != bad.code {
			t.Errorf("%+v: want %s, got %v", bad.req, bad.code, err)
		}
	}
}

// The bundle verb pages through a match's records: every record once, in
// order, the audit context on the first page only, and the assembled
// bundle verifies.
func TestBundleVerbPages(t *testing.T) {
	n := startServing(t, t.TempDir())
	c := remote(t, n)
	ctx := context.Background()
	m, _ := play(t, c, readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml")), -1)
	defer func(old int) { pageBytes = old }(pageBytes)
	pageBytes = 4 << 10
	var b *replay.Bundle
	pages := 0
	for req := (BundleRequest{Match: m.Match}); ; pages++ {
		var page BundleResult
		if err := c.Call(ctx, VerbBundle, req, &page); err != nil {
			t.Fatal(err)
		}
		if b == nil {
			first := page.Bundle
			b = &first
		} else {
			if page.StateHash != (events.Hash{}) {
				t.Fatal("a later page repeats the first page's context")
			}
			b.Keys = append(b.Keys, page.Keys...)
			b.Records = append(b.Records, page.Records...)
		}
		if page.Next == 0 {
			break
		}
		req.From = page.Next
	}
	head, _ := n.Recorder().Store().Head(ctx, m.Match)
	if pages < 2 || uint64(len(b.Records)) != head.Seq {
		t.Fatalf("%d pages, %d records for %d events", pages+1, len(b.Records), head.Seq)
	}
	for i, k := range b.Keys {
		if k != uint64(i+1) {
			t.Fatalf("record %d has key %d", i+1, k)
		}
	}
	if rep := b.Verify(n.cfg.Rules); !rep.OK || !rep.Refold.Compared {
		t.Fatalf("assembled bundle: ok=%v %v %v", rep.OK, rep.Chain.Problems, rep.Refold.Problems)
	}
}
