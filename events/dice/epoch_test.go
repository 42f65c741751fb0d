package dice

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// The scheme 2 test vectors pinned in docs/dice.md.
func TestVectorV2(t *testing.T) {
	seed := bytes.Repeat([]byte{0x42}, SeedSize)
	alice, bob := bytes.Repeat([]byte{1}, SeedSize), bytes.Repeat([]byte{2}, SeedSize)
	ep := Epoch{Match: "m-0001", Number: 0}
	cases := []struct {
		players []PlayerSeed
		want    []int
	}{
		{[]PlayerSeed{{"alice", alice}, {"bob", bob}}, []int{5, 2, 4, 5, 1, 5, 4, 1, 2, 3}},
		{[]PlayerSeed{{"alice", alice}, {"bob", nil}}, []int{3, 6, 4, 6, 5, 6, 6, 1, 1, 2}}, // bob excused
	}
	for _, c := range cases {
		got, err := DeriveV2(seed, ep, c.players, 7, 10)
		if err != nil || !equal(got, c.want) {
			t.Fatalf("dice %v (%v), want %v", got, err, c.want)
		}
	}
	if c := Commit(alice); c != "72cd6e8422c407fb6d098690f1130b7ded7ec2f7f5e1d30bd9d521f015363793" {
		t.Fatalf("alice's commitment %s", c)
	}
	msg := hex.EncodeToString(MessageV2(Epoch{"m", 1}, []PlayerSeed{{"a", []byte{0xab}}}, 1, 2, 3))
	if msg != "000000106d617463687265632d646963652d7632000000016d0000000100000001000000016100000001ab00000000000000010000000200000003" {
		t.Fatalf("message layout changed: %s", msg)
	}
	if s := hex.EncodeToString(DerivePlayerSeed([]byte("secret"), ep, "alice")); s != "209f12d75d94ee990295870e1569a361574de57d3b30bb4e017503fd90c31f73" {
		t.Fatalf("player seed derivation changed: %s", s)
	}
}

// Every input of scheme 2 changes the dice: the epoch's identity (so a
// branch's epoch never shares dice with its parent's), each player's id
// and seed, the roll.
func TestEveryInputChangesTheDiceV2(t *testing.T) {
	seed := bytes.Repeat([]byte{1}, SeedSize)
	ps := []PlayerSeed{{"a", bytes.Repeat([]byte{3}, SeedSize)}, {"b", bytes.Repeat([]byte{4}, SeedSize)}}
	ep := Epoch{"m", 0}
	base, _ := DeriveV2(seed, ep, ps, 5, 40)
	swap := []PlayerSeed{ps[1], ps[0]}
	other := []PlayerSeed{ps[0], {"b", bytes.Repeat([]byte{5}, SeedSize)}}
	renamed := []PlayerSeed{ps[0], {"c", ps[1].Seed}}
	variants := map[string][]int{}
	variants["epoch match"], _ = DeriveV2(seed, Epoch{"n", 0}, ps, 5, 40)
	variants["epoch number"], _ = DeriveV2(seed, Epoch{"m", 1}, ps, 5, 40)
	variants["player order"], _ = DeriveV2(seed, ep, swap, 5, 40)
	variants["player seed"], _ = DeriveV2(seed, ep, other, 5, 40)
	variants["player id"], _ = DeriveV2(seed, ep, renamed, 5, 40)
	variants["seq"], _ = DeriveV2(seed, ep, ps, 6, 40)
	for name, v := range variants {
		if equal(v, base) {
			t.Errorf("changing the %s does not change the dice", name)
		}
	}
	if _, err := DeriveV2(seed, ep, []PlayerSeed{{"a", []byte{1}}}, 1, 1); err == nil {
		t.Error("a short player seed was accepted")
	}
}
