package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// played plays the 3e example into a fresh data directory.
func played(t *testing.T) (dir, id string) {
	t.Helper()
	dir = t.TempDir()
	return dir, strings.TrimSpace(mustRun(t, dir, "play", example))
}

func TestAuditExitCodes(t *testing.T) {
	dir, id := played(t)
	out := mustRun(t, dir, "audit", id)
	if !strings.Contains(out, "verdict: CLEAN") || !strings.Contains(out, "1 of 1 digital rolls checked") {
		t.Fatalf("clean audit:\n%s", out)
	}
	var rep replay.Report
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "audit", id)), &rep); err != nil || !rep.OK || rep.Checks.Refold == nil || !rep.Checks.Refold.Compared {
		t.Fatalf("audit --json: %v %+v", err, rep)
	}
	if code, _, _ := run(t, dir, "audit", "nosuchmatch"); code != ExitUsage {
		t.Fatalf("audit of an unknown match: exit %d, want 2 (could not run)", code)
	}
	// Flip one byte of event 8's payload in the bbolt file: exit 1, naming 8.
	db, err := bbolt.Open(filepath.Join(dir, "events.db"), 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("matches")).Bucket([]byte(id))
		k := binary.BigEndian.AppendUint64(nil, 8)
		v := append([]byte(nil), b.Get(k)...)
		e, _ := events.Unmarshal(v)
		i := strings.Index(string(v), string(e.Payload))
		v[i+2] ^= 0x01
		return b.Put(k, v)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, dir, "audit", id)
	if code != ExitRefused || !strings.Contains(out, "verdict: FAILED at event 8 (chain)") {
		t.Fatalf("tampered audit: exit %d\n%s", code, out)
	}
}

func TestAuditExplainsARoll(t *testing.T) {
	dir, id := played(t)
	out := mustRun(t, dir, "audit", id, "--roll", "8")
	for _, want := range []string{"for the wound", "caused by the declaration at event 5", "Tactical Squad shoots Ork Boyz",
		"Strength 4 vs Toughness 4 on the wound chart → 4+", "docs/rules/3e.md#roll-to-wound", "dice: [4 2 6 5 1 3]", "3 of 6 dice succeeded"} {
		if !strings.Contains(out, want) {
			t.Errorf("explanation lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := run(t, dir, "audit", id, "--roll", "5"); code == 0 || !strings.Contains(errs, "not a dice roll") {
		t.Fatalf("explaining a declaration: exit %d %s", code, errs)
	}
}

func TestVerifyBundleOffline(t *testing.T) {
	dir, id := played(t)
	b, _ := writeBundleForTest(t, dir, id)
	// verify needs no data directory at all.
	empty := t.TempDir()
	out := mustRun(t, empty, "verify", b)
	if !strings.Contains(out, "verdict: CLEAN") {
		t.Fatalf("verify:\n%s", out)
	}
	raw, _ := os.ReadFile(b)
	var bun api.Bundle
	_ = json.Unmarshal(raw, &bun)
	bun.Records[10][len(bun.Records[10])-40] ^= 1
	tampered, _ := json.Marshal(bun)
	_ = os.WriteFile(b, tampered, 0o600)
	if code, out, _ := run(t, empty, "verify", b); code != ExitRefused || !strings.Contains(out, "FAILED") {
		t.Fatalf("verify of a tampered bundle: exit %d\n%s", code, out)
	}
	_ = os.WriteFile(b, []byte("{not json"), 0o600)
	if code, _, _ := run(t, empty, "verify", b); code != ExitUsage {
		t.Fatalf("verify of garbage: exit %d, want 2", code)
	}
}

// writeBundleForTest exports a bundle through the API as export --bundle does.
func writeBundleForTest(t *testing.T, dir, id string) (string, *api.Bundle) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.bundle")
	mustRun(t, dir, "export", id, "--bundle", path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := replay.ReadBundle(f)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

func TestBranchBranchesDiffWhatif(t *testing.T) {
	dir := t.TempDir()
	var p PlayResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "play", example)), &p); err != nil {
		t.Fatal(err)
	}
	id := p.Match
	// A branch needs a participant's credential of the parent.
	if code, _, errs := run(t, dir, "branch", id, "--at", "9", "--token", "not-a-token"); code != ExitRefused || !strings.Contains(errs, "unauthorized") {
		t.Fatalf("a branch without a credential: exit %d %s", code, errs)
	}
	out := mustRun(t, dir, "--json", "branch", id, "--at", "9", "--id", "again", "--name", "re-roll the saves", "--token", p.Tokens["judge"])
	var created struct {
		Match  string            `json:"match"`
		Tokens map[string]string `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Match != "again" || created.Tokens["player:bob"] == "" {
		t.Fatalf("branch: %v %s", err, out)
	}
	// Bob saves everything in the branch.
	mustRun(t, dir, "roll", "again", "--token", created.Tokens["player:bob"], "--values", "6,6,6,6,6")
	tree := mustRun(t, dir, "branches", "again")
	if !strings.Contains(tree, id) || !strings.Contains(tree, "again  forks "+id+" after event 9") {
		t.Fatalf("branches:\n%s", tree)
	}
	diff := mustRun(t, dir, "diff", id, "again")
	if !strings.Contains(diff, "share events 1..9") || !strings.Contains(diff, "Ork Boyz") {
		t.Fatalf("diff:\n%s", diff)
	}
	if code, _, _ := run(t, dir, "branch", id, "--at", "0"); code != ExitUsage {
		t.Fatal("branch without --at accepted")
	}
	// What if the Tactical Squad's attack (declared at 5) had rolled again?
	var w replay.WhatIf
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "whatif", id, "--at", "5", "--runs", "2000")), &w); err != nil {
		t.Fatal(err)
	}
	if w.Declaration != 5 || w.Actual == nil || w.Actual.Casualties != 4 || w.Runs != 2000 {
		t.Fatalf("whatif %+v", w)
	}
	if c := w.Measures["casualties"]; c.Percentile <= 0 || c.Percentile >= 100 || c.Mean <= 0 {
		t.Fatalf("casualties distribution %+v", c)
	}
	if code, _, _ := run(t, dir, "whatif", id, "--at", "3"); code != ExitRefused {
		t.Fatal("whatif where no attack is pending accepted")
	}
}

func TestReplayFilters(t *testing.T) {
	dir, id := played(t)
	all := mustRun(t, dir, "replay", id)
	if !strings.Contains(all, "Tactical Squad fires 9 boltguns") {
		t.Fatalf("replay:\n%s", all)
	}
	t1 := mustRun(t, dir, "replay", id, "--turn", "2")
	if strings.Contains(t1, "Turn 1 —") || !strings.Contains(t1, "Turn 2 —") {
		t.Fatalf("replay --turn 2:\n%s", t1)
	}
	part := strings.Split(strings.TrimSpace(mustRun(t, dir, "replay", id, "--from", "5", "--to", "8")), "\n")
	if !strings.HasPrefix(strings.TrimSpace(part[0]), "5 ") || !strings.HasPrefix(strings.TrimSpace(part[len(part)-1]), "8 ") {
		t.Fatalf("replay --from 5 --to 8:\n%s", strings.Join(part, "\n"))
	}
	lines := strings.Split(strings.TrimSpace(mustRun(t, dir, "--json", "replay", id, "--to", "3")), "\n")
	var first map[string]any
	if len(lines) != 3 || json.Unmarshal([]byte(lines[0]), &first) != nil || first["type"] != "match.created" {
		t.Fatalf("replay --json: %v", lines)
	}
	start := time.Now()
	mustRun(t, dir, "replay", id, "--to", "6", "--speed", "1000000")
	if time.Since(start) > 20*time.Second {
		t.Fatal("pacing ignored the speed")
	}
}

// The judge's flow from the command line: contest, dispute, rule, audit.
func TestDisputeAndRulingFromTheCLI(t *testing.T) {
	dir := t.TempDir()
	var played struct {
		Match  string            `json:"match"`
		Tokens map[string]string `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "play", example)), &played); err != nil {
		t.Fatal(err)
	}
	id, bob, judge := played.Match, played.Tokens["player:bob"], played.Tokens["judge"]
	mustRun(t, dir, "declare", id, "--token", bob, "--type", "contest", "--event", "6", "--reason", "cocked die")
	if code, out, _ := run(t, dir, "audit", id); code != ExitUnresolved || !strings.Contains(out, "verdict: UNRESOLVED") {
		t.Fatalf("a contested, unruled roll must leave the audit unresolved (exit %d):\n%s", code, out)
	}
	var disputed struct {
		Events []struct {
			Seq uint64 `json:"seq"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "declare", id, "--token", bob, "--type", "dispute", "--event", "6", "--reason", "I saw two more 6s")), &disputed); err != nil || len(disputed.Events) != 1 {
		t.Fatalf("dispute: %v", err)
	}
	if code, _, _ := run(t, dir, "audit", id); code != ExitUnresolved {
		t.Fatalf("an open dispute must leave the audit unresolved (exit %d)", code)
	}
	disp := fmt.Sprint(disputed.Events[0].Seq)
	if code, _, errs := run(t, dir, "declare", id, "--token", bob, "--type", "rule", "--dispute", disp, "--decision", "uphold"); code != ExitRefused || !strings.Contains(errs, "not_judge") {
		t.Fatalf("a player ruled: exit %d %s", code, errs)
	}
	mustRun(t, dir, "declare", id, "--token", judge, "--type", "rule", "--dispute", disp, "--decision", "uphold", "--reason", "the roll stands")
	out := mustRun(t, dir, "audit", id)
	contest := fmt.Sprintf("event 6 (alice's) contested at event %d by bob: cocked die — settled by ruling %d", disputed.Events[0].Seq-1, disputed.Events[0].Seq+1) // the contest came just before the dispute, the ruling after it
	for _, want := range []string{contest, "bob disputes event 6: I saw two more 6s", "the judge rules uphold (the roll stands)",
		"verdict: CLEAN (unsigned: the operator is trusted)", "of the recorder's receipts checked against the log"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit lacks %q:\n%s", want, out)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// replay --follow tells the history, then new events as they are recorded
// on the running server, over NATS.
func TestReplayFollow(t *testing.T) {
	dir := t.TempDir()
	si := startServe(t, dir).info
	var created struct {
		Match  string            `json:"match"`
		Tokens map[string]string `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "new", example, "--id", "live")), &created); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"--server", si.NATSURL, "--nats-creds", si.ClientCreds, "replay", "live", "--follow"}, strings.NewReader(""), &out, &bytes.Buffer{})
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(out.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("replay --follow never printed %q:\n%s", want, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("Boltguns vs Boyz")
	mustRun(t, dir, "declare", "live", "--token", created.Tokens["player:alice"], "--type", "next-turn")
	waitFor("Turn 1 — Alice's turn begins")
	mustRun(t, dir, "declare", "live", "--token", created.Tokens["player:alice"], "--type", "phase", "--phase", "shooting")
	waitFor("Alice moves to the shooting phase")
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("replay --follow exited %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("replay --follow did not stop")
	}
	if n := strings.Count(out.String(), "Turn 1 — Alice's turn begins"); n != 1 {
		t.Fatalf("the new event was told %d times", n)
	}
}
