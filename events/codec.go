package events

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// This file is the one codec of matchrec. Everything that turns events into
// bytes or back goes through it, so "canonical" has one meaning:
//
//   - the envelope is a msgpack array, fields in a fixed order:
//     [match, seq, type, version, time, [actor kind, actor id], payload, prev_hash, auth]
//     (envelope v2; v1 records, written before statements existed, have
//     no auth element and are read, hashed and verified as written)
//     followed, in the stored record only, by the event's own hash;
//   - auth is nil for the recorder's own events, [statement] for a token
//     match's participant events, [statement, signature] for a signed
//     match's (docs/events.md);
//   - payloads are msgpack maps of their struct fields in declaration order,
//     named by their json tags, map keys sorted, integers in their smallest
//     form. Payload bytes are kept as written and hashed as written.
//
// Hash = SHA-256(prev_hash || body) where body is the envelope array
// without the trailing hash.

// Body fields of the two envelope versions; the stored record adds the hash.
const (
	envelopeFieldsV1 = 8
	envelopeFields   = 9
)

var encPool = sync.Pool{New: func() any {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetCustomStructTag("json")
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true)
	return &encoder{buf: &buf, enc: enc}
}}

type encoder struct {
	buf *bytes.Buffer
	enc *msgpack.Encoder
}

func getEncoder() *encoder {
	e := encPool.Get().(*encoder)
	e.buf.Reset()
	return e
}

func (e *encoder) bytes() []byte {
	out := make([]byte, e.buf.Len())
	copy(out, e.buf.Bytes())
	encPool.Put(e)
	return out
}

var decPool = sync.Pool{New: func() any {
	d := &decoder{rd: bytes.NewReader(nil)}
	d.dec = msgpack.NewDecoder(d.rd)
	d.dec.SetCustomStructTag("json")
	return d
}}

// decoder is a pooled msgpack decoder on a reusable bytes.Reader: decoding
// is the hot path of every fold, and a fresh decoder per event costs more
// than the decoding itself.
type decoder struct {
	rd  *bytes.Reader
	dec *msgpack.Decoder
}

func getDecoder(b []byte) *decoder {
	d := decPool.Get().(*decoder)
	d.rd.Reset(b)
	d.dec.ResetReader(d.rd)
	return d
}

func putDecoder(d *decoder) {
	d.rd.Reset(nil)
	decPool.Put(d)
}

// EncodePayload returns the canonical msgpack encoding of p: with its
// generated encoder (msgpack_write.go), or msgpack's.
func EncodePayload(p Payload) ([]byte, error) {
	if b, ok := encodeFast(p); ok {
		return b, nil
	}
	e := getEncoder()
	if err := e.enc.Encode(p); err != nil {
		encPool.Put(e)
		return nil, fmt.Errorf("encode %s payload: %w", p.EventType(), err)
	}
	return e.bytes(), nil
}

// EncodeValue returns the canonical msgpack encoding of any value, with the
// same settings as payloads. The projector uses it to hash states.
func EncodeValue(v any) ([]byte, error) {
	e := getEncoder()
	if err := e.enc.Encode(v); err != nil {
		encPool.Put(e)
		return nil, err
	}
	return e.bytes(), nil
}

// decodeInto decodes the payload bytes b of an event of type t into p. It
// never panics on bad input.
func decodeInto(t Type, b []byte, p Payload) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s payload: %v", ErrMalformed, t, r)
		}
	}()
	// The hot payloads have hand-written decoders (payloads_decode.go);
	// bytes outside what they read go to the reflective decoder.
	if ok, err := decodeFast(p, b); err != nil {
		return fmt.Errorf("%w: %s payload: %v", ErrMalformed, t, err)
	} else if ok {
		return nil
	}
	if err := checkShape(b); err != nil {
		return fmt.Errorf("%w: %s payload: %v", ErrMalformed, t, err)
	}
	d := getDecoder(b)
	defer putDecoder(d)
	if err := d.dec.Decode(p); err != nil {
		return fmt.Errorf("%w: %s payload: %v", ErrMalformed, t, err)
	}
	return nil
}

// upcast rewrites a payload of the core families written at an older
// schema version into the current one (Family.Upcast). Every version step
// of every core type lives here.
func upcast(t Type, v uint16, b []byte) ([]byte, error) {
	// All types are at version 1; version 0 never existed.
	return nil, fmt.Errorf("%w: %s has no schema version %d", ErrMalformed, t, v)
}

// New builds the envelope for payload p as event seq of match, chained to
// prev. The caller supplies the time (from its clock) and the actor.
func New(match string, seq uint64, prev Hash, timeNanos int64, actor Actor, p Payload) (Event, error) {
	return NewAuthed(match, seq, prev, timeNanos, actor, p, nil)
}

// NewAuthed is New for an event caused by a participant's command: auth
// is the command's statement (and signature), recorded and hashed with it.
func NewAuthed(match string, seq uint64, prev Hash, timeNanos int64, actor Actor, p Payload, auth *Auth) (Event, error) {
	body, err := EncodePayload(p)
	if err != nil {
		return Event{}, err
	}
	e := Event{
		Match: match, Seq: seq, Type: p.EventType(), Version: p.SchemaVersion(),
		Time: timeNanos, Actor: actor, Payload: body, PrevHash: prev, Auth: auth,
	}
	e.Hash = ComputeHash(e)
	return e, nil
}

// ComputeHash returns SHA-256(prev_hash || body) for e, ignoring e.Hash.
func ComputeHash(e Event) Hash {
	enc := getEncoder()
	writeBody(enc.enc, e)
	h := sha256.New()
	h.Write(e.PrevHash[:])
	h.Write(enc.buf.Bytes())
	encPool.Put(enc)
	var out Hash
	h.Sum(out[:0])
	return out
}

func writeBody(enc *msgpack.Encoder, e Event) {
	// Writes to a bytes.Buffer cannot fail.
	if e.Legacy {
		_ = enc.EncodeArrayLen(envelopeFieldsV1)
	} else {
		_ = enc.EncodeArrayLen(envelopeFields)
	}
	_ = enc.EncodeString(e.Match)
	_ = enc.EncodeUint(e.Seq)
	_ = enc.EncodeString(string(e.Type))
	_ = enc.EncodeUint(uint64(e.Version))
	_ = enc.EncodeInt(e.Time)
	_ = enc.EncodeArrayLen(2)
	_ = enc.EncodeString(string(e.Actor.Kind))
	_ = enc.EncodeString(e.Actor.ID)
	_ = enc.EncodeBytes(e.Payload)
	_ = enc.EncodeBytes(e.PrevHash[:])
	if e.Legacy {
		return
	}
	switch {
	case e.Auth == nil:
		_ = enc.EncodeNil()
	case e.Auth.Signature == nil:
		_ = enc.EncodeArrayLen(1)
		_ = enc.EncodeBytes(e.Auth.Statement)
	default:
		_ = enc.EncodeArrayLen(2)
		_ = enc.EncodeBytes(e.Auth.Statement)
		_ = enc.EncodeBytes(e.Auth.Signature)
	}
}

// Marshal encodes e as a stored record: the body plus its hash.
func Marshal(e Event) []byte {
	enc := getEncoder()
	_ = enc.enc.EncodeArrayLen(2)
	writeBody(enc.enc, e)
	_ = enc.enc.EncodeBytes(e.Hash[:])
	return enc.bytes()
}

// Unmarshal decodes a stored record. The payload bytes are copied, so b may
// be reused (bbolt values, for one, must not escape their transaction). It
// checks shape, not the hash: use Verify for that.
//
// Records as the codec writes them are read by the package's own reader
// (readRecord, envelope_read.go); anything else msgpack allows, and every
// malformed record, by the msgpack library, whose answer (the value, or the
// error naming the bad field) is the reference.
func Unmarshal(b []byte) (Event, error) {
	if e, ok := readRecord(b); ok {
		return e, nil
	}
	return unmarshalSlow(b)
}

func unmarshalSlow(b []byte) (e Event, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrMalformed, r)
		}
	}()
	d := getDecoder(b)
	defer putDecoder(d)
	dec := d.dec
	fail := func(what string, err error) (Event, error) {
		return Event{}, fmt.Errorf("%w: envelope %s: %v", ErrMalformed, what, err)
	}
	if n, err := dec.DecodeArrayLen(); err != nil || n != 2 {
		return fail("record", fmt.Errorf("want [body, hash], got %d items (%v)", n, err))
	}
	fields, err := dec.DecodeArrayLen()
	if err != nil || (fields != envelopeFields && fields != envelopeFieldsV1) {
		return fail("body", fmt.Errorf("want %d fields (or %d in envelope v1), got %d (%v)", envelopeFields, envelopeFieldsV1, fields, err))
	}
	e.Legacy = fields == envelopeFieldsV1
	if e.Match, err = dec.DecodeString(); err != nil {
		return fail("match", err)
	}
	if e.Seq, err = dec.DecodeUint64(); err != nil {
		return fail("seq", err)
	}
	t, err := dec.DecodeString()
	if err != nil {
		return fail("type", err)
	}
	e.Type = Type(t)
	if e.Version, err = dec.DecodeUint16(); err != nil {
		return fail("version", err)
	}
	if e.Time, err = dec.DecodeInt64(); err != nil {
		return fail("time", err)
	}
	if n, err := dec.DecodeArrayLen(); err != nil || n != 2 {
		return fail("actor", fmt.Errorf("want [kind, id] (%v)", err))
	}
	k, err := dec.DecodeString()
	if err != nil {
		return fail("actor kind", err)
	}
	e.Actor.Kind = ActorKind(k)
	if e.Actor.ID, err = dec.DecodeString(); err != nil {
		return fail("actor id", err)
	}
	if e.Payload, err = dec.DecodeBytes(); err != nil {
		return fail("payload", err)
	}
	prev, err := dec.DecodeBytes()
	if err != nil || len(prev) != len(e.PrevHash) {
		return fail("prev_hash", fmt.Errorf("want %d bytes, got %d (%v)", len(e.PrevHash), len(prev), err))
	}
	copy(e.PrevHash[:], prev)
	if !e.Legacy {
		if e.Auth, err = decodeAuth(dec); err != nil {
			return fail("auth", err)
		}
	}
	h, err := dec.DecodeBytes()
	if err != nil || len(h) != len(e.Hash) {
		return fail("hash", fmt.Errorf("want %d bytes, got %d (%v)", len(e.Hash), len(h), err))
	}
	copy(e.Hash[:], h)
	return e, nil
}

// decodeAuth reads the auth element: nil, [statement] or [statement,
// signature], the statement non-empty and the signature 64 bytes.
func decodeAuth(dec *msgpack.Decoder) (*Auth, error) {
	n, err := dec.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if n == -1 {
		return nil, nil
	}
	if n != 1 && n != 2 {
		return nil, fmt.Errorf("want nil, [statement] or [statement, signature], got %d items", n)
	}
	a := &Auth{}
	if a.Statement, err = dec.DecodeBytes(); err != nil || len(a.Statement) == 0 {
		return nil, fmt.Errorf("statement: %d bytes (%v)", len(a.Statement), err)
	}
	if n == 2 {
		if a.Signature, err = dec.DecodeBytes(); err != nil || len(a.Signature) != SignatureSize {
			return nil, fmt.Errorf("signature: want %d bytes, got %d (%v)", SignatureSize, len(a.Signature), err)
		}
	}
	return a, nil
}

// SignatureSize is the size of an Ed25519 signature.
const SignatureSize = 64

// Verify checks that e.Hash is the hash of e chained to prev.
func Verify(e Event, prev Hash) error {
	if e.PrevHash != prev {
		return fmt.Errorf("event %d: prev_hash %s does not match the previous event's hash %s", e.Seq, e.PrevHash, prev)
	}
	if got := ComputeHash(e); got != e.Hash {
		return fmt.Errorf("event %d: hash %s does not match its content (%s)", e.Seq, e.Hash, got)
	}
	return nil
}

// DecodeValue decodes bytes written by EncodeValue into v. It never panics.
func DecodeValue(b []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrMalformed, r)
		}
	}()
	d := getDecoder(b)
	defer putDecoder(d)
	if err := d.dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}
