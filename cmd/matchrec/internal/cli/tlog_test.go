package cli

import (
	"crypto/ed25519"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/store/identity"
)

// The transparency log through the CLI: every command's receipt carries
// a checkpoint the CLI keeps beside its receipts; prove prints the log's
// proof of a match; verify --checkpoint checks a bundle against it
// offline, so a bundle cut after the proof was taken fails with no
// receipts; and a recorder that shows the CLI another history is caught
// at the next command (log_fork): its receipt is not kept, and the
// checkpoint kept stays the evidence.
func TestProveVerifyCheckpointAndFork(t *testing.T) {
	dir := t.TempDir()
	var p PlayResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "play", example)), &p); err != nil {
		t.Fatal(err)
	}
	id, err := identity.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir+".receipts", id.PublicHex()+".checkpoint")
	note, err := os.ReadFile(kept)
	if err != nil {
		t.Fatalf("no checkpoint kept beside the receipts: %v", err)
	}
	cp, err := headlog.Open(note, id.PublicKey())
	if err != nil || cp.Size == 0 {
		t.Fatalf("%+v %v", cp, err)
	}
	proof := filepath.Join(t.TempDir(), "m.proof")
	out := mustRun(t, dir, "prove", p.Match, "--out", proof)
	if !strings.Contains(out, "(ended)") || !strings.Contains(out, "(created)") {
		t.Fatalf("prove of an ended match:\n%s", out)
	}
	bundle := filepath.Join(t.TempDir(), "m.bundle")
	mustRun(t, dir, "export", p.Match, "--bundle", bundle)
	other := t.TempDir() // a verifier with nothing kept: the proof file is all it holds
	if code, out, errs := run(t, "", "--receipts", other, "verify", bundle, "--checkpoint", proof, "--recorder-key", id.PublicHex()); code != 0 ||
		!strings.Contains(out, "transparency log") {
		t.Fatalf("verify --checkpoint: exit %d\n%s%s", code, out, errs)
	}
	// The bundle cut before the end, its log proof dropped: the proof
	// file, taken from the log before, names what is missing.
	var b map[string]any
	raw, _ := os.ReadFile(bundle)
	_ = json.Unmarshal(raw, &b)
	n := len(b["records"].([]any)) - 3
	b["records"], b["keys"] = b["records"].([]any)[:n], b["keys"].([]any)[:n]
	delete(b, "log")
	b["state_hash"] = strings.Repeat("0", 64) // as a forger leaves it: no state to compare
	cut := filepath.Join(t.TempDir(), "cut.bundle")
	raw, _ = json.Marshal(b)
	_ = os.WriteFile(cut, raw, 0o600)
	if code, out, _ := run(t, "", "--receipts", other, "verify", cut); code != 0 {
		t.Fatalf("without the proof, a cut bundle looks like a match in progress (exit %d)\n%s", code, out)
	}
	code, out, _ := run(t, "", "--receipts", other, "verify", cut, "--checkpoint", proof, "--recorder-key", id.PublicHex())
	if code != ExitRefused || !strings.Contains(out, "truncated") || !strings.Contains(out, "its end") {
		t.Fatalf("a cut bundle against the proof: exit %d\n%s", code, out)
	}
	// The recorder shows another history: the kept checkpoint is replaced
	// by one of a tree of the same size with another root, signed with
	// the recorder's key (as if the recorder had shown it before).
	forged := forgeCheckpoint(t, dir, cp.Size)
	if err := os.WriteFile(kept, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, dir, "declare", p.Match, "--token", p.Tokens["player:bob"], "--type", "dispute", "--event", "6", "--reason", "no")
	if code != ExitRefused || !strings.Contains(errs, "log_fork") {
		t.Fatalf("another history: exit %d\n%s", code, errs)
	}
	if after, _ := os.ReadFile(kept); string(after) != string(forged) {
		t.Fatal("the kept checkpoint was replaced after a fork")
	}
	// A forged checkpoint file (not the recorder's key) cannot be held.
	k, _ := auth.GenerateKey("", "")
	bad := filepath.Join(t.TempDir(), "bad.checkpoint")
	s, _ := headlog.NewSigner(k.Private)
	fc, _ := headlog.Sign(s, cp.Size, cp.Hash)
	_ = os.WriteFile(bad, fc.Note, 0o600)
	if code, out, _ := run(t, "", "--receipts", other, "verify", bundle, "--checkpoint", bad, "--recorder-key", id.PublicHex()); code != ExitRefused || !strings.Contains(out, "bad_checkpoint") {
		t.Fatalf("a checkpoint of another key: exit %d\n%s", code, out)
	}
}

// forgeCheckpoint signs, with the data directory's recorder key, a
// checkpoint of size entries with a root that is not the log's.
func forgeCheckpoint(t *testing.T, dir string, size int64) []byte {
	t.Helper()
	k, err := auth.ReadKey(filepath.Join(dir, identity.File))
	if err != nil {
		t.Fatal(err)
	}
	s, err := headlog.NewSigner(ed25519.PrivateKey(k.Private))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := headlog.Sign(s, size, headlog.Hash{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	return cp.Note
}
