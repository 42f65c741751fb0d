package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors/auth.json")

// vectors are pinned in testdata/vectors/auth.json and quoted in
// docs/events.md: an independent verifier checks itself against them.
type vectors struct {
	KeySeed          string `json:"key_seed"`
	KeyPublic        string `json:"key_public"`
	CommandMsgpack   string `json:"command_msgpack"`
	Statement        string `json:"statement"`
	StatementSig     string `json:"statement_signature"`
	RecorderSeed     string `json:"recorder_seed"`
	RecorderPublic   string `json:"recorder_public"`
	ReceiptBody      string `json:"receipt_body"`
	ReceiptSignature string `json:"receipt_signature"`
	EventV2Record    string `json:"event_v2_record"`
	EventV2Hash      string `json:"event_v2_hash"`
}

func fill(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

func makeVectors(t *testing.T) vectors {
	t.Helper()
	key, err := KeyFromSeed(fill(7, 32), "m-0001", "player:alice")
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := events.EncodeValue(map[string]string{"type": "next-turn"})
	if err != nil {
		t.Fatal(err)
	}
	st := Statement{Match: "m-0001", HeadSeq: 5, Role: "player:alice", Command: cmd}
	copy(st.HeadHash[:], fill(0x11, 32))
	copy(st.Nonce[:], fill(0x22, NonceSize))
	body := st.Marshal()
	sig := Sign(key.Private, StatementDomain, body)
	rec, _ := KeyFromSeed(fill(8, 32), "", "")
	r := Receipt{Match: "m-0001", Seq: 6, Recorder: rec.Public()}
	copy(r.Hash[:], fill(0x33, 32))
	r.Signature = Sign(rec.Private, ReceiptDomain, r.Body())
	var prev events.Hash
	copy(prev[:], fill(0x11, 32))
	e, err := events.NewAuthed("m-0001", 6, prev, 1767225600000000000, events.Actor{Kind: events.ActorPlayer, ID: "alice"},
		&events.TurnStarted{Turn: 1, Player: "alice"}, &events.Auth{Statement: body, Signature: sig})
	if err != nil {
		t.Fatal(err)
	}
	return vectors{
		KeySeed: hex.EncodeToString(key.Seed()), KeyPublic: key.PublicHex(),
		CommandMsgpack: hex.EncodeToString(cmd), Statement: hex.EncodeToString(body), StatementSig: hex.EncodeToString(sig),
		RecorderSeed: hex.EncodeToString(rec.Seed()), RecorderPublic: rec.PublicHex(),
		ReceiptBody: hex.EncodeToString(r.Body()), ReceiptSignature: hex.EncodeToString(r.Signature),
		EventV2Record: hex.EncodeToString(events.Marshal(e)), EventV2Hash: e.Hash.String(),
	}
}

func TestVectors(t *testing.T) {
	got := makeVectors(t)
	path := filepath.Join("..", "..", "testdata", "vectors", "auth.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want vectors
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("the pinned vectors changed (every recorded signature with them):\ngot  %+v\nwant %+v", got, want)
	}
	// And they verify, and the record decodes back to the same event.
	pub, _ := hex.DecodeString(want.KeyPublic)
	body, _ := hex.DecodeString(want.Statement)
	sig, _ := hex.DecodeString(want.StatementSig)
	if !Verify(ed25519.PublicKey(pub), StatementDomain, body, sig) || Verify(ed25519.PublicKey(pub), ReceiptDomain, body, sig) {
		t.Fatal("the statement signature does not verify for its domain only")
	}
	rec, _ := hex.DecodeString(want.EventV2Record)
	e, err := events.Unmarshal(rec)
	if err != nil || e.Legacy || !e.Auth.Signed() || events.ComputeHash(e).String() != want.EventV2Hash {
		t.Fatalf("v2 record: %v legacy=%v", err, e.Legacy)
	}
}

func TestStatementRoundTripAndStrictness(t *testing.T) {
	st := Statement{Match: "m", HeadSeq: 300, Nonce: NewNonce(), Role: "judge", Command: []byte{0x80}}
	b := st.Marshal()
	got, err := ParseStatement(b)
	if err != nil || got.Match != "m" || got.HeadSeq != 300 || got.Nonce != st.Nonce || !bytes.Equal(got.Command, st.Command) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	bad := map[string][]byte{
		"trailing byte": append(append([]byte(nil), b...), 0),
		"truncated":     b[:len(b)-3],
		"empty":         nil,
		"not an array":  {0xa1, 'x'},
		"garbage":       {0xdd, 0xff, 0xff, 0xff, 0xff},
	}
	for name, in := range bad {
		if _, err := ParseStatement(in); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	k, err := GenerateKey("m", "player:alice")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sub", "k.key")
	if err := WriteKey(path, k); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v", fi.Mode())
	}
	if err := WriteKey(path, k); err == nil {
		t.Fatal("an existing key file was overwritten")
	}
	got, err := ReadKey(path)
	if err != nil || got.PublicHex() != k.PublicHex() || got.Role != "player:alice" {
		t.Fatalf("read back: %v", err)
	}
	malformed := map[string]string{
		"not json":      "hello",
		"wrong format":  `{"format":"x","version":1}`,
		"newer version": `{"format":"matchrec-key","version":2}`,
		"short private": `{"format":"matchrec-key","version":1,"private":"abcd","public":""}`,
		"wrong public":  `{"format":"matchrec-key","version":1,"private":"` + strings.Repeat("07", 32) + `","public":"` + strings.Repeat("00", 32) + `"}`,
	}
	for name, content := range malformed {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadKey(p); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
	open := filepath.Join(dir, "open.key")
	if err := os.WriteFile(open, k.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKey(open); !errors.Is(err, ErrMalformed) {
		t.Errorf("a world-readable key file was read: %v", err)
	}
}

func TestReceipt(t *testing.T) {
	k, _ := GenerateKey("", "")
	r := Receipt{Match: "m", Seq: 9, Recorder: k.Public()}
	r.Signature = Sign(k.Private, ReceiptDomain, r.Body())
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	var back Receipt
	if err := json.Unmarshal(b, &back); err != nil || back.Verify() != nil {
		t.Fatalf("json round trip: %v", err)
	}
	back.Match = "other"
	if err := back.Verify(); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("a receipt moved to another match verified: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"match":"m","seq":1,"recorder":"zz","signature":"00"}`), &back); !errors.Is(err, ErrMalformed) {
		t.Fatalf("bad receipt JSON: %v", err)
	}
}

// Keys are held to RFC 8032's decoding (§5.1.3), as tools/verify.py holds
// them: Go's ed25519.Verify would accept the non-canonical encodings, a
// strict verifier refuses them, so no match may be created with one.
func TestPublicKeysAreCanonicalPoints(t *testing.T) {
	k, _ := KeyFromSeed(bytes.Repeat([]byte{7}, 32), "", "")
	if _, err := ParsePublicKey(strings.ToUpper(k.PublicHex())); err != nil {
		t.Fatalf("a valid key (upper case): %v", err)
	}
	for name, h := range map[string]string{
		"y = p + 1 (the point y = 1, written non-canonically)": "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"x = 0 with the sign bit set (minus zero)":             "0100000000000000000000000000000000000000000000000000000000000080",
		"y = 2: no point of the curve has it":                  "0200000000000000000000000000000000000000000000000000000000000000",
	} {
		if _, err := ParsePublicKey(h); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	pub := k.PublicHex()
	good := map[string]string{"judge": pub, "player:alice": pub, "player:bob": pub}
	if err := CheckRoleKeys(good, []string{"alice", "bob"}); err != nil {
		t.Fatal(err)
	}
	for name, keys := range map[string]map[string]string{
		"a role missing":    {"judge": pub, "player:alice": pub},
		"a role too many":   {"judge": pub, "player:alice": pub, "player:bob": pub, "player:carol": pub},
		"upper case":        {"judge": strings.ToUpper(pub), "player:alice": pub, "player:bob": pub},
		"a non-canonical y": {"judge": "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", "player:alice": pub, "player:bob": pub},
	} {
		if err := CheckRoleKeys(keys, []string{"alice", "bob"}); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
