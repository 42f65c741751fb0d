// Package auth is who said what in a match record: the statement a
// participant signs for each command (statement.go), the receipt a
// recorder signs for each reply (receipt.go), the participants' key files
// (keyfile.go), and the one way matchrec signs anything: Ed25519 (Go's
// crypto/ed25519) over a domain string, a zero byte and the message, so a
// signature made for one purpose can never be read as made for another.
// The formats are specified in docs/events.md and docs/bundle.md.
package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"filippo.io/edwards25519"

	"github.com/matchrec/matchrec/events"
)

// Sentinel errors, wrapped with context; test with errors.Is.
var (
	// ErrMalformed: bytes that are not a statement, receipt, key or
	// signature of the documented shape.
	ErrMalformed = errors.New("malformed")
	// ErrBadSignature: a signature that does not verify under the key
	// it should have been made with.
	ErrBadSignature = errors.New("bad signature")
)

// Signing domains. Each is followed by a zero byte in the signed message;
// none is a prefix of another.
const (
	StatementDomain = "matchrec-statement-v1"
	ReceiptDomain   = "matchrec-receipt-v1"
	// BusEventDomain signs an event the recorder publishes on the bus
	// (store/natsbus: the Matchrec-Sig header).
	BusEventDomain = "matchrec-bus-event-v1"
	// BusCopyDomain signs a notice that a match's bus copy starts anew
	// (store/natsbus: matchrec repair-bus).
	BusCopyDomain = "matchrec-bus-copy-v1"
)

// signed is the message Ed25519 signs: domain || 0x00 || body.
func signed(domain string, body []byte) []byte {
	m := make([]byte, 0, len(domain)+1+len(body))
	m = append(m, domain...)
	m = append(m, 0)
	return append(m, body...)
}

// Sign signs body for domain with priv.
func Sign(priv ed25519.PrivateKey, domain string, body []byte) []byte {
	return ed25519.Sign(priv, signed(domain, body))
}

// Verify reports whether sig is pub's signature of body for domain. It
// never panics on keys or signatures of the wrong size.
func Verify(pub ed25519.PublicKey, domain string, body, sig []byte) bool {
	if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return false
	}
	return ed25519.Verify(pub, signed(domain, body), sig)
}

// ParsePublicKey reads a public key written as 64 lowercase or uppercase
// hex digits; it must be a valid key (CheckPublicKey).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: a public key is %d hex digits, got %q", ErrMalformed, 2*ed25519.PublicKeySize, clip(s))
	}
	if err := CheckPublicKey(b); err != nil {
		return nil, err
	}
	return ed25519.PublicKey(b), nil
}

// CheckPublicKey reports whether b is a public key as RFC 8032 (§5.1.3)
// decodes one: the canonical encoding of a point of the curve. Go's
// ed25519.Verify accepts a few non-canonical encodings that a strict
// verifier refuses; a match is created only with keys both accept, so
// every verifier reaches the same verdict (docs/events.md).
func CheckPublicKey(b []byte) error {
	if len(b) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: a public key is %d bytes, got %d", ErrMalformed, ed25519.PublicKeySize, len(b))
	}
	p, err := new(edwards25519.Point).SetBytes(b)
	if err != nil {
		return fmt.Errorf("%w: %x is not a point of the curve", ErrMalformed, b)
	}
	if !bytes.Equal(p.Bytes(), b) {
		return fmt.Errorf("%w: %x is not the canonical encoding of its point", ErrMalformed, b)
	}
	return nil
}

// CheckRoleKeys checks the keys of a signed match (match.created's or
// branch.created's keys): exactly one key for each of its players'
// roles (player:ID) and the judge's, each written as 64 lowercase hex
// digits of a valid public key (CheckPublicKey).
func CheckRoleKeys(keys map[string]string, players []string) error {
	want := map[string]bool{events.RoleJudge: true}
	for _, p := range players {
		want[events.RolePlayer(p)] = true
	}
	for role, k := range keys {
		if !want[role] {
			return fmt.Errorf("%w: keys: %q is not a role of this match (roles: the players' player:ID and judge)", ErrMalformed, role)
		}
		if k != strings.ToLower(k) {
			return fmt.Errorf("%w: keys: %s: a public key is written in lowercase hex", ErrMalformed, role)
		}
		if _, err := ParsePublicKey(k); err != nil {
			return fmt.Errorf("keys: %s: %w", role, err)
		}
	}
	for role := range want {
		if _, ok := keys[role]; !ok {
			return fmt.Errorf("%w: keys: no key for %s: a signed match has one for every player and the judge", ErrMalformed, role)
		}
	}
	return nil
}

// PublicHex writes a public key as lowercase hex.
func PublicHex(pub ed25519.PublicKey) string { return hex.EncodeToString(pub) }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
