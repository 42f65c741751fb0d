package events

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// CheckCanonical reports whether b is exactly one msgpack value in the
// canonical form of docs/events.md ("Encoding"): every integer, string,
// byte string, array and map in the shortest form that holds it,
// non-negative integers unsigned and negative ones signed, floats as
// float 64, map keys strings and none twice, strings UTF-8, and nothing
// after the value. Byte strings are opaque here: a payload, statement or
// command inside one is checked on its own. The order of map keys is not
// checked (a payload's follows its type's table, which a verifier need not
// know).
//
// The codec writes only this form, and a verifier holds every record to
// it: otherwise one event could be written, and hashed, two ways. It
// walks b with the reader the decoders use (msgpack_read.go, walk), so
// there is one reading of the format.
func CheckCanonical(b []byte) error {
	r := reader{b: b}
	r.walk(0, maxNesting, true)
	switch {
	case r.err != nil:
		return fmt.Errorf("%w: not canonical msgpack: %v", ErrMalformed, r.err)
	case len(r.b) > 0:
		return fmt.Errorf("%w: not canonical msgpack: %d bytes after the value", ErrMalformed, len(r.b))
	}
	return nil
}

// maxNesting bounds how deep a canonical value may nest: no record comes
// near it, and a hostile one cannot exhaust the stack.
const maxNesting = 100

// Errors of the canonical check.
var (
	errNotUTF8  = errors.New("a string is not UTF-8")
	errMapKey   = errors.New("a map key is not a string, or appears twice")
	errFloat32  = errors.New("type byte 0xca is not used by matchrec")
	errTooDeep  = errors.New("nested too deep")
	errUnusedTy = errors.New("a type byte matchrec does not use (never used, or ext)")
)

// walk reads past one value of any type, nested at most maxDepth deep.
// strict holds it to the canonical form (CheckCanonical); otherwise it
// only checks that every length fits in the bytes (checkShape), and
// leaves the types to the decoder.
func (r *reader) walk(depth, maxDepth int, strict bool) {
	if depth > maxDepth {
		if strict {
			r.fail(errTooDeep)
		} else {
			r.fail(errTruncated)
		}
		return
	}
	c := r.code()
	items, isMap := 0, false
	switch {
	case r.err != nil:
		return
	case c <= 0x7f || c >= 0xe0 || c == mpNil || c == mpFalse || c == mpTrue:
		return
	case c <= 0x8f:
		items, isMap = r.count(int(c&0x0f), 2), true
	case c <= 0x9f:
		items = r.count(int(c&0x0f), 1)
	case c <= 0xbf:
		r.text(int(c&0x1f), strict)
	case c == mpUint8 || c == mpUint16 || c == mpUint32 || c == mpUint64:
		b := r.next(1 << (c - mpUint8))
		if strict && b != nil {
			if v := beUint(b); v < [...]uint64{0x80, 1 << 8, 1 << 16, 1 << 32}[c-mpUint8] {
				r.fail(fmt.Errorf("integer %d in a longer form than needed (0x%02x)", v, c))
			}
		}
	case c == mpInt8 || c == mpInt16 || c == mpInt32 || c == mpInt64:
		size := 1 << (c - mpInt8)
		b := r.next(size)
		if strict && b != nil {
			shift := 64 - 8*size
			v := int64(beUint(b)<<shift) >> shift // sign-extended
			if v > [...]int64{-33, math.MinInt8 - 1, math.MinInt16 - 1, math.MinInt32 - 1}[c-mpInt8] {
				r.fail(fmt.Errorf("integer %d in a longer form than needed (0x%02x)", v, c))
			}
		}
	case c == mpDouble:
		r.next(8)
	case c == mpFloat:
		if strict {
			r.fail(errFloat32)
			return
		}
		r.next(4)
	case c == mpBin8 || c == mpBin16 || c == mpBin32:
		r.next(r.sized(c-mpBin8, [...]int{0, 1 << 8, 1 << 16}, strict))
	case c == mpStr8 || c == mpStr16 || c == mpStr32:
		r.text(r.sized(c-mpStr8, [...]int{32, 1 << 8, 1 << 16}, strict), strict)
	case c == mpArray16 || c == mpArray32:
		items = r.count(r.sized(c-mpArray16+1, [...]int{0, 16, 1 << 16}, strict), 1)
	case c == mpMap16 || c == mpMap32:
		items, isMap = r.count(r.sized(c-mpMap16+1, [...]int{0, 16, 1 << 16}, strict), 2), true
	case strict: // ext types, 0xc1
		r.fail(errUnusedTy)
	case c == 0xc7 || c == 0xc8 || c == 0xc9: // ext 8, 16, 32: length, type, data
		r.next(1 + r.length(1<<(c-0xc7)))
	case c >= 0xd4 && c <= 0xd8: // fixext 1..16: type, data
		r.next(1 + 1<<(c-0xd4))
	default: // 0xc1, never used
		r.fail(errFallback)
	}
	if !isMap {
		for ; items > 0 && r.err == nil; items-- {
			r.walk(depth+1, maxDepth, strict)
		}
		return
	}
	var seen map[string]bool
	if strict {
		seen = make(map[string]bool, items)
	}
	for ; items > 0 && r.err == nil; items-- {
		if strict {
			k, ok := r.keyStr()
			if !ok || seen[k] {
				r.fail(errMapKey)
				return
			}
			seen[k] = true
		} else {
			r.walk(depth+1, maxDepth, strict)
		}
		r.walk(depth+1, maxDepth, strict)
	}
}

// sized reads the length of a form whose lengths are 1, 2 or 4 bytes
// (size index i: 0, 1, 2); strict refuses a length a shorter form holds
// (below min[i]).
func (r *reader) sized(i byte, min [3]int, strict bool) int {
	n := r.length(1 << i)
	if strict && r.err == nil && n < min[i] {
		r.fail(fmt.Errorf("length %d in a longer form than needed", n))
	}
	return n
}

// text reads past a string of n bytes; strict checks it is UTF-8.
func (r *reader) text(n int, strict bool) {
	if b := r.next(n); strict && r.err == nil && !utf8.Valid(b) {
		r.fail(errNotUTF8)
	}
}

// keyStr reads a canonical map key: a string in its shortest form.
func (r *reader) keyStr() (string, bool) {
	if len(r.b) == 0 {
		r.fail(errTruncated)
		return "", false
	}
	c := r.b[0]
	if !(c >= 0xa0 && c <= 0xbf || c == mpStr8 || c == mpStr16 || c == mpStr32) {
		r.walk(0, 0, true) // the key's own error, if it has one
		return "", false
	}
	start := r.b
	r.walk(0, 0, true)
	if r.err != nil {
		return "", false
	}
	v := start[:len(start)-len(r.b)]
	switch {
	case c <= 0xbf:
		return string(v[1:]), true
	case c == mpStr8:
		return string(v[2:]), true
	case c == mpStr16:
		return string(v[3:]), true
	}
	return string(v[5:]), true
}

// beUint reads 1, 2, 4 or 8 bytes big-endian.
func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}
