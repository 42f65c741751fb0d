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
// verify --receipts failed the honest match at event 1. Here Bob's first
// command is the seed that sends his contribution to Alice's digital roll
// (two players at a table, each with their own CLI and receipts).
func TestSeedAsFirstCommandRemembersTheKeys(t *testing.T) {
	dir := t.TempDir()
	keys, _ := signedMatch(t, dir, "seed-first")
	alice := keys["player:alice"]
	for _, c := range [][]string{{"--type", "next-turn"}, {"--type", "phase", "--phase", "shooting"}, {"--type", "shoot", "--unit", "tac", "--target", "boyz"}} {
		mustRun(t, dir, append([]string{"declare", "seed-first", "--key", alice}, c...)...)
	}
	_, errs := mustRunErr(t, dir, "roll", "seed-first", "--key", alice, "--digital", "--wait", "0")
	if !strings.Contains(errs, "waits for the dice contribution of player:bob") {
		t.Fatalf("alice's digital roll does not say it waits for bob:\n%s", errs)
	}
	bobReceipts := filepath.Join(t.TempDir(), "bob")
	out := mustRun(t, dir, "--receipts", bobReceipts, "seed", "seed-first", "--key", keys["player:bob"])
	if !strings.Contains(out, "Alice rolls 9 D6 to hit") || !strings.Contains(out, "[digital]") {
		t.Fatalf("bob's contribution does not draw alice's dice:\n%s", out)
	}
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

// mustRunErr is mustRun returning standard error too.
func mustRunErr(t *testing.T, dir string, args ...string) (string, string) {
	t.Helper()
	code, out, errs := run(t, dir, args...)
	if code != 0 {
		t.Fatalf("matchrec %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out, errs
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

// signedMatch creates a signed match of the example's setup on dir with
// join codes, has every role join with a key of its own (each in a keys
// directory of its own, as on three machines) and returns each role's key
// file and what new printed.
func signedMatch(t *testing.T, dir, id string) (keys map[string]string, out string) {
	t.Helper()
	var res struct {
		Joins map[string]JoinInfo `json:"joins"`
	}
	out = mustRun(t, dir, "--json", "new", example, "--sign", "--id", id)
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Joins) != 3 {
		t.Fatalf("new --sign --json: %v\n%s", err, out)
	}
	keys = map[string]string{}
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		var j struct {
			Key string `json:"key_file"`
		}
		own := filepath.Join(t.TempDir(), "keys")
		if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "join", res.Joins[role].Code, "--keys", own)), &j); err != nil {
			t.Fatal(err)
		}
		keys[role] = j.Key
	}
	return keys, out
}
