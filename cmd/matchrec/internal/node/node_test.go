package node

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/natsbus"
)

const examplesDir = "../../../../examples"

// startServing opens a node the way `serve` does: embedded NATS on a free
// TCP port, a real bbolt file, server.json written.
func startServing(t testing.TB, dir string) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := Open(ctx, Config{DataDir: dir, Listen: "127.0.0.1:0", WriteServerFile: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Error(err)
		}
	})
	return n
}

// remote is an API client on its own TCP connection, as another process
// would have.
func remote(t testing.TB, n *Node) *natsbus.Client {
	t.Helper()
	if n.URL() == "" {
		t.Fatal("the node does not listen")
	}
	nc, err := nats.Connect(n.URL(), clientLogin(n, natsbus.RoleClient)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return &natsbus.Client{Conn: nc, Timeout: 10 * time.Second}
}

// clientLogin logs in as role with the credentials file the node wrote,
// as another process would (none when the server is open).
func clientLogin(n *Node, role natsbus.Role) []nats.Option {
	if p := n.CredsPath(role); p != "" {
		return []nats.Option{nats.UserCredentials(p), nats.CustomInboxPrefix(natsbus.InboxPrefix(role))}
	}
	return nil
}

// play records a script through the API and returns the new match, its
// tokens and the pending step the last command reported.
func play(t *testing.T, c *natsbus.Client, sc *script.Script, upTo int) (api.CreateResult, projector.Pending) {
	t.Helper()
	ctx := context.Background()
	var created api.CreateResult
	if err := c.Call(ctx, api.VerbCreate, api.CreateRequest{MatchCreated: sc.Match.Created()}, &created); err != nil {
		t.Fatal(err)
	}
	var pending projector.Pending
	head := created.Seq // the last event seen, for reads on any recorder of a cluster
	for i, st := range sc.Steps {
		if upTo >= 0 && i >= upTo {
			break
		}
		role := api.RolePlayer(st.As)
		if st.As == script.RoleJudge {
			role = api.RoleJudge
		}
		if st.Cmd.Type == projector.CmdRoll && st.Cmd.Digital {
			head = seedAll(t, c, created, head)
		}
		var res api.Result
		err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: created.Match, Token: created.Tokens[role], Command: &st.Cmd}, &res)
		var ae *api.Error
		switch {
		case st.ExpectRefusal == "" && err != nil:
			t.Fatalf("%s: %v", st.Where(i), err)
		case st.ExpectRefusal != "" && (!errors.As(err, &ae) || ae.Code != st.ExpectRefusal):
			t.Fatalf("%s: want refusal %s, got %v", st.Where(i), st.ExpectRefusal, err)
		case err == nil:
			pending = res.Pending
			if n := len(res.Events); n > 0 {
				head = res.Events[n-1].Seq
			}
		}
	}
	return created, pending
}

// seedAll commits, then reveals, every player's dice seed of the current
// epoch, as each player's CLI does before digital dice (docs/dice.md).
// It reads the state at least as far as head, the last event the caller
// saw, and returns the last event it saw.
func seedAll(t *testing.T, c *natsbus.Client, m api.CreateResult, head uint64) uint64 {
	t.Helper()
	ctx := context.Background()
	for round := 0; round < 4; round++ {
		var s projector.State
		if err := c.Call(ctx, api.VerbState, api.StateRequest{Match: m.Match, After: head}, &s); err != nil {
			t.Fatal(err)
		}
		sent := false
		for _, p := range s.Players {
			tok := m.Tokens[api.RolePlayer(p.ID)]
			if sc, ok := s.SeedCommand(p.ID, []byte(tok)); ok {
				var res api.Result
				if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: tok, Command: &sc}, &res); err != nil {
					t.Fatalf("%s's seed: %v", p.ID, err)
				}
				if n := len(res.Events); n > 0 {
					head = res.Events[n-1].Seq
				}
				sent = true
				break
			}
		}
		if !sent {
			return head
		}
	}
	return head
}

func readScript(t testing.TB, path string) *script.Script {
	t.Helper()
	sc, err := script.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestServerFileWhileServing(t *testing.T) {
	dir := t.TempDir()
	n := startServing(t, dir)
	si, err := ReadServerFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if si.NATSURL != n.URL() || si.PID != os.Getpid() {
		t.Fatalf("server.json says %+v; the node serves %s as pid %d", si, n.URL(), os.Getpid())
	}
	var ping api.PingResult
	if err := remote(t, n).Call(context.Background(), api.VerbPing, nil, &ping); err != nil || ping.Service != "matchrec" {
		t.Fatalf("ping: %+v %v", ping, err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ServerFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("server.json outlives the server: %v", err)
	}
}

func TestSecondNodeOnADataDirIsLocked(t *testing.T) {
	dir := t.TempDir()
	startServing(t, dir)
	start := time.Now()
	_, err := Open(context.Background(), Config{DataDir: dir, InProcess: true})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("want ErrLocked, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("waited %s for the lock; a CLI call must fail fast", d)
	}
}

// Every bad request gets a clear error with a stable code, and leaves the
// match exactly as it was.
func TestAPIRejectsBadRequestsAndChangesNothing(t *testing.T) {
	n := startServing(t, t.TempDir())
	c := remote(t, n)
	ctx := context.Background()
	sc := readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	other, _ := play(t, c, sc, 0) // a second match, for its tokens

	// Alice's turn 1, shooting phase, nothing declared yet.
	m, _ := play(t, c, sc, 2)
	alice, bob := m.Tokens[api.RolePlayer("alice")], m.Tokens[api.RolePlayer("bob")]
	cmd := func(c projector.Command) *projector.Command { return &c }
	shoot := cmd(projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})

	declareStage := []struct {
		name, verb string
		body       any
		code       projector.Code
	}{
		{"another match's token", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: other.Tokens[api.RolePlayer("alice")], Command: shoot}, projector.CodeUnauthorized},
		{"no token", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Command: shoot}, projector.CodeUnauthorized},
		{"a made-up token", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: "0123456789abcdef", Command: shoot}, projector.CodeUnauthorized},
		{"the other side's token, out of turn", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: bob, Command: cmd(projector.Command{Type: projector.CmdShoot, Unit: "boyz", Target: "tac"})}, projector.CodeWrongPlayer},
		{"bob ends alice's turn", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: bob, Command: cmd(projector.Command{Type: projector.CmdNextTurn})}, projector.CodeWrongPlayer},
		{"malformed JSON", api.VerbDeclare, []byte(`{"match":`), projector.CodeBadRequest},
		{"unknown body field", api.VerbDeclare, []byte(`{"match":"` + m.Match + `","token":"` + alice + `","comand":{"type":"next-turn"}}`), projector.CodeBadRequest},
		{"unknown command field", api.VerbDeclare, []byte(`{"match":"` + m.Match + `","token":"` + alice + `","command":{"type":"shoot","unit":"tac","tagret":"boyz"}}`), projector.CodeBadRequest},
		{"no command", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: alice}, projector.CodeBadRequest},
		{"unknown verb", "teleport", api.ExecuteRequest{Match: m.Match, Token: alice, Command: shoot}, projector.CodeUnknownVerb},
		{"unknown unit", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: alice, Command: cmd(projector.Command{Type: projector.CmdShoot, Unit: "titan", Target: "boyz"})}, projector.CodeUnknownUnit},
		{"unknown target", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: alice, Command: cmd(projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "squig"})}, projector.CodeUnknownUnit},
		{"unknown command", api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: alice, Command: cmd(projector.Command{Type: "charge"})}, projector.CodeUnknownCommand},
		{"no roll pending", api.VerbRoll, api.ExecuteRequest{Match: m.Match, Token: alice, Values: []int{3}}, projector.CodeWrongStep},
		{"roll verb with another command", api.VerbRoll, api.ExecuteRequest{Match: m.Match, Token: alice, Command: shoot}, projector.CodeBadRequest},
		{"unknown match", api.VerbDeclare, api.ExecuteRequest{Match: "nosuchmatch", Token: alice, Command: shoot}, projector.CodeNotFound},
		{"invalid match id", api.VerbDeclare, api.ExecuteRequest{Match: "a.b>", Token: alice, Command: shoot}, projector.CodeBadRequest},
	}
	var ae *api.Error
	if err := c.Call(ctx, api.VerbState, api.StateRequest{Match: m.Match, At: 9999}, nil); !errors.As(err, &ae) || ae.Code != projector.CodeBadRequest {
		t.Errorf("state past the end: want bad_request, got %v", err)
	}
	for _, tc := range declareStage {
		t.Run(tc.name, func(t *testing.T) { expectRejected(t, n, c, m.Match, tc.verb, tc.body, tc.code) })
	}

	// Declare the shot: a roll of 9 dice (boltguns) is pending for alice.
	if err := c.Call(ctx, api.VerbDeclare, api.ExecuteRequest{Match: m.Match, Token: alice, Command: shoot}, nil); err != nil {
		t.Fatal(err)
	}
	nine := []int{1, 2, 3, 4, 5, 6, 1, 2, 3}
	rollStage := []struct {
		name   string
		values []int
		token  string
		code   projector.Code
	}{
		{"a die of 7", []int{1, 2, 3, 4, 5, 6, 7, 2, 3}, alice, projector.CodeBadDice},
		{"a die of 0", []int{0, 2, 3, 4, 5, 6, 1, 2, 3}, alice, projector.CodeBadDice},
		{"a negative die", []int{-1, 2, 3, 4, 5, 6, 1, 2, 3}, alice, projector.CodeBadDice},
		{"too few dice", nine[:8], alice, projector.CodeDiceCount},
		{"too many dice", append(append([]int{}, nine...), 4), alice, projector.CodeDiceCount},
		{"no dice", nil, alice, projector.CodeBadRequest},
		{"the target's owner rolls to hit", nine, bob, projector.CodeWrongPlayer},
	}
	for _, tc := range rollStage {
		t.Run(tc.name, func(t *testing.T) {
			body := api.ExecuteRequest{Match: m.Match, Token: tc.token, Values: tc.values}
			if tc.values == nil {
				body.Command = nil
			}
			code := tc.code
			if tc.values == nil {
				// {"match","token"} alone is a roll of no dice.
				code = projector.CodeDiceCount
			}
			expectRejected(t, n, c, m.Match, api.VerbRoll, body, code)
		})
	}
	// And the right roll is accepted, so the rejections above were about
	// the requests, not a stuck match.
	if err := c.Call(ctx, api.VerbRoll, api.ExecuteRequest{Match: m.Match, Token: alice, Values: nine}, nil); err != nil {
		t.Fatal(err)
	}
}

// expectRejected sends one request, checks its error code, and checks that
// the match's head, the folded state and the store are unchanged.
func expectRejected(t *testing.T, n *Node, c *natsbus.Client, match, verb string, body any, code projector.Code) {
	t.Helper()
	ctx := context.Background()
	before := snapshot(t, n, c, match)
	err := c.Call(ctx, verb, body, nil)
	var ae *api.Error
	if !errors.As(err, &ae) {
		t.Fatalf("want API error %s, got %v", code, err)
	}
	if ae.Code != code || ae.Message == "" {
		t.Fatalf("want code %s with a message, got %s: %q", code, ae.Code, ae.Message)
	}
	if after := snapshot(t, n, c, match); after != before {
		t.Fatalf("the match changed: %+v → %+v", before, after)
	}
}

type snap struct {
	storeSeq uint64
	head     string
	state    string // the state's canonical JSON
}

func snapshot(t *testing.T, n *Node, c *natsbus.Client, match string) snap {
	t.Helper()
	ctx := context.Background()
	h, err := n.Recorder().Store().Head(ctx, match)
	if err != nil {
		t.Fatal(err)
	}
	var raw json.RawMessage
	if err := c.Call(ctx, api.VerbState, api.StateRequest{Match: match}, &raw); err != nil {
		t.Fatal(err)
	}
	return snap{storeSeq: h.Seq, head: h.Hash.String(), state: string(raw)}
}
