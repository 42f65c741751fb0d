package natsbus

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/store/api"
)

// A client's session (Heads) learns the head each write's receipt vouches
// for, and sends it with every later request about that match (the
// Matchrec-After header), which the server hands its handler
// (api.AfterOf): a read after a write is answered at least that far, on
// whichever recorder takes it. Requests about other matches, and a
// session that saw nothing, carry no floor.
func TestHeadsCarryReadYourWrites(t *testing.T) {
	e := startServer(t, t.TempDir(), EmbeddedOptions{})
	nc, _ := connect(t, e)
	var mu sync.Mutex
	seen := map[string]api.After{}
	rc := newIdentity(t).Receipt(auth.Receipt{Match: "m1", Seq: 7, Hash: events.Hash{7}})
	serve(t, nc, api.Verbs{
		api.VerbDeclare: func(ctx context.Context, _ []byte) (any, error) {
			a, _ := api.AfterOf(ctx)
			mu.Lock()
			seen[api.VerbDeclare] = a
			mu.Unlock()
			return api.Result{Match: "m1", Receipt: &rc}, nil
		},
		api.VerbState: func(ctx context.Context, body []byte) (any, error) {
			a, _ := api.AfterOf(ctx)
			mu.Lock()
			seen[api.MatchOf(body)] = a
			mu.Unlock()
			return json.RawMessage(`{}`), nil
		},
	})
	heads := NewHeads()
	c := &Client{Conn: nc, Heads: heads}
	ctx := context.Background()
	if err := c.Call(ctx, api.VerbState, api.StateRequest{Match: "m1"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: "m1"}, nil); err != nil {
		t.Fatal(err)
	}
	if heads.Of("m1") != 7 {
		t.Fatalf("the session learnt head %d from the receipt, want 7", heads.Of("m1"))
	}
	mu.Lock()
	before := seen["m1"]
	mu.Unlock()
	if before.Seq != 0 {
		t.Fatalf("a read before any write carried a floor: %+v", before)
	}
	for _, m := range []string{"m1", "m2"} {
		if err := c.Call(ctx, api.VerbState, api.StateRequest{Match: m}, nil); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := seen["m1"]; got != (api.After{Match: "m1", Seq: 7}) {
		t.Fatalf("the read after the write carried %+v, want m1 at 7", got)
	}
	if got := seen["m2"]; got.Seq != 0 {
		t.Fatalf("a read of another match carried %+v", got)
	}
	// A branch is read from its parent.
	if m := api.MatchOf([]byte(`{"parent":"m1","match":"b1","at":3}`)); m != "m1" {
		t.Fatalf("a branch request's match: %q, want its parent", m)
	}
}
