package dice

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	vrf "filippo.io/mostly-harmless/vrf-r255"
	"github.com/gtank/ristretto255"
)

// Scheme 3 (docs/dice.md): nobody can foresee a die. A digital roll is
// first asked for (dice.requested, recorded as event R with hash H); then
// every slot — the recorder's epoch key, every player's key, the judge's
// when the judge takes part — contributes its verifiable random function
// output over the roll's context (R, H, the epoch, the slot). A VRF
// (RFC 9381; the ECVRF-RISTRETTO255-SHA512 suite of c2sp.org/vrf-r255,
// implemented by filippo.io/mostly-harmless/vrf-r255) has one output per
// key and input that verifies, so a contributor cannot choose theirs, and
// nobody without the key can compute it. The dice are
//
//	HMAC-SHA256(key = MixV3(epoch, R, outputs), msg = MessageV3(R, index, counter))
//
// with scheme 1's face rule (FromByte, rejection sampling).

// SchemeV3 is the scheme of epochs whose dice are VRF contributions.
const SchemeV3 = 3

// DomainV3 separates scheme 3's inputs from every other use.
const DomainV3 = "matchrec-dice-v3"

// VRFKeyDomain separates the derivation of a VRF key from a secret seed
// (a participant's Ed25519 private seed, the recorder's epoch seed).
const VRFKeyDomain = "matchrec-vrf-key-v1"

// Sizes of scheme 3's VRF parts.
const (
	VRFPublicSize = 32 // a ristretto255 element
	VRFProofSize  = 80 // Gamma (32) || c (16) || s (32)
	VRFOutputSize = 64 // SHA-512
)

// ErrBadVRF is a VRF public key or proof that does not decode, or a proof
// that does not verify under its key for its input.
var ErrBadVRF = errors.New("the VRF proof does not verify")

// VRFKey is an ECVRF-RISTRETTO255-SHA512 key pair.
type VRFKey struct{ sk *vrf.PrivateKey }

// VRFKeyFromSeed derives the VRF key of a secret seed: the scalar of the
// 64 bytes SHA-512(str(VRFKeyDomain) || seed), reduced modulo the group
// order (ristretto255's uniform scalar, RFC 9496 §4.4). Anyone holding the
// seed holds the key; nobody needs to store it.
func VRFKeyFromSeed(seed []byte) *VRFKey {
	h := sha512.Sum512(append(appendString(nil, VRFKeyDomain), seed...))
	s, err := ristretto255.NewScalar().SetUniformBytes(h[:])
	if err != nil {
		panic(fmt.Sprintf("ristretto255: %v", err)) // 64 bytes always reduce
	}
	sk, err := vrf.NewPrivateKey(s.Bytes())
	if err != nil {
		panic(fmt.Sprintf("vrf-r255: %v", err)) // a reduced scalar is canonical
	}
	return &VRFKey{sk}
}

// PublicHex is the public key: the ristretto255 encoding in lowercase hex.
func (k *VRFKey) PublicHex() string { return hex.EncodeToString(k.sk.PublicKey().Bytes()) }

// Prove returns the proof (80 bytes) of the key's output over alpha.
func (k *VRFKey) Prove(alpha []byte) []byte { return k.sk.Prove(alpha).Bytes() }

// ValidVRFKey reports whether s is a VRF public key as written: 64
// lowercase hex digits of the canonical encoding of a ristretto255 element.
func ValidVRFKey(s string) bool {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != VRFPublicSize || hex.EncodeToString(b) != s {
		return false
	}
	_, err = vrf.NewPublicKey(b)
	return err == nil
}

// VerifyVRF checks proof (hex) under the public key pub (hex) over alpha
// and returns the output it proves (64 bytes).
func VerifyVRF(pub, proof string, alpha []byte) ([]byte, error) {
	pk, err := hex.DecodeString(pub)
	if err != nil || len(pk) != VRFPublicSize {
		return nil, fmt.Errorf("%w: the VRF public key is not %d hex digits", ErrBadVRF, 2*VRFPublicSize)
	}
	y, err := vrf.NewPublicKey(pk)
	if err != nil {
		return nil, fmt.Errorf("%w: the VRF public key is no ristretto255 element", ErrBadVRF)
	}
	pi, err := hex.DecodeString(proof)
	if err != nil || len(pi) != VRFProofSize {
		return nil, fmt.Errorf("%w: a VRF proof is %d hex digits", ErrBadVRF, 2*VRFProofSize)
	}
	p, err := vrf.NewProof(pi)
	if err != nil {
		return nil, fmt.Errorf("%w: the proof does not decode", ErrBadVRF)
	}
	beta, err := y.Verify(p, alpha)
	if err != nil {
		return nil, ErrBadVRF
	}
	return beta, nil
}

// AlphaV3 is the VRF input of slot's contribution to the roll requested
// as event roll (hash rollHash) in epoch ep:
//
//	str(DomainV3) || str(M) || u32(n) || u64(roll) || rollHash (32 bytes) || str(slot)
//
// The hash binds the contribution to everything recorded up to the
// request, so a contribution is for this roll only.
func AlphaV3(ep Epoch, roll uint64, rollHash [32]byte, slot string) []byte {
	b := appendString(nil, DomainV3)
	b = appendString(b, ep.Match)
	b = binary.BigEndian.AppendUint32(b, uint32(ep.Number))
	b = binary.BigEndian.AppendUint64(b, roll)
	b = append(b, rollHash[:]...)
	return appendString(b, slot)
}

// Contribution is one slot's verified VRF output.
type Contribution struct {
	Slot string
	Beta []byte
}

// MixV3 is the HMAC key of a scheme 3 roll: SHA-256 of the domain, the
// epoch, the roll and every slot's output, in slot order (the recorder,
// the players in match.created's order, the judge):
//
//	SHA-256(str(DomainV3) || str(M) || u32(n) || u64(roll) || u32(k) || for each slot: str(slot) || str(output))
func MixV3(ep Epoch, roll uint64, cs []Contribution) []byte {
	b := appendString(nil, DomainV3)
	b = appendString(b, ep.Match)
	b = binary.BigEndian.AppendUint32(b, uint32(ep.Number))
	b = binary.BigEndian.AppendUint64(b, roll)
	b = binary.BigEndian.AppendUint32(b, uint32(len(cs)))
	for _, c := range cs {
		b = appendString(b, c.Slot)
		b = binary.BigEndian.AppendUint32(b, uint32(len(c.Beta)))
		b = append(b, c.Beta...)
	}
	h := sha256.Sum256(b)
	return h[:]
}

// MessageV3 is the HMAC input of one die attempt of scheme 3.
func MessageV3(roll uint64, index, counter uint32) []byte {
	b := appendString(nil, DomainV3)
	b = binary.BigEndian.AppendUint64(b, roll)
	b = binary.BigEndian.AppendUint32(b, index)
	return binary.BigEndian.AppendUint32(b, counter)
}

// DeriveV3 returns the count dice of the roll requested as event roll in
// epoch ep, from every slot's output.
func DeriveV3(ep Epoch, roll uint64, cs []Contribution, count int) ([]int, error) {
	for _, c := range cs {
		if len(c.Beta) != VRFOutputSize {
			return nil, fmt.Errorf("%s's VRF output must be %d bytes, got %d", c.Slot, VRFOutputSize, len(c.Beta))
		}
	}
	return derive(MixV3(ep, roll, cs), count, func(i, counter uint32) []byte { return MessageV3(roll, i, counter) })
}

// CommitFor is the commitment a dice.committed of scheme records for the
// recorder's epoch seed: SHA-256 of it (schemes 1 and 2), or the public
// key of the VRF key it derives (scheme 3), both 64 lowercase hex digits.
func CommitFor(scheme int, seed []byte) string {
	if scheme >= SchemeV3 {
		return VRFKeyFromSeed(seed).PublicHex()
	}
	return Commit(seed)
}

// CheckCommitFor reports whether seed is the epoch seed commit names.
func CheckCommitFor(scheme int, seed []byte, commit string) bool {
	if scheme >= SchemeV3 {
		return len(seed) == SeedSize && CommitFor(scheme, seed) == commit
	}
	return CheckCommit(seed, commit)
}
