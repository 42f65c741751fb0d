package recorder

import (
	"context"
	"encoding/hex"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// signedMatch creates the fixture as a signed match: a key per role.
func signedMatch(t *testing.T, r *Recorder) map[string]*auth.Key {
	t.Helper()
	keys := map[string]*auth.Key{}
	req := fixture()
	req.Keys = map[string]string{}
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		k, err := auth.GenerateKey("m1", role)
		if err != nil {
			t.Fatal(err)
		}
		keys[role], req.Keys[role] = k, k.PublicHex()
	}
	res, err := r.Create(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tokens) != 0 || res.Receipt == nil || res.Receipt.Verify() != nil {
		t.Fatalf("a signed match's create: tokens %v, receipt %+v", res.Tokens, res.Receipt)
	}
	return keys
}

// signed makes the request of command c by role at the match's head now.
func signed(t *testing.T, r *Recorder, key *auth.Key, role string, c projector.Command) api.ExecuteRequest {
	t.Helper()
	s, err := r.Live(context.Background(), "m1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := events.EncodeValue(c)
	if err != nil {
		t.Fatal(err)
	}
	st := auth.Statement{Match: "m1", HeadSeq: s.Seq, HeadHash: s.Head, Nonce: auth.NewNonce(), Role: role, Command: b}
	body := st.Marshal()
	return api.ExecuteRequest{Match: "m1", Statement: body, Signature: auth.Sign(key.Private, auth.StatementDomain, body)}
}

func head(t *testing.T, r *Recorder) store.Head {
	t.Helper()
	h, err := r.st.Head(context.Background(), "m1")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A signed match takes only commands signed by the role's key, over this
// match and its current head; each is recorded with its statement and
// signature, and answered with a receipt of the recorder.
func TestSignedCommands(t *testing.T) {
	r := newRecorder(t)
	keys := signedMatch(t, r)
	ctx := context.Background()
	alice := keys["player:alice"]
	next := projector.Command{Type: projector.CmdNextTurn}
	before := head(t, r)

	bad := map[string]struct {
		req  api.ExecuteRequest
		code projector.Code
	}{}
	req := signed(t, r, alice, "player:alice", next)
	forged := req
	forged.Signature = auth.Sign(keys["player:bob"].Private, auth.StatementDomain, req.Statement)
	bad["signed with another participant's key"] = struct {
		req  api.ExecuteRequest
		code projector.Code
	}{forged, projector.CodeBadSignature}
	missing := req
	missing.Signature = nil
	bad["no signature"] = struct {
		req  api.ExecuteRequest
		code projector.Code
	}{missing, projector.CodeBadSignature}
	st, _ := auth.ParseStatement(req.Statement)
	other := st
	other.Match = "m2"
	ob := other.Marshal()
	bad["a statement for another match"] = struct {
		req  api.ExecuteRequest
		code projector.Code
	}{api.ExecuteRequest{Match: "m1", Statement: ob, Signature: auth.Sign(alice.Private, auth.StatementDomain, ob)}, projector.CodeWrongMatch}
	stale := st
	stale.HeadSeq, stale.HeadHash = 1, events.Hash{1}
	sb := stale.Marshal()
	bad["a statement over another head"] = struct {
		req  api.ExecuteRequest
		code projector.Code
	}{api.ExecuteRequest{Match: "m1", Statement: sb, Signature: auth.Sign(alice.Private, auth.StatementDomain, sb)}, projector.CodeStaleHead}
	bad["garbage for a statement"] = struct {
		req  api.ExecuteRequest
		code projector.Code
	}{api.ExecuteRequest{Match: "m1", Statement: []byte{0x93, 1, 2}, Signature: req.Signature}, projector.CodeBadRequest}
	loose := st
	loose.Command = append([]byte{0x81, 0xa4}, "type"...)
	loose.Command = append(append(loose.Command, 0xd9, byte(len(next.Type))), next.Type...) // str 8 where a fixstr holds it
	lb := loose.Marshal()
	bad["a command in a non-canonical encoding"] = struct {
		req  api.ExecuteRequest
		code projector.Code
	}{api.ExecuteRequest{Match: "m1", Statement: lb, Signature: auth.Sign(alice.Private, auth.StatementDomain, lb)}, projector.CodeBadRequest}
	bad["a token in a signed match"] = struct {
		req  api.ExecuteRequest
		code projector.Code
	}{api.ExecuteRequest{Match: "m1", Token: "whatever", Command: &next}, projector.CodeBadSignature}
	for name, b := range bad {
		if _, err := r.Submit(ctx, b.req); api.CodeOf(err) != b.code {
			t.Errorf("%s: %v, want %s", name, err, b.code)
		}
		if head(t, r) != before {
			t.Fatalf("%s: something was recorded", name)
		}
	}

	res, err := r.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Receipt == nil || res.Receipt.Verify() != nil || res.Receipt.Seq != before.Seq+1 || res.Receipt.Hash != res.Events[0].Hash ||
		auth.PublicHex(res.Receipt.Recorder) != r.Identity().PublicHex() {
		t.Fatalf("receipt %+v", res.Receipt)
	}
	var e events.Event
	_ = r.st.Scan(ctx, "m1", res.Events[0].Seq, func(x events.Event) error { e = x; return events.ErrStop })
	if e.Auth == nil || string(e.Auth.Statement) != string(req.Statement) || string(e.Auth.Signature) != string(req.Signature) {
		t.Fatal("the event does not record the statement and signature")
	}
	// Bob may not sign alice's turn: the rules, not the signature, refuse.
	if _, err := r.Submit(ctx, signed(t, r, keys["player:bob"], "player:bob", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})); api.CodeOf(err) != projector.CodeWrongPlayer {
		t.Fatalf("bob's phase in alice's turn: %v", err)
	}
}

// A command sent again after a lost reply gets the original result and
// records nothing; the same request id with other content is refused.
func TestRetriesAreIdempotent(t *testing.T) {
	ctx := context.Background()
	t.Run("signed", func(t *testing.T) {
		r := newRecorder(t)
		keys := signedMatch(t, r)
		req := signed(t, r, keys["player:alice"], "player:alice", projector.Command{Type: projector.CmdNextTurn})
		first, err := r.Submit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		h := head(t, r)
		again, err := r.Submit(ctx, req)
		if err != nil || !again.Replayed || again.Events[0] != first.Events[0] || again.Receipt.Seq != first.Receipt.Seq || head(t, r) != h {
			t.Fatalf("retry: %+v, %v (head %v → %v)", again, err, h, head(t, r))
		}
		// The same nonce, another command: refused.
		st, _ := auth.ParseStatement(req.Statement)
		st.HeadSeq, st.HeadHash = h.Seq, h.Hash
		st.Command, _ = events.EncodeValue(projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
		b := st.Marshal()
		if _, err := r.Submit(ctx, api.ExecuteRequest{Match: "m1", Statement: b, Signature: auth.Sign(keys["player:alice"].Private, auth.StatementDomain, b)}); api.CodeOf(err) != projector.CodeNonceReused {
			t.Fatalf("a reused nonce: %v", err)
		}
		// status says it was recorded.
		got, err := r.Status(ctx, api.StatusRequest{Match: "m1", Role: "player:alice", Request: hex.EncodeToString(st.Nonce[:])})
		if err != nil || !got.Recorded || got.Events[0] != first.Events[0] {
			t.Fatalf("status: %+v %v", got, err)
		}
		if got, err := r.Status(ctx, api.StatusRequest{Match: "m1", Role: "player:bob", Request: hex.EncodeToString(st.Nonce[:])}); err != nil || got.Recorded {
			t.Fatalf("status of another role's request: %+v %v", got, err)
		}
	})
	t.Run("token", func(t *testing.T) {
		r := newRecorder(t)
		res := started(t, r)
		a := res.Tokens[api.RolePlayer("alice")]
		s, _ := r.Live(ctx, "m1")
		roll := projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"}
		req := api.ExecuteRequest{Match: "m1", Token: a, Command: &roll, RequestID: "00112233445566778899aabbccddeeff", Head: &store.Head{Seq: s.Seq, Hash: s.Head}}
		first, err := r.Submit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		h := head(t, r)
		again, err := r.Submit(ctx, req)
		if err != nil || !again.Replayed || again.Events[0] != first.Events[0] || head(t, r) != h {
			t.Fatalf("retry: %+v %v", again, err)
		}
		// Dice typed for one step are never taken for the next: a roll
		// sent again with a new id but the old head is stale.
		dice := projector.Command{Type: projector.CmdRoll, Values: []int{6, 6}}
		rollReq := api.ExecuteRequest{Match: "m1", Token: a, Command: &dice, RequestID: "ffeeddccbbaa99887766554433221100", Head: &store.Head{Seq: h.Seq, Hash: h.Hash}}
		if _, err := r.Submit(ctx, rollReq); err != nil {
			t.Fatal(err)
		}
		rollReq.RequestID = "0f0e0d0c0b0a09080706050403020100"
		if _, err := r.Submit(ctx, rollReq); api.CodeOf(err) != projector.CodeStaleHead {
			t.Fatalf("a roll resent at an old head: %v", err)
		}
		rollReq.RequestID = "not hex"
		if _, err := r.Submit(ctx, rollReq); api.CodeOf(err) != projector.CodeBadRequest {
			t.Fatalf("a bad request id: %v", err)
		}
	})
}

// A create retried with the same id returns the same result to the same
// requester: a signed match's as is; a token match's tokens only to who
// knows the secret they derive from.
func TestCreateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	r := newRecorder(t)
	req := fixture()
	req.Secret = "0123456789abcdef0123456789abcdef-the-requester"
	first, err := r.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Create(ctx, req)
	if err != nil || !again.Replayed || again.Tokens["judge"] != first.Tokens["judge"] || again.Seq != first.Seq {
		t.Fatalf("retried create: %+v %v", again, err)
	}
	other := req
	other.Secret = "someone-else-entirely-0123456789abcdef"
	if _, err := r.Create(ctx, other); api.CodeOf(err) != projector.CodeConflict {
		t.Fatalf("a create of the same id by someone else: %v", err)
	}
	if h := head(t, r); h.Seq != 2 {
		t.Fatalf("the retries recorded events: head %d", h.Seq)
	}

	r2 := newRecorder(t)
	signedMatch(t, r2)
	keyed := fixture()
	s, _ := r2.Live(ctx, "m1")
	keyed.Keys = s.Keys
	if res, err := r2.Create(ctx, keyed); err != nil || !res.Replayed {
		t.Fatalf("retried signed create: %+v %v", res, err)
	}
	bad := fixture()
	bad.Keys = map[string]string{"player:alice": "zz"}
	if _, err := newRecorder(t).Create(ctx, bad); api.CodeOf(err) != projector.CodeBadRequest {
		t.Fatalf("bad keys: %v", err)
	}
}

// Ending takes the judge or both players; a concession ends it at once.
func TestEndingAuthority(t *testing.T) {
	ctx := context.Background()
	r := newRecorder(t)
	res := started(t, r)
	a, b := res.Tokens[api.RolePlayer("alice")], res.Tokens[api.RolePlayer("bob")]
	out, err := r.Execute(ctx, "m1", a, projector.Command{Type: projector.CmdEnd, Winner: "alice", Reason: "I'm ahead"})
	if err != nil || out.Events[0].Type != events.TypeEndProposed {
		t.Fatalf("alice's end: %+v %v", out.Events, err)
	}
	if s, _ := r.Live(ctx, "m1"); s.Ended {
		t.Fatal("one player ended the match naming herself the winner")
	}
	// Bob agrees with the same winner: the match ends, and its seed is revealed.
	out, err = r.Execute(ctx, "m1", b, projector.Command{Type: projector.CmdEnd, Winner: "alice"})
	if err != nil || out.Events[0].Type != events.TypeMatchEnded || out.Events[len(out.Events)-1].Type != events.TypeDiceRevealed {
		t.Fatalf("bob's agreement: %+v %v", out.Events, err)
	}
	s, _ := r.Live(ctx, "m1")
	if !s.Ended || s.Winner != "alice" {
		t.Fatalf("ended %v winner %q", s.Ended, s.Winner)
	}

	r2 := newRecorder(t)
	res2 := started(t, r2)
	if _, err := r2.Execute(ctx, "m1", res2.Tokens[api.RolePlayer("bob")], projector.Command{Type: projector.CmdConcede}); err != nil {
		t.Fatal(err)
	}
	if s, _ := r2.Live(ctx, "m1"); !s.Ended || s.Winner != "alice" {
		t.Fatalf("bob's concession: ended %v winner %q", s.Ended, s.Winner)
	}
}

// A branch needs a participant's credential of the parent, recorded with
// it; a signed parent's must sign the fork event.
func TestBranchNeedsAParticipant(t *testing.T) {
	ctx := context.Background()
	r := newRecorder(t)
	keys := signedMatch(t, r)
	for _, req := range []api.BranchRequest{
		{Parent: "m1", At: 2, Match: "b"},
		{Parent: "m1", At: 2, Match: "b", Token: "x"},
	} {
		if _, err := r.Branch(ctx, req); err == nil {
			t.Fatalf("a branch without a signature: %+v", req)
		}
	}
	s, _ := r.Live(ctx, "m1")
	cmd, _ := events.EncodeValue(projector.Command{Type: projector.CmdBranch, At: 2, Match: "b", Name: "what if"})
	st := auth.Statement{Match: "m1", HeadSeq: s.Seq, HeadHash: s.Head, Nonce: auth.NewNonce(), Role: "judge", Command: cmd}
	body := st.Marshal()
	req := api.BranchRequest{Parent: "m1", At: 2, Statement: body, Signature: auth.Sign(keys["judge"].Private, auth.StatementDomain, body),
		Secret: "the branch's tokens derive from this secret"}
	res, err := r.Branch(ctx, req)
	if err != nil || res.Match != "b" {
		t.Fatalf("signed branch: %+v %v", res, err)
	}
	again, err := r.Branch(ctx, req)
	if err != nil || !again.Replayed {
		t.Fatalf("a retried branch: %+v %v", again, err)
	}
}
