package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/matchrec/matchrec/events"
)

// NonceSize is the size of a statement's nonce.
const NonceSize = 16

// MaxStatement bounds a statement's size, so a request cannot make the
// recorder hold or hash an unbounded one.
const MaxStatement = 64 << 10

// Statement is what a participant says with one command: this command, in
// this match, as this role, having seen this head. The head binds the
// command to everything recorded before it (the hash chain), so a
// statement cannot be replayed later as a new command, and a rewrite of
// any earlier event contradicts every later statement. Its canonical bytes
// (Marshal) are what the participant signs and what the record keeps:
//
//	msgpack array [match, head_seq, head_hash (bin 32), nonce (bin 16), role, command (bin)]
//
// Command is the canonical msgpack of the command (projector.Command),
// kept as bytes: the signature covers exactly those bytes.
type Statement struct {
	Match    string
	HeadSeq  uint64
	HeadHash events.Hash
	Nonce    [NonceSize]byte
	Role     string
	Command  []byte
}

const statementFields = 6

// NewNonce returns a random nonce.
func NewNonce() [NonceSize]byte {
	var n [NonceSize]byte
	if _, err := rand.Read(n[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // no entropy: nothing sensible to do
	}
	return n
}

// Marshal returns the statement's canonical bytes.
func (s *Statement) Marshal() []byte {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	// Writes to a bytes.Buffer cannot fail.
	_ = enc.EncodeArrayLen(statementFields)
	_ = enc.EncodeString(s.Match)
	_ = enc.EncodeUint(s.HeadSeq)
	_ = enc.EncodeBytes(s.HeadHash[:])
	_ = enc.EncodeBytes(s.Nonce[:])
	_ = enc.EncodeString(s.Role)
	_ = enc.EncodeBytes(s.Command)
	return buf.Bytes()
}

// ParseStatement decodes a statement and checks that b is its canonical
// encoding, so one statement has exactly one byte form (and one hash). It
// never panics on bad input.
func ParseStatement(b []byte) (s Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = Statement{}, fmt.Errorf("%w: statement: %v", ErrMalformed, r)
		}
	}()
	if len(b) > MaxStatement {
		return Statement{}, fmt.Errorf("%w: statement of %d bytes (at most %d)", ErrMalformed, len(b), MaxStatement)
	}
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	d.rd.Reset(b)
	d.dec.ResetReader(d.rd)
	dec := d.dec
	fail := func(what string, err error) (Statement, error) {
		return Statement{}, fmt.Errorf("%w: statement %s: %v", ErrMalformed, what, err)
	}
	if n, err := dec.DecodeArrayLen(); err != nil || n != statementFields {
		return fail("shape", fmt.Errorf("want an array of %d, got %d (%v)", statementFields, n, err))
	}
	if s.Match, err = dec.DecodeString(); err != nil {
		return fail("match", err)
	}
	if s.HeadSeq, err = dec.DecodeUint64(); err != nil {
		return fail("head_seq", err)
	}
	h, err := dec.DecodeBytes()
	if err != nil || len(h) != len(s.HeadHash) {
		return fail("head_hash", fmt.Errorf("want %d bytes, got %d (%v)", len(s.HeadHash), len(h), err))
	}
	copy(s.HeadHash[:], h)
	n, err := dec.DecodeBytes()
	if err != nil || len(n) != NonceSize {
		return fail("nonce", fmt.Errorf("want %d bytes, got %d (%v)", NonceSize, len(n), err))
	}
	copy(s.Nonce[:], n)
	if s.Role, err = dec.DecodeString(); err != nil {
		return fail("role", err)
	}
	if s.Command, err = dec.DecodeBytes(); err != nil {
		return fail("command", err)
	}
	if !bytes.Equal(s.Marshal(), b) {
		return fail("encoding", fmt.Errorf("not the canonical encoding (trailing or non-minimal bytes)"))
	}
	return s, nil
}

// decoder is a pooled msgpack decoder: an audit parses one statement per
// command, and a fresh decoder costs more than the parsing.
type decoder struct {
	rd  *bytes.Reader
	dec *msgpack.Decoder
}

var decoders = sync.Pool{New: func() any {
	d := &decoder{rd: bytes.NewReader(nil)}
	d.dec = msgpack.NewDecoder(d.rd)
	return d
}}

// Key is the statement's idempotency key: the role and the nonce. One
// role never uses a nonce twice in a match; the recorder answers a second
// request with the same key from its request index.
func (s *Statement) Key() []byte {
	k := make([]byte, 0, len(s.Role)+1+NonceSize)
	k = append(k, s.Role...)
	k = append(k, 0)
	return append(k, s.Nonce[:]...)
}

// Sum is the SHA-256 of a statement's bytes: two requests with the same
// key are the same request exactly when their sums are equal.
func Sum(statement []byte) [32]byte { return sha256.Sum256(statement) }
