package node

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store"
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
	nc, err := nats.Connect(n.URL(), clientLogin(n, natsbus.RoleViewer)...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	f := fold.NewFolder(match, editions.Lookup)
	err = natsbus.Subscribe(ctx, js, match, store.Head{}, &natsbus.SignatureCheck{Key: n.Identity()}, func(e events.Event) error {
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
	if err := c.Call(ctx, api.VerbState, api.StateRequest{Match: match}, &raw); err != nil {
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
