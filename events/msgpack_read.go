package events

import (
	"encoding/binary"
	"errors"
	"math"
)

// reader is the small msgpack reader under the generated payload
// decoders (*_gen.go): it reads from a byte slice, allocates
// nothing but the values it returns, and reads map keys without copying
// them. Folding a match is mostly decoding its payloads, and the
// reflective decoder spends more on finding fields than on reading them.
//
// It reads what the codec writes (canonical.go, codec.go) and every other
// encoding msgpack allows for the same Go values, exactly as the reflective
// decoder reads them (payloads_decode_test.go compares the two on random
// bytes): nil for zero values, any integer width, float32 or an integer
// for a float. Anything rarer — a string sent as bin, an ext type, a
// struct encoded as an array, a field given twice, a key it does not
// know — is errFallback, and DecodePayload hands the bytes to the
// reflective decoder instead. Bytes that end before the value does are
// errTruncated: malformed whichever decoder reads them (and a length the
// bytes cannot hold is refused before anything is allocated for it).
type reader struct {
	b   []byte
	err error
}

var (
	errFallback  = errors.New("not in the hand-decoded subset")
	errTruncated = errors.New("unexpected end of payload")
)

// msgpack codes (msgpack spec).
const (
	mpNil     = 0xc0
	mpFalse   = 0xc2
	mpTrue    = 0xc3
	mpBin8    = 0xc4
	mpBin16   = 0xc5
	mpBin32   = 0xc6
	mpFloat   = 0xca
	mpDouble  = 0xcb
	mpUint8   = 0xcc
	mpUint16  = 0xcd
	mpUint32  = 0xce
	mpUint64  = 0xcf
	mpInt8    = 0xd0
	mpInt16   = 0xd1
	mpInt32   = 0xd2
	mpInt64   = 0xd3
	mpStr8    = 0xd9
	mpStr16   = 0xda
	mpStr32   = 0xdb
	mpArray16 = 0xdc
	mpArray32 = 0xdd
	mpMap16   = 0xde
	mpMap32   = 0xdf
)

// fail records the first error and stops reading.
func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

// next returns the next n bytes.
func (r *reader) next(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.fail(errTruncated)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) code() byte {
	if len(r.b) == 0 {
		r.fail(errTruncated)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// length reads a length of size bytes (1, 2 or 4), big-endian.
func (r *reader) length(size int) int {
	b := r.next(size)
	switch {
	case b == nil:
		return 0
	case size == 1:
		return int(b[0])
	case size == 2:
		return int(binary.BigEndian.Uint16(b))
	}
	return int(binary.BigEndian.Uint32(b))
}

// count checks that n items of at least min bytes each can follow.
func (r *reader) count(n, min int) int {
	if n > len(r.b)/min {
		r.fail(errTruncated)
		return 0
	}
	return n
}

// mapLen reads a map header: the number of pairs, -1 for nil.
func (r *reader) mapLen() int {
	switch c := r.code(); {
	case r.err != nil:
		return 0
	case c == mpNil:
		return -1
	case c >= 0x80 && c <= 0x8f:
		return r.count(int(c&0x0f), 2)
	case c == mpMap16:
		return r.count(r.length(2), 2)
	case c == mpMap32:
		return r.count(r.length(4), 2)
	}
	r.fail(errFallback)
	return 0
}

// arrayLen reads an array header: the number of items, -1 for nil.
func (r *reader) arrayLen() int {
	switch c := r.code(); {
	case r.err != nil:
		return 0
	case c == mpNil:
		return -1
	case c >= 0x90 && c <= 0x9f:
		return r.count(int(c&0x0f), 1)
	case c == mpArray16:
		return r.count(r.length(2), 1)
	case c == mpArray32:
		return r.count(r.length(4), 1)
	}
	r.fail(errFallback)
	return 0
}

// strBytes reads a string without copying it (nil reads as empty).
func (r *reader) strBytes() []byte {
	switch c := r.code(); {
	case r.err != nil:
		return nil
	case c == mpNil:
		return nil
	case c >= 0xa0 && c <= 0xbf:
		return r.next(int(c & 0x1f))
	case c == mpStr8:
		return r.next(r.length(1))
	case c == mpStr16:
		return r.next(r.length(2))
	case c == mpStr32:
		return r.next(r.length(4))
	}
	r.fail(errFallback)
	return nil
}

// str reads a string; short ones are interned (envelope_read.go): the
// same roller, purpose and source come back in every roll.
func (r *reader) str() string { return intern(r.strBytes()) }

// int reads any msgpack integer (nil is 0) as the reflective decoder
// does: a uint64 past MaxInt64 wraps.
func (r *reader) int() int64 {
	c := r.code()
	switch {
	case r.err != nil:
		return 0
	case c == mpNil:
		return 0
	case c <= 0x7f || c >= 0xe0:
		return int64(int8(c))
	}
	b := r.fixed(c)
	if b == nil {
		return 0
	}
	switch c {
	case mpUint8:
		return int64(b[0])
	case mpInt8:
		return int64(int8(b[0]))
	case mpUint16:
		return int64(binary.BigEndian.Uint16(b))
	case mpInt16:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case mpUint32:
		return int64(binary.BigEndian.Uint32(b))
	case mpInt32:
		return int64(int32(binary.BigEndian.Uint32(b)))
	}
	return int64(binary.BigEndian.Uint64(b)) // mpUint64, mpInt64
}

// fixed reads the body of an integer of code c; another code falls back.
func (r *reader) fixed(c byte) []byte {
	switch c {
	case mpUint8, mpInt8:
		return r.next(1)
	case mpUint16, mpInt16:
		return r.next(2)
	case mpUint32, mpInt32:
		return r.next(4)
	case mpUint64, mpInt64:
		return r.next(8)
	}
	r.fail(errFallback)
	return nil
}

// uint reads any msgpack integer as a uint64 (a negative one wraps).
func (r *reader) uint() uint64 { return uint64(r.int()) }

// float reads a float64, float32 or integer (nil is 0).
func (r *reader) float() float64 {
	if len(r.b) > 0 {
		switch r.b[0] {
		case mpDouble:
			r.b = r.b[1:]
			if b := r.next(8); b != nil {
				return math.Float64frombits(binary.BigEndian.Uint64(b))
			}
			return 0
		case mpFloat:
			r.b = r.b[1:]
			if b := r.next(4); b != nil {
				return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
			}
			return 0
		}
	}
	return float64(r.int())
}

// bool reads true, false or nil (false).
func (r *reader) bool() bool {
	switch c := r.code(); {
	case r.err != nil:
		return false
	case c == mpTrue:
		return true
	case c == mpFalse || c == mpNil:
		return false
	}
	r.fail(errFallback)
	return false
}

// strings reads a []string: nil stays nil, an empty array is an empty
// slice.
func (r *reader) strings() []string {
	n := r.arrayLen()
	if n < 0 || r.err != nil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// ints reads a []int like strings.
func (r *reader) ints() []int {
	n := r.arrayLen()
	if n < 0 || r.err != nil {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = int(r.int())
	}
	return out
}

// stringMap reads a map[string]string: nil stays nil, an empty map is an
// empty map, a key given twice keeps its last value.
func (r *reader) stringMap() map[string]string {
	n := r.mapLen()
	if n < 0 || r.err != nil {
		return nil
	}
	out := make(map[string]string, n)
	for range n {
		k := r.str()
		out[k] = r.str()
	}
	return out
}

// once notes that field f of a struct was read, and falls back if it was
// read before (a key given twice).
func (r *reader) once(seen *uint64, f uint) bool {
	if *seen&(1<<f) != 0 {
		r.fail(errFallback)
		return false
	}
	*seen |= 1 << f
	return true
}

// nilNext reads a nil if one comes next.
func (r *reader) nilNext() bool {
	if len(r.b) > 0 && r.b[0] == mpNil {
		r.b = r.b[1:]
		return true
	}
	return false
}

// list reads an array of structs, each with its hand-written decoder: nil
// stays nil, an empty array is an empty slice.
func list[T any, P interface {
	*T
	fastDecoder
}](r *reader) []T {
	n := r.arrayLen()
	if n < 0 || r.err != nil {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		P(&out[i]).decodeMsgpack(r)
	}
	return out
}

// points reads a [][2]float64 whose points are arrays of two numbers
// (any other length falls back).
func (r *reader) points() [][2]float64 {
	n := r.arrayLen()
	if n < 0 || r.err != nil {
		return nil
	}
	out := make([][2]float64, n)
	for i := range out {
		if r.arrayLen() != 2 {
			r.fail(errFallback)
			return nil
		}
		out[i][0], out[i][1] = r.float(), r.float()
	}
	return out
}

// maxDepth bounds how deep values nest in a payload: ours nest a few
// levels; a deeper one is an attack on the decoder's stack.
const maxDepth = 32

// checkShape walks the msgpack value b starts with, without decoding it,
// and fails if a length runs past the end of the bytes or values nest
// deeper than maxDepth. The reflective decoder
// allocates what a length says before reading it, and recurses as deep as
// the values go: DecodePayload runs this first, so damaged or hostile
// bytes cost their own size, never gigabytes or a stack overflow. It is
// the canonical check's walk (strict.go), not strict.
func checkShape(b []byte) error {
	r := reader{b: b}
	r.walk(0, maxDepth, false)
	if r.err == errTruncated {
		return r.err
	}
	return nil // other codes are the decoder's to refuse
}
