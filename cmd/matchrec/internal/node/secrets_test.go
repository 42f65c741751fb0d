package node

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/replay/analytics"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/identity"
)

// The recorder's seed of an open epoch never leaves it: not in a reply of
// any verb, a log line (at the most verbose level), a bundle, a web page
// or API answer, or an analytic table — searched for as hex, as base64
// and as raw bytes in every output of a match whose digital dice were
// rolled from it. At rest it sits in a data directory only its owner may
// enter, in files only its owner may read.
func TestUnrevealedSeedsStayInside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var logs lockedBuffer // every connection and server goroutine logs
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n, err := Open(ctx, Config{DataDir: dir, Listen: "127.0.0.1:0", HTTP: "127.0.0.1:0",
		Log: zerolog.New(&logs).Level(zerolog.TraceLevel)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := remote(t, n)
	var outputs [][]byte
	call := func(verb string, req, resp any) {
		t.Helper()
		var raw json.RawMessage
		if err := c.Call(ctx, verb, req, &raw); err != nil {
			t.Fatalf("%s: %v", verb, err)
		}
		outputs = append(outputs, raw)
		if resp != nil {
			if err := json.Unmarshal(raw, resp); err != nil {
				t.Fatal(err)
			}
		}
	}
	sc := readScript(t, filepath.Join(examplesDir, "3e-boltguns-vs-boyz.yaml"))
	var created api.CreateResult
	call(api.VerbCreate, api.CreateRequest{MatchCreated: sc.Match.Created()}, &created)
	id := created.Match
	a, b := created.Tokens["player:alice"], created.Tokens["player:bob"]
	exec := func(tok string, cmd projector.Command) {
		t.Helper()
		call(api.VerbDeclare, api.ExecuteRequest{Match: id, Token: tok, Command: &cmd}, nil)
	}
	state := func() *projector.State {
		var s projector.State
		call(api.VerbState, api.StateRequest{Match: id}, &s)
		return &s
	}
	for round := 0; round < 4; round++ {
		s := state()
		for p, tok := range map[string]string{"alice": a, "bob": b} {
			if cmd, ok := s.SeedCommand(p, []byte(tok)); ok {
				exec(tok, cmd)
				s = state()
			}
		}
	}
	exec(a, projector.Command{Type: projector.CmdNextTurn})
	exec(a, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	exec(a, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	for i := 0; i < 3; i++ {
		s := state()
		if s.Pending.Kind != projector.WaitRoll {
			break
		}
		tok := a
		if s.Pending.Player == "bob" {
			tok = b
		}
		exec(tok, projector.Command{Type: projector.CmdRoll, Digital: true})
	}
	if s := state(); s.Dice.Current().Seed != "" || s.LastRoll == nil || s.LastRoll.Source != events.SourceDigital {
		t.Fatalf("the epoch must be open, its dice rolled: %+v", s.Dice.Current())
	}
	call(api.VerbEvents, api.EventsRequest{Match: id}, nil)
	call(api.VerbBundle, api.BundleRequest{Match: id, VerifySnapshots: true}, nil)
	call(api.VerbMatches, nil, nil)
	call(api.VerbPing, nil, nil)
	call(api.VerbSync, api.SyncRequest{}, nil)
	for _, tb := range analytics.Tables {
		call(api.VerbSQL, api.SQLRequest{Query: "SELECT * FROM " + tb.Name, NoSync: true}, nil)
	}
	for _, path := range []string{"/", "/matches/" + id, "/api/matches", "/api/matches/" + id + "/state", "/api/matches/" + id + "/events"} {
		res, err := http.Get(n.HTTPURL() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		outputs = append(outputs, body)
	}
	outputs = append(outputs, logs.Bytes())

	secrets, ok := n.Recorder().Store().(store.Secrets)
	if !ok {
		t.Fatal("no secrets")
	}
	seed, err := secrets.Secret(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string][]byte{
		"hex": []byte(hex.EncodeToString(seed)), "HEX": []byte(strings.ToUpper(hex.EncodeToString(seed))),
		"base64": []byte(base64.StdEncoding.EncodeToString(seed)), "raw": seed,
	}
	for i, out := range outputs {
		for name, f := range forms {
			if bytes.Contains(out, f) {
				t.Fatalf("output %d holds the open epoch's seed (%s): %.200s", i, name, out)
			}
		}
	}
	if len(outputs) < 20 || logs.Len() == 0 {
		t.Fatalf("searched too little: %d outputs, %d bytes of logs", len(outputs), logs.Len())
	}
	// The search finds the seed once it is revealed: the match ends.
	exec(created.Tokens["judge"], projector.Command{Type: projector.CmdEnd})
	outputs = outputs[:0]
	call(api.VerbEvents, api.EventsRequest{Match: id}, nil)
	if !bytes.Contains(outputs[0], forms["hex"]) {
		t.Fatal("the revealed seed is not found where it is revealed: the search is blind")
	}
	// At rest: the directory is its owner's, the files too.
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, StoreFile): 0o600, filepath.Join(dir, identity.File): 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
}

// lockedBuffer is a log sink many goroutines write to while the test reads
// it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}
