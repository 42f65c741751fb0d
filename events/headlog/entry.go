// Package headlog is the transparency log of heads (docs/transparency.md):
// one Merkle tree, in the design of Certificate Transparency and Go's
// checksum database, whose leaves are the heads a recorder acknowledged,
// every match's in one tree. This package is its pure part — the entry
// format, the signed checkpoints (C2SP signed-note and tlog-checkpoint, by
// golang.org/x/mod/sumdb/note and filippo.io/torchwood) and the inclusion
// and consistency proofs (golang.org/x/mod/sumdb/tlog) — shared by the
// store that keeps the tree (store/bolt), the recorder that hands out
// proofs as receipts, and every verifier. No Merkle or signature code is
// written here: the hashing is RFC 6962's, as x/mod implements it.
package headlog

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/matchrec/matchrec/events"
)

// Sentinel errors, wrapped with context; test with errors.Is.
var (
	// ErrMalformed: bytes that are no entry, checkpoint or proof of the
	// documented shape.
	ErrMalformed = errors.New("malformed")
	// ErrBadCheckpoint: a checkpoint whose signature does not verify under
	// the recorder key it is checked with (forged, or another recorder's).
	ErrBadCheckpoint = errors.New("checkpoint not signed by the recorder")
	// ErrBadProof: a proof that does not lead to the checkpoint's root.
	ErrBadProof = errors.New("proof does not verify")
	// ErrFork: two checkpoints of one log that no consistency proof joins:
	// the log showed two histories.
	ErrFork = errors.New("the log shows two histories")
)

// EntryVersion is the first element of every entry.
const EntryVersion = 1

// Kinds of entry: where it matters, what the event did to its match.
const (
	KindCreated = "created" // match.created or branch.created
	KindEnded   = "ended"   // match.ended
)

// Entry is one leaf of the log: event Seq of match Match, with hash Hash,
// was acknowledged by the recorder. Signed says whether the match is a
// signed one (its creating event — match.created, or a branch's
// branch.created — carries participants' keys), so a copy of the match
// that says otherwise is a downgrade; Kind marks the events that create
// and end a match; Prev is the index of the match's previous entry (-1:
// this is its first), so the entries of one match form a chain anyone can
// walk back from its newest. Its bytes (Marshal) are the canonical msgpack
// array
//
//	[1, match (str), seq (uint), hash (bin 32), signed (bool), kind (str), prev (int)]
//
// and its leaf hash is RFC 6962's: SHA-256(0x00 || bytes).
type Entry struct {
	Match  string
	Seq    uint64
	Hash   events.Hash
	Signed bool
	Kind   string
	Prev   int64
}

const entryFields = 7

// MaxEntry bounds an entry's size (a match id is at most 64 bytes).
const MaxEntry = 256

// Marshal returns the entry's canonical bytes.
func (e Entry) Marshal() []byte {
	var buf bytes.Buffer
	buf.Grow(64 + len(e.Match))
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	// Writes to a bytes.Buffer cannot fail.
	_ = enc.EncodeArrayLen(entryFields)
	_ = enc.EncodeUint(EntryVersion)
	_ = enc.EncodeString(e.Match)
	_ = enc.EncodeUint(e.Seq)
	_ = enc.EncodeBytes(e.Hash[:])
	_ = enc.EncodeBool(e.Signed)
	_ = enc.EncodeString(e.Kind)
	_ = enc.EncodeInt(e.Prev)
	return buf.Bytes()
}

// ParseEntry decodes an entry and checks that b is its canonical
// encoding, so an entry has one byte form (and one leaf hash). It never
// panics on bad input.
func ParseEntry(b []byte) (e Entry, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = Entry{}, fmt.Errorf("%w: entry: %v", ErrMalformed, r)
		}
	}()
	if len(b) > MaxEntry {
		return Entry{}, fmt.Errorf("%w: entry of %d bytes (at most %d)", ErrMalformed, len(b), MaxEntry)
	}
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	fail := func(what string, err error) (Entry, error) {
		return Entry{}, fmt.Errorf("%w: entry %s: %v", ErrMalformed, what, err)
	}
	if n, err := dec.DecodeArrayLen(); err != nil || n != entryFields {
		return fail("shape", fmt.Errorf("want an array of %d, got %d (%v)", entryFields, n, err))
	}
	if v, err := dec.DecodeUint64(); err != nil || v != EntryVersion {
		return fail("version", fmt.Errorf("want %d, got %d (%v)", EntryVersion, v, err))
	}
	if e.Match, err = dec.DecodeString(); err != nil {
		return fail("match", err)
	}
	if e.Seq, err = dec.DecodeUint64(); err != nil {
		return fail("seq", err)
	}
	h, err := dec.DecodeBytes()
	if err != nil || len(h) != len(e.Hash) {
		return fail("hash", fmt.Errorf("want %d bytes, got %d (%v)", len(e.Hash), len(h), err))
	}
	copy(e.Hash[:], h)
	if e.Signed, err = dec.DecodeBool(); err != nil {
		return fail("signed", err)
	}
	if e.Kind, err = dec.DecodeString(); err != nil {
		return fail("kind", err)
	}
	if e.Prev, err = dec.DecodeInt64(); err != nil || e.Prev < -1 {
		return fail("prev", fmt.Errorf("want an entry index or -1, got %d (%v)", e.Prev, err))
	}
	if !bytes.Equal(e.Marshal(), b) {
		return fail("encoding", errors.New("not the canonical encoding (trailing or non-minimal bytes)"))
	}
	return e, nil
}

// KindOf is the kind of entry an event of type t makes.
func KindOf(t events.Type) string {
	switch t {
	case events.TypeMatchCreated, events.TypeBranchCreated:
		return KindCreated
	case events.TypeMatchEnded:
		return KindEnded
	}
	return ""
}

// EntryOf is the entry of event e of a match that is signed or not, whose
// previous entry is prev (-1: none).
func EntryOf(e *events.Event, signed bool, prev int64) Entry {
	return Entry{Match: e.Match, Seq: e.Seq, Hash: e.Hash, Signed: signed, Kind: KindOf(e.Type), Prev: prev}
}

// Creates reports whether e creates its match — match.created, or the
// branch.created that opens a branch's own events — and if so whether it
// makes a signed match: its payload carries participants' keys. A
// payload that does not decode creates an unsigned match (the audit
// fails it anyway).
func Creates(e *events.Event) (creates, signed bool) {
	switch e.Type {
	case events.TypeMatchCreated:
		var mc events.MatchCreated
		return true, events.DecodeValue(e.Payload, &mc) == nil && len(mc.Keys) > 0
	case events.TypeBranchCreated:
		var bc events.BranchCreated
		return true, events.DecodeValue(e.Payload, &bc) == nil && len(bc.Keys) > 0
	}
	return false, false
}
