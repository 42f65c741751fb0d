// Package auth is who said what in a match record: the statement a
// participant signs for each command (statement.go), the receipt a
// recorder signs for each reply (receipt.go), the participants' key files
// (keyfile.go), and the one way matchrec signs anything: Ed25519 (Go's
// crypto/ed25519) over a domain string, a zero byte and the message, so a
// signature made for one purpose can never be read as made for another.
// The formats are specified in docs/events.md and docs/bundle.md.
package auth

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
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
// hex digits.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: a public key is %d hex digits, got %q", ErrMalformed, 2*ed25519.PublicKeySize, clip(s))
	}
	return ed25519.PublicKey(b), nil
}

// PublicHex writes a public key as lowercase hex.
func PublicHex(pub ed25519.PublicKey) string { return hex.EncodeToString(pub) }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
