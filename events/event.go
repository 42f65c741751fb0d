// Package events is matchrec's vocabulary: the envelope every recorded fact
// travels in, the payload types (declarations and dice rolls), and the one
// codec that turns them into canonical msgpack bytes and hash-chains them.
//
// Outcomes (hits, wounds, saves, casualties) are deliberately absent: they
// are derived by the projector from declarations and dice, so a judge can
// recompute every one of them from the log.
package events

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
)

// Sentinel errors returned (wrapped) by the codec. Callers test them with
// errors.Is.
var (
	// ErrUnknownType: the envelope names an event type this build does not
	// know. History written by a newer build, or a corrupted record.
	ErrUnknownType = errors.New("unknown event type")
	// ErrNewerVersion: the payload's schema version is newer than this build
	// understands; upgrade matchrec rather than guess.
	ErrNewerVersion = errors.New("event schema version is newer than this build")
	// ErrMalformed: the bytes are not a valid envelope or payload.
	ErrMalformed = errors.New("malformed event")
	// ErrStop is returned by a scan callback to stop early (a store's Scan,
	// or any other iteration over events or rows). It never escapes the
	// function that scans: that function checks for it with errors.Is and
	// returns what it found.
	ErrStop = errors.New("stop")
)

// Type is the stable, explicit name of an event type. It is written into
// every envelope and must never change once events of that type exist: it is
// deliberately not derived from a Go type name, so renaming a Go struct never
// breaks history.
type Type string

// ActorKind says who caused an event.
type ActorKind string

const (
	ActorPlayer ActorKind = "player"
	ActorJudge  ActorKind = "judge"
	ActorSystem ActorKind = "system"
)

// Actor is who recorded an event: a player (ID = player id), the judge, or
// the recorder itself.
type Actor struct {
	Kind ActorKind `json:"kind"`
	ID   string    `json:"id,omitempty"`
}

func (a Actor) String() string {
	if a.ID == "" {
		return string(a.Kind)
	}
	return string(a.Kind) + ":" + a.ID
}

// Hash is a SHA-256 digest in the per-match hash chain.
type Hash [32]byte

// String is the lowercase hex form.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// IsZero reports whether h is the all-zero hash (the chain's start).
func (h Hash) IsZero() bool { return h == Hash{} }

// MarshalText writes the hex form, so hashes read well in JSON.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText parses the hex form.
func (h *Hash) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*h = Hash{}
		return nil
	}
	if len(b) != 64 {
		return fmt.Errorf("%w: hash must be 64 hex digits, got %d", ErrMalformed, len(b))
	}
	_, err := hex.Decode(h[:], b)
	if err != nil {
		return fmt.Errorf("%w: hash: %v", ErrMalformed, err)
	}
	return nil
}

// Event is one immutable fact of a match.
//
// Seq numbers start at 1 and have no gaps within a match. PrevHash is the
// Hash of event Seq-1 (all zeros for Seq 1). Hash is SHA-256 over PrevHash
// followed by the canonical msgpack encoding of every other field (see
// codec.go), so editing any byte of any event breaks the chain from there on.
type Event struct {
	Match    string `json:"match"`
	Seq      uint64 `json:"seq"`
	Type     Type   `json:"type"`
	Version  uint16 `json:"version"`
	Time     int64  `json:"time"` // recording time, Unix nanoseconds UTC, from an injected clock
	Actor    Actor  `json:"actor"`
	Payload  []byte `json:"-"` // canonical msgpack of the payload
	PrevHash Hash   `json:"prev_hash"`
	// Auth is the statement, and for a signed match the signature, of the
	// participant command that caused the event (docs/events.md); nil for
	// the recorder's own events. Hashed with the rest (envelope v2).
	Auth *Auth `json:"auth,omitempty"`
	// Legacy marks an event of envelope v1, recorded before statements
	// existed: its body has no auth element and is hashed without one, so
	// old records verify exactly as they were written. New events are v2.
	Legacy bool `json:"legacy,omitempty"`
	Hash   Hash `json:"hash"`
}

// Auth is who vouches for an event: the canonical statement of the
// command that caused it (events/auth.Statement) and, in a signed match,
// the participant's Ed25519 signature of it. A token match records the
// statement alone, so every participant event names its command.
type Auth struct {
	Statement []byte `json:"statement"`
	Signature []byte `json:"signature,omitempty"`
}

// Signed reports whether the auth carries a signature.
func (a *Auth) Signed() bool { return a != nil && a.Signature != nil }

// Same reports whether a and b are the same statement and signature bytes:
// events of one command (nil, the recorder's own, is no command's).
func (a *Auth) Same(b *Auth) bool {
	return a != nil && b != nil && bytes.Equal(a.Statement, b.Statement) && bytes.Equal(a.Signature, b.Signature)
}

// Roles. A participant of a match acts as one role: RolePlayer(id) for a
// player, RoleJudge for the judge. Token and key maps (match.created,
// branch.created) and statements name roles this way.
const RoleJudge = "judge"

// RolePlayer is the role of player id.
func RolePlayer(id string) string { return "player:" + id }

// Role is the role an actor acts as ("" for the system).
func (a Actor) Role() string {
	switch a.Kind {
	case ActorPlayer:
		return RolePlayer(a.ID)
	case ActorJudge:
		return RoleJudge
	}
	return ""
}

// ActorOf is the actor of a role, or false for a string that names none.
func ActorOf(role string) (Actor, bool) {
	if role == RoleJudge {
		return Actor{Kind: ActorJudge, ID: RoleJudge}, true
	}
	if len(role) > 7 && role[:7] == "player:" {
		return Actor{Kind: ActorPlayer, ID: role[7:]}, true
	}
	return Actor{}, false
}

// Payload is implemented by every event payload. EventType and
// SchemaVersion are constants of the payload type.
type Payload interface {
	EventType() Type
	SchemaVersion() uint16
}

// ValidMatchID reports whether id may name a match: 1 to 64 ASCII letters,
// digits, '-' or '_'. A match id becomes a NATS subject token and a bbolt
// bucket name, so every layer holds it to this one rule.
func ValidMatchID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
