package cli

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/store/api"
)

// editRecords lets edit change match id's records in the data file, as an
// operator could.
func editRecords(t *testing.T, dir, id string, edit func(b *bbolt.Bucket)) {
	t.Helper()
	db, err := bbolt.Open(filepath.Join(dir, "events.db"), 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bbolt.Tx) error {
		edit(tx.Bucket([]byte("matches")).Bucket([]byte(id)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// A signed match from the command line: play --sign signs every step with
// one key for every role, and its audit says one holder signed for all;
// new --sign writes no key, only join codes; each participant's join makes
// their key where they run it; the keys sign declare and roll; a key that
// is not theirs, a malformed key file and a world-readable one are
// refused.
func TestSignedMatchFromTheCLI(t *testing.T) {
	dir := t.TempDir()
	var p PlayResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "play", "--sign", "--id", "signed-1", example)), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Tokens) != 0 || len(p.KeyFiles) != 3 || p.KeyFiles["judge"] != p.KeyFiles["player:alice"] {
		t.Fatalf("play --sign: tokens %v, key files %v", p.Tokens, p.KeyFiles)
	}
	for _, f := range p.KeyFiles {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("key file %s: %v %v", f, fi, err)
		}
	}
	out := mustRun(t, dir, "audit", "signed-1")
	for _, want := range []string{"signed by one holder for judge, player:alice, player:bob", "[ok  ] who acted", "verdict: CLEAN — one holder signed for judge, player:alice, player:bob"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit lacks %q:\n%s", want, out)
		}
	}
	// new --sign writes no key at all, anywhere: it prints join codes.
	before, _ := filepath.Glob(filepath.Join(os.Getenv("MATCHREC_KEYS"), "signed-2.*"))
	keys, created := signedMatch(t, dir, "signed-2")
	if !strings.Contains(created, `"code": "signed-2:player:alice:`) || !strings.Contains(created, `"link": "matchrec://join/signed-2/player:alice/`) {
		t.Fatalf("new --sign:\n%s", created)
	}
	if after, _ := filepath.Glob(filepath.Join(os.Getenv("MATCHREC_KEYS"), "signed-2.*")); len(after) != len(before) {
		t.Fatalf("new --sign wrote key files: %v", after)
	}
	for role, f := range keys {
		if others, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "*")); len(others) != 1 {
			t.Fatalf("%s's key directory holds %v", role, others)
		}
	}
	var codes struct {
		Joins map[string]JoinInfo `json:"joins"`
	}
	_ = json.Unmarshal([]byte(created), &codes)
	if code, _, errs := run(t, dir, "join", codes.Joins["player:alice"].Link, "--keys", t.TempDir()); code != ExitRefused || !strings.Contains(errs, "join_used") {
		t.Fatalf("a join code used twice: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, "join", "signed-2:player:alice:nothex"); code != ExitUsage || !strings.Contains(errs, "bad_join_code") {
		t.Fatalf("a malformed join code: exit %d %s", code, errs)
	}
	alice, bobKey := keys["player:alice"], keys["player:bob"]
	mustRun(t, dir, "declare", "signed-2", "--key", alice, "--type", "next-turn")
	if code, _, errs := run(t, dir, "declare", "signed-2", "--key", bobKey, "--type", "phase", "--phase", "shooting"); code != ExitRefused || !strings.Contains(errs, "not_your_turn") {
		t.Fatalf("bob in alice's turn: exit %d %s", code, errs)
	}
	if out := mustRun(t, dir, "audit", "signed-2"); !strings.Contains(out, "every one signed by its participant") || !strings.Contains(out, "verdict: CLEAN\n") {
		t.Fatalf("audit of a joined match:\n%s", out)
	}
	// A key of another match, a token for a signed match, bad key files.
	other := p.KeyFiles["player:alice"]
	if code, _, errs := run(t, dir, "declare", "signed-2", "--key", other, "--type", "phase", "--phase", "shooting"); code != ExitUsage || !strings.Contains(errs, "bad_key") {
		t.Fatalf("another match's key: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, "declare", "signed-1", "--key", other, "--type", "next-turn"); code != ExitUsage || !strings.Contains(errs, "--as ROLE") {
		t.Fatalf("one holder's key without --as: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, dir, "declare", "signed-2", "--token", "abc", "--type", "phase", "--phase", "shooting"); code != ExitUsage || !strings.Contains(errs, "bad_key") {
		t.Fatalf("a token for a signed match: exit %d %s", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.key")
	_ = os.WriteFile(bad, []byte(`{"format":"matchrec-key","version":1,"private":"00"}`), 0o600)
	if code, _, errs := run(t, dir, "declare", "signed-2", "--key", bad, "--type", "next-turn"); code != ExitUsage || !strings.Contains(errs, "bad_key") {
		t.Fatalf("a malformed key file: exit %d %s", code, errs)
	}
	_ = os.Chmod(alice, 0o644)
	if code, _, errs := run(t, dir, "declare", "signed-2", "--key", alice, "--type", "phase", "--phase", "shooting"); code != ExitUsage || !strings.Contains(errs, "bad_key") {
		t.Fatalf("a world-readable key file: exit %d %s", code, errs)
	}
}

// keygen writes a key whose public key new --player ID=PUBKEY records.
func TestKeygenAndBroughtKeys(t *testing.T) {
	dir := t.TempDir()
	var keys [3]struct {
		File   string `json:"file"`
		Public string `json:"public"`
	}
	for i := range keys {
		if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "keygen", "--out", filepath.Join(t.TempDir(), "k.key"))), &keys[i]); err != nil {
			t.Fatal(err)
		}
	}
	var res api.CreateResult
	out := mustRun(t, dir, "--json", "new", example, "--id", "brought", "--player", "alice="+keys[0].Public, "--player", "bob="+keys[1].Public, "--judge", keys[2].Public)
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Keys["player:bob"] != keys[1].Public || len(res.Tokens) != 0 {
		t.Fatalf("new with brought keys: %v %s", err, out)
	}
	mustRun(t, dir, "declare", "brought", "--key", keys[0].File, "--type", "next-turn")
	if code, _, errs := run(t, dir, "new", example, "--id", "x", "--player", "alice=nothex"); code != ExitUsage || !strings.Contains(errs, "bad_key") {
		t.Fatalf("a bad public key: exit %d %s", code, errs)
	}
}

// A command whose reply was lost is looked up with status; the receipts
// the CLI kept catch a log cut after them, and a recorder key other than
// the one that signed them.
func TestStatusAndReceipts(t *testing.T) {
	dir := t.TempDir()
	var p PlayResult
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "play", example)), &p); err != nil {
		t.Fatal(err)
	}
	var res struct {
		api.Result
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "--json", "declare", p.Match, "--token", p.Tokens["player:bob"], "--type", "dispute", "--event", "6", "--reason", "no")), &res); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, dir, "status", p.Match, "--request", res.Request, "--role", "player:bob")
	if !strings.Contains(out, "recorded as events") {
		t.Fatalf("status:\n%s", out)
	}
	if code, _, _ := run(t, dir, "status", p.Match, "--request", strings.Repeat("0", 32), "--role", "player:bob"); code != ExitRefused {
		t.Fatalf("status of an unknown request: exit %d", code)
	}
	// The operator cuts the dispute off: the log looks like the match as
	// played, but bob's receipt says otherwise.
	editRecords(t, dir, p.Match, func(b *bbolt.Bucket) { _ = b.Delete(seqKey(res.Events[0].Seq)) })
	editHead(t, dir, p.Match, res.Events[0].Seq-1)
	code, out, _ := run(t, dir, "audit", p.Match)
	if code != ExitRefused || !strings.Contains(out, "truncated: the recorder gave a receipt for event") {
		t.Fatalf("a cut log: exit %d\n%s", code, out)
	}
	// verify with another recorder key: every receipt is the wrong recorder's.
	bundle := filepath.Join(t.TempDir(), "m.bundle")
	mustRun(t, dir, "export", p.Match, "--bundle", bundle)
	k, _ := auth.GenerateKey("", "")
	code, out, _ = run(t, t.TempDir(), "--receipts", dir+".receipts", "verify", bundle, "--recorder-key", k.PublicHex())
	if code != ExitRefused || !strings.Contains(out, "wrong_recorder") {
		t.Fatalf("verify with another recorder key: exit %d\n%s", code, out)
	}
}

// editHead sets a match's head record as an operator would after cutting
// its log.
func editHead(t *testing.T, dir, id string, seq uint64) {
	t.Helper()
	var h []byte
	editRecords(t, dir, id, func(b *bbolt.Bucket) { h = append([]byte(nil), b.Get(seqKey(seq))...) })
	db, err := bbolt.Open(filepath.Join(dir, "events.db"), 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.Update(func(tx *bbolt.Tx) error {
		heads := tx.Bucket([]byte("heads"))
		old := heads.Get([]byte(id))
		v := append(seqKey(seq), h[len(h)-32:]...)
		return heads.Put([]byte(id), append(v, old[40:]...))
	})
}

// A damaged data file is a FAILED audit naming the record, not an audit
// that could not run.
func TestDamagedStoreFails(t *testing.T) {
	dir, id := played(t)
	editRecords(t, dir, id, func(b *bbolt.Bucket) { _ = b.Put(seqKey(9), []byte{0x92, 0xc1}) })
	code, out, errs := run(t, dir, "audit", id)
	if code != ExitRefused || !strings.Contains(out, "verdict: FAILED at event 9 (chain)") {
		t.Fatalf("a damaged store: exit %d\n%s%s", code, out, errs)
	}
}
