package recorder

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/mem"
)

// A token command sent with a request id but no head states the head the
// recorder decided it on. Its resend, after the match moved on (another
// command, or in a cluster another recorder's), is the same request:
// answered replayed with its original events, not nonce_reused — a client
// whose reply was lost can always tell its command was recorded.
func TestHeadlessResendIsReplayed(t *testing.T) {
	r := newRecorder(t)
	res := started(t, r)
	ctx := context.Background()
	alice := res.Tokens[api.RolePlayer("alice")]
	req := api.ExecuteRequest{Match: "m1", Token: alice, RequestID: strings.Repeat("ab", 16),
		Command: &projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseAssault}}
	first, err := r.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(ctx, "m1", alice, projector.Command{Type: projector.CmdNextTurn}); err != nil {
		t.Fatal(err)
	}
	again, err := r.Submit(ctx, req)
	if err != nil {
		t.Fatalf("the resend: %v", err)
	}
	if !again.Replayed || len(again.Events) != len(first.Events) || again.Events[0] != first.Events[0] {
		t.Fatalf("the resend recorded %+v, want the first attempt's %+v replayed", again.Events, first.Events)
	}
	// Another command under the same request id is still refused.
	req.Command = &projector.Command{Type: projector.CmdNextTurn}
	if _, err := r.Submit(ctx, req); !isCode(err, projector.CodeNonceReused) {
		t.Fatalf("another command with a used request id: %v, want nonce_reused", err)
	}
}

// A venue's recorder names its matches in its own namespace and refuses
// an id outside it; a hub's recorder refuses to write a match another
// recorder writes (Options.Elsewhere): its commands, branches and creates
// get other_venue and record nothing.
func TestVenueNamespacesAndOneWriter(t *testing.T) {
	ctx := context.Background()
	clock := time.Unix(1700000000, 0)
	venue := New(mem.New(), Options{Rules: editions.Lookup, Venue: "north",
		Clock: func() time.Time { clock = clock.Add(time.Second); return clock }})
	req := fixture()
	req.Match = ""
	made, err := venue.Create(ctx, req)
	if err != nil || !strings.HasPrefix(made.Match, "north-") {
		t.Fatalf("a venue's new match: %q, %v; want north-...", made.Match, err)
	}
	req.Match = "south-1"
	if _, err := venue.Create(ctx, req); !isCode(err, projector.CodeBadRequest) {
		t.Fatalf("a venue creating another's id: %v, want bad_request", err)
	}

	hub := newRecorder(t)
	res := started(t, hub)
	alice := res.Tokens[api.RolePlayer("alice")]
	hub.opts.Elsewhere = func(_ context.Context, match string) (string, bool) {
		return "north", match == "m1" || strings.HasPrefix(match, "north-")
	}
	before, _ := hub.Live(ctx, "m1")
	if _, err := hub.Execute(ctx, "m1", alice, projector.Command{Type: projector.CmdNextTurn}); !isCode(err, projector.CodeOtherVenue) {
		t.Fatalf("a command for a venue's match at the hub: %v, want other_venue", err)
	}
	if _, err := hub.Branch(ctx, api.BranchRequest{Parent: "m1", At: 3, Token: alice}); !isCode(err, projector.CodeOtherVenue) {
		t.Fatalf("a branch of a venue's match at the hub: %v, want other_venue", err)
	}
	req.Match = "north-2"
	if _, err := hub.Create(ctx, req); !isCode(err, projector.CodeOtherVenue) {
		t.Fatalf("a create in a venue's namespace at the hub: %v, want other_venue", err)
	}
	after, _ := hub.Live(ctx, "m1")
	if after.Seq != before.Seq {
		t.Fatalf("a refused command recorded events %d..%d", before.Seq+1, after.Seq)
	}
}

func isCode(err error, code projector.Code) bool {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Code == code
	}
	r, ok := projector.AsRefusal(err)
	return ok && r.Code == code
}
