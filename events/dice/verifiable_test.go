package dice

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"
)

// The test vector pinned in docs/dice.md: change one and you must change
// the other, and every recorded match's dice with them.
func TestVector(t *testing.T) {
	seed := bytes.Repeat([]byte{0x42}, SeedSize)
	got, err := Derive(seed, "m-0001", []string{"alice-seed", "bob-seed"}, 7, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{2, 3, 2, 1, 1, 3, 6, 6, 4, 6}
	if !equal(got, want) {
		t.Fatalf("dice %v, want %v", got, want)
	}
	if c := Commit(seed); c != "425ed4e4a36b30ea21b90e21c712c649e8214c29b7eaf68089d1039c6e55384c" || !CheckCommit(seed, c) || CheckCommit(seed[1:], c) {
		t.Fatalf("commit %s", c)
	}
	msg := hex.EncodeToString(Message("m", []string{"s"}, 1, 2, 3))
	if msg != "000000106d617463687265632d646963652d7631000000016d00000001000000017300000000000000010000000200000003" {
		t.Fatalf("message layout changed: %s", msg)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEveryInputChangesTheDice(t *testing.T) {
	seed := bytes.Repeat([]byte{1}, SeedSize)
	base, _ := Derive(seed, "m", []string{"a"}, 5, 40)
	other := bytes.Repeat([]byte{2}, SeedSize)
	variants := map[string][]int{}
	variants["seed"], _ = Derive(other, "m", []string{"a"}, 5, 40)
	variants["match"], _ = Derive(seed, "n", []string{"a"}, 5, 40)
	variants["player seed"], _ = Derive(seed, "m", []string{"b"}, 5, 40)
	variants["no player seed"], _ = Derive(seed, "m", nil, 5, 40)
	variants["seq"], _ = Derive(seed, "m", []string{"a"}, 6, 40)
	for name, v := range variants {
		if equal(v, base) {
			t.Errorf("changing the %s does not change the dice", name)
		}
	}
	if _, err := Derive(seed[:5], "m", nil, 1, 1); err == nil {
		t.Error("short seed accepted")
	}
}

// Chi-square over 600,000 derived dice: uniform at the 1% level
// (critical value for 5 degrees of freedom: 15.086).
func TestDerivedDiceAreUniform(t *testing.T) {
	n := 600_000
	if testing.Short() {
		n = 60_000
	}
	seed := bytes.Repeat([]byte{0x5a}, SeedSize)
	var counts [7]int
	perRoll := 100
	for seq := uint64(1); int(seq)*perRoll <= n; seq++ {
		vals, err := Derive(seed, "chi", []string{"p"}, seq, perRoll)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			counts[v]++
		}
	}
	exp := float64(n) / 6
	chi := 0.0
	for f := 1; f <= 6; f++ {
		d := float64(counts[f]) - exp
		chi += d * d / exp
	}
	if chi > 15.086 || math.IsNaN(chi) {
		t.Fatalf("chi-square %.2f > 15.086: counts %v", chi, counts[1:])
	}
}

func TestFromByteRejectsTheBiasedTail(t *testing.T) {
	var counts [7]int
	for b := 0; b < 256; b++ {
		if v, ok := FromByte(byte(b)); ok {
			counts[v]++
		} else if b < 252 {
			t.Fatalf("byte %d rejected", b)
		}
	}
	for f := 1; f <= 6; f++ {
		if counts[f] != 42 {
			t.Fatalf("face %d from %d bytes, want 42", f, counts[f])
		}
	}
}
