package natsbus

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/bolt"
)

// On a store that keeps the transparency log, the relay signs no event:
// every message carries the checkpoint the store signed per group commit
// and the event's inclusion proof; a follower outside the recorder checks
// them and delivers the feed. A message whose proof is another event's,
// or whose checkpoint is not the recorder's, stops the feed (a forgery
// on an open bus).
func TestRelayVouchesByTheLog(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	_, js := connect(t, srv)
	id := newIdentity(t)
	signer, err := id.LogSigner()
	if err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(filepath.Join(t.TempDir(), "matchrec.db"), bolt.Options{NoSync: true, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	a := newAppender(t, st)
	r := startRelay(t, st, RelayOptions{Connect: srv.Connect, Sign: id})
	for i := 0; i < 4; i++ {
		a.add("m1", 3)
		a.add("m2", 2)
	}
	drained(t, r, 10*time.Second)
	a.key = id.PublicKey()
	msgs := readStream(t, js, a.total())
	checkFeed(t, a, msgs)
	checkpoints := map[string]bool{}
	for _, m := range msgs {
		h := m.Headers()
		if h.Get(HeaderSig) != "" || h.Get(HeaderLogProof) == "" || h.Get(HeaderCheckpoint) == "" {
			t.Fatalf("a message signed on its own, or not vouched for by the log: %v", h)
		}
		checkpoints[h.Get(HeaderCheckpoint)] = true
	}
	if len(checkpoints) >= len(msgs) {
		t.Fatalf("%d checkpoints for %d messages: not one signature per batch", len(checkpoints), len(msgs))
	}
	follow := startFollow(t, srv, "m1", store.Head{}, &SignatureCheck{Key: id.PublicKey()})
	follow.expect(t, a.logs["m1"])

	// A forger publishes the next event of m2 with a real checkpoint and
	// the proof of another event.
	m2 := a.logs["m2"]
	fake := forgedNext(t, m2)
	msg, err := NewMsg(fake, nil)
	if err != nil {
		t.Fatal(err)
	}
	real := msgs[len(msgs)-1].Headers()
	msg.Header[HeaderCheckpoint] = []string{real.Get(HeaderCheckpoint)}
	msg.Header[HeaderLogProof] = []string{real.Get(HeaderLogProof)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	sub := startFollow(t, srv, "m2", store.Head{}, &SignatureCheck{Key: id.PublicKey()})
	sub.expect(t, m2)
	err = sub.result(t)
	var bd *BusDiffersError
	if !errors.As(err, &bd) || !errors.Is(err, ErrNotRecorders) || bd.Seq != fake.Seq || !strings.Contains(err.Error(), "not of this event") {
		t.Fatalf("a forged message with another event's proof: %v", err)
	}
	// And another recorder's checkpoint is refused too.
	other := newIdentity(t)
	if err := (&SignatureCheck{Key: other.PublicKey()}).Check(ctx, msgs[0], a.logs[msgs0Match(t, msgs[0])][0]); !errors.Is(err, ErrNotRecorders) {
		t.Fatalf("another recorder's key: %v", err)
	}
}

// forgedNext is the event after log's last, as a forger makes it.
func forgedNext(t *testing.T, log []events.Event) events.Event {
	t.Helper()
	last := log[len(log)-1]
	e, err := events.New(last.Match, last.Seq+1, last.Hash, last.Time+1, events.Actor{Kind: events.ActorPlayer, ID: "p1"}, events.TurnStarted{Turn: 99, Player: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func msgs0Match(t *testing.T, m jetstream.Msg) string {
	t.Helper()
	e, err := DecodeMsg(m)
	if err != nil {
		t.Fatal(err)
	}
	return e.Match
}
