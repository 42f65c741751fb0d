package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The receipts directory a participant keeps (docs/bundle.md): what the
// CLI writes there whichever command comes first, and what a verifier
// makes of a directory that is not this match's.

// readKnown reads a receipts directory's <match>.keys.
func readKnown(t *testing.T, dir, match string) known {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, match+".keys"))
	if err != nil {
		t.Fatal(err)
	}
	var k known
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	return k
}

// Regression (issue 20, item 5): 'matchrec seed MATCH --key K' as a
// player's first command wrote {"keys":{}} into the receipts directory, so
// every later command of that player was refused keys_changed and
// verify --receipts failed the honest match at event 1.
func TestSeedAsFirstCommandRemembersTheKeys(t *testing.T) {
	dir := t.TempDir()
	keys, _ := signedMatch(t, dir, "seed-first")
	bobReceipts := filepath.Join(t.TempDir(), "bob")
	mustRun(t, dir, "--receipts", bobReceipts, "seed", "seed-first", "--key", keys["player:bob"])
	if k := readKnown(t, bobReceipts, "seed-first"); len(k.Keys) != 3 || k.Recorder == "" {
		t.Fatalf("after seed, the receipts directory remembers %+v", k)
	}
	// Bob's next command is judged by the rules, not refused keys_changed.
	code, _, errs := run(t, dir, "--receipts", bobReceipts, "declare", "seed-first", "--key", keys["player:bob"], "--type", "next-turn")
	if code != ExitRefused || !strings.Contains(errs, "not_your_turn") {
		t.Fatalf("bob's command after seed: exit %d %s", code, errs)
	}
	bundle := filepath.Join(t.TempDir(), "m.bundle")
	mustRun(t, dir, "export", "seed-first", "--bundle", bundle)
	if code, out, errs := run(t, t.TempDir(), "--receipts", bobReceipts, "verify", bundle); code != 0 || !strings.Contains(out, "receipts:") {
		t.Fatalf("verify with bob's receipts: exit %d\n%s%s", code, out, errs)
	}
}

// Regression (issue 20, item 5): a .keys file of another match made
// matchrec verify exit 1 (keys_changed) where tools/verify.py exits 2;
// docs/bundle.md says the directory is then unusable: exit 2, both.
func TestKeysFileOfAnotherMatchCannotBeUsed(t *testing.T) {
	dir := t.TempDir()
	signedMatch(t, dir, "keys-a")
	signedMatch(t, dir, "keys-b")
	receipts := dir + ".receipts"
	mixed := t.TempDir()
	b, err := os.ReadFile(filepath.Join(receipts, "keys-b.keys"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mixed, "keys-a.keys"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "a.bundle")
	mustRun(t, dir, "export", "keys-a", "--bundle", bundle)
	code, _, errs := run(t, t.TempDir(), "--receipts", mixed, "verify", bundle)
	if code != ExitUsage || !strings.Contains(errs, "bad_file") || !strings.Contains(errs, `match "keys-b"`) {
		t.Fatalf("matchrec verify with another match's .keys: exit %d %s", code, errs)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3 is needed to run tools/verify.py (CI is set): %v", err)
		}
		t.Skip("python3 not found")
	}
	cmd := exec.Command(python, filepath.Join("..", "..", "..", "..", "tools", "verify.py"), "--receipts", mixed, bundle)
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != ExitUsage || !strings.Contains(string(out), "bad_file") {
		t.Fatalf("tools/verify.py with another match's .keys: exit %d %s", cmd.ProcessState.ExitCode(), out)
	}
}

// signedMatch creates a signed match of the example's setup on dir and
// returns each role's key file.
func signedMatch(t *testing.T, dir, id string) (keys map[string]string, out string) {
	t.Helper()
	out = mustRun(t, dir, "new", example, "--sign", "--id", id)
	keys = map[string]string{}
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		keys[role] = keyPath(os.Getenv("MATCHREC_KEYS"), id, role)
	}
	return keys, out
}

// Regression (issue 20, item 5): on a data directory copied without its
// stream the first audit said "events 1-44 missing from the bus" and
// exited 1, the second exited 0. A copy that lags is no tampering: every
// audit of the copy gives the record's verdict, and says what the bus
// copy is.
func TestAuditOfACopiedDataDirectory(t *testing.T) {
	dir := t.TempDir()
	id := strings.TrimSpace(mustRun(t, dir, "play", example))
	copied := filepath.Join(t.TempDir(), "copy")
	if err := os.MkdirAll(copied, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "server.json" {
			continue // the stream (nats/) stays behind
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(copied, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 2; i++ {
		code, out, errs := run(t, copied, "audit", id)
		if code != 0 || !strings.Contains(out, "verdict: CLEAN") {
			t.Fatalf("audit %d of the copy: exit %d\n%s%s", i, code, out, errs)
		}
		if !strings.Contains(out, "[ok  ] bus copy") && !strings.Contains(out, "[lag ] bus copy incomplete, not different") {
			t.Fatalf("audit %d of the copy does not say what the bus copy is:\n%s", i, out)
		}
	}
}
