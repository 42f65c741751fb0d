package events_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
)

// The canonical forms of docs/events.md ("Encoding"), the same table
// tools/verify_test.py holds its msgpack decoder to.
func TestCheckCanonical(t *testing.T) {
	for _, raw := range []string{"00", "7f", "cc80", "cd0100", "ce00010000", "cf0000000100000000", "ff", "e0", "d0df",
		"d1ff7f", "c0", "c2", "c3", "cb3ff8000000000000", "a3616263", "c40201ff", "92a1610c", "81a16101", "90", "80",
		"d920" + strings.Repeat("61", 32), "dc0010" + strings.Repeat("00", 16), "c50100" + strings.Repeat("00", 256)} {
		if err := events.CheckCanonical(unhex(t, raw)); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
	for _, raw := range []string{
		"cc05",                     // 5 as uint 8: fixint is shorter
		"cd0080",                   // 128 as uint 16
		"d005",                     // a non-negative value in a signed form
		"d0f0",                     // -16 as int 8: negative fixint is shorter
		"d1ffdf",                   // -33 as int 16: int 8 holds it
		"d903616263",               // str 8 for a 3-byte string
		"da0003616263",             // str 16 for a 3-byte string
		"c5000100",                 // bin 16 for one byte
		"dc000100",                 // array 16 of one element
		"de000181a16101",           // map 16 of one entry
		"ca3fc00000",               // float 32: matchrec writes float 64
		"c1", "c7000000", "d40000", // never used / ext types
		"a2ff61",         // not UTF-8
		"82a16101a16102", // a key twice
		"8101a0",         // a non-string key
		"92a161",         // truncated
		"c4ff00",         // a length past the end
		"0000",           // trailing bytes
		"",               // nothing
	} {
		if err := events.CheckCanonical(unhex(t, raw)); err == nil {
			t.Errorf("%s is accepted", raw)
		}
	}
	deep := strings.Repeat("91", 200) + "00"
	if err := events.CheckCanonical(unhex(t, deep)); err == nil {
		t.Error("a value nested 200 deep is accepted")
	}
}

// What the codec writes is canonical: a record, its payload and a value.
func TestCodecWritesCanonical(t *testing.T) {
	e, err := events.NewAuthed("m-1", 300, events.Hash{1}, -5, events.Actor{Kind: events.ActorPlayer, ID: "alice"},
		&events.DiceRolled{Roller: "alice", Count: 3, Values: []int{1, 6, 200}, Need: 3, Source: events.SourceManual},
		&events.Auth{Statement: []byte{0x90}})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"record": events.Marshal(e), "payload": e.Payload} {
		if err := events.CheckCanonical(b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
