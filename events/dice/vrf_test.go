package dice

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"testing"
)

// The scheme 3 test vectors pinned in docs/dice.md (and in
// tools/verify_test.py): change one and you change every recorded
// match's dice with it.
func TestVectorV3(t *testing.T) {
	k := VRFKeyFromSeed(bytes.Repeat([]byte{0x42}, SeedSize))
	if pk := k.PublicHex(); pk != "0e291f63a386753e00ae969f48979ed6ba8d06b8949aa90094ae7660d96a931f" || CommitFor(SchemeV3, bytes.Repeat([]byte{0x42}, SeedSize)) != pk {
		t.Fatalf("VRF key of 32 × 0x42: %s", pk)
	}
	ep := Epoch{Match: "m-0001", Number: 0}
	var h [32]byte
	copy(h[:], bytes.Repeat([]byte{0x11}, 32))
	a := AlphaV3(ep, 7, h, "player:alice")
	if got := hex.EncodeToString(a); got != "000000106d617463687265632d646963652d7633000000066d2d3030303100000000000000000000000711111111111111111111111111111111111111111111111111111111111111110000000c706c617965723a616c696365" {
		t.Fatalf("alpha layout changed: %s", got)
	}
	const proof = "84e2ad31cd0324a53d7bec986b82689b09e2b14117e87428e411c3bd7bd86b44a69e1b1a51b8f9eb7b7d6e045c64318eefa9633b3a1a2c02ead8856e1efc4a4f9b98910153ba77bdaf9ff40ceca9b70b"
	if got := hex.EncodeToString(k.Prove(a)); got != proof {
		t.Fatalf("proof %s", got)
	}
	beta, err := VerifyVRF(k.PublicHex(), proof, a)
	if err != nil || hex.EncodeToString(beta) != "ce9964a5676791df9ea08f4d99098251c4a85218fbc7553397f1e68f35c06e5be88f09600166ebc17150945f6c88ddc0a575fe25d57e15383c96db694156f4cd" {
		t.Fatalf("beta %x (%v)", beta, err)
	}
	cs := []Contribution{{"recorder", bytes.Repeat([]byte{1}, 64)}, {"player:alice", bytes.Repeat([]byte{2}, 64)}, {"player:bob", bytes.Repeat([]byte{3}, 64)}}
	if got, _ := DeriveV3(ep, 7, cs, 10); !equal(got, []int{5, 6, 5, 4, 1, 6, 4, 2, 3, 1}) {
		t.Fatalf("dice %v", got)
	}
	if m := hex.EncodeToString(MixV3(ep, 7, cs)); m != "fad80d494fd26016e942bb1003f1cca4141da52cc2fa049f15c25863031f018a" {
		t.Fatalf("mix %s", m)
	}
	if m := hex.EncodeToString(MessageV3(1, 2, 3)); m != "000000106d617463687265632d646963652d763300000000000000010000000200000003" {
		t.Fatalf("message layout changed: %s", m)
	}
}

// A proof verifies only under its key, for its input: another roll's
// context, another slot, another key, one flipped bit, a short proof or a
// key that is no ristretto255 element all fail with ErrBadVRF.
func TestVRFProofsAreBoundToKeyAndRoll(t *testing.T) {
	k, other := VRFKeyFromSeed([]byte("a")), VRFKeyFromSeed([]byte("b"))
	ep := Epoch{Match: "m", Number: 0}
	a := AlphaV3(ep, 5, [32]byte{1}, "player:a")
	pi := hex.EncodeToString(k.Prove(a))
	if _, err := VerifyVRF(k.PublicHex(), pi, a); err != nil {
		t.Fatal(err)
	}
	flipped := k.Prove(a)
	flipped[60] ^= 1
	bad := map[string][3]any{
		"another roll":  {k.PublicHex(), pi, AlphaV3(ep, 6, [32]byte{1}, "player:a")},
		"another head":  {k.PublicHex(), pi, AlphaV3(ep, 5, [32]byte{2}, "player:a")},
		"another slot":  {k.PublicHex(), pi, AlphaV3(ep, 5, [32]byte{1}, "player:b")},
		"another key":   {other.PublicHex(), pi, a},
		"a flipped bit": {k.PublicHex(), hex.EncodeToString(flipped), a},
		"a short proof": {k.PublicHex(), pi[:100], a},
		"no element":    {"ff" + k.PublicHex()[2:], pi, a},
	}
	for name, c := range bad {
		if _, err := VerifyVRF(c[0].(string), c[1].(string), c[2].([]byte)); !errors.Is(err, ErrBadVRF) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if ValidVRFKey("ff"+k.PublicHex()[2:]) || !ValidVRFKey(k.PublicHex()) {
		t.Error("ValidVRFKey")
	}
}

// Chi-square over 60,000 scheme 3 dice, every roll's outputs fresh VRF
// outputs: uniform at the 1% level (critical value 15.086, 5 degrees).
func TestDerivedDiceAreUniformV3(t *testing.T) {
	keys := []*VRFKey{VRFKeyFromSeed([]byte("r")), VRFKeyFromSeed([]byte("a")), VRFKeyFromSeed([]byte("b"))}
	slots := []string{"recorder", "player:a", "player:b"}
	ep := Epoch{Match: "chi", Number: 0}
	var counts [7]int
	n := 0
	for seq := uint64(1); n < 60_000; seq++ {
		var cs []Contribution
		for i, k := range keys {
			a := AlphaV3(ep, seq, [32]byte{byte(seq)}, slots[i])
			b, err := VerifyVRF(k.PublicHex(), hex.EncodeToString(k.Prove(a)), a)
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, Contribution{slots[i], b})
		}
		vals, err := DeriveV3(ep, seq, cs, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			counts[v]++
			n++
		}
	}
	exp, chi := float64(n)/6, 0.0
	for f := 1; f <= 6; f++ {
		d := float64(counts[f]) - exp
		chi += d * d / exp
	}
	if chi > 15.086 || math.IsNaN(chi) {
		t.Fatalf("chi-square %.2f > 15.086: counts %v", chi, counts[1:])
	}
}
