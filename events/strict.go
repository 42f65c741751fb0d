package events

import (
	"encoding/binary"
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
// it: otherwise one event could be written, and hashed, two ways.
func CheckCanonical(b []byte) error {
	n, err := canonicalValue(b, 0, 0)
	if err != nil {
		return fmt.Errorf("%w: not canonical msgpack: %v", ErrMalformed, err)
	}
	if n != len(b) {
		return fmt.Errorf("%w: not canonical msgpack: %d bytes after the value", ErrMalformed, len(b)-n)
	}
	return nil
}

// maxNesting bounds how deep a value may nest: no record comes near it,
// and a hostile one cannot exhaust the stack.
const maxNesting = 100

// canonicalValue checks the value at b[pos:] and returns where it ends.
func canonicalValue(b []byte, pos, depth int) (int, error) {
	if depth > maxNesting {
		return 0, fmt.Errorf("nested more than %d deep", maxNesting)
	}
	if pos >= len(b) {
		return 0, errTruncated
	}
	t := b[pos]
	pos++
	switch {
	case t <= 0x7f || t >= 0xe0: // positive and negative fixint
		return pos, nil
	case t <= 0x8f:
		return canonicalMap(b, pos, int(t&0x0f), depth)
	case t <= 0x9f:
		return canonicalArray(b, pos, int(t&0x0f), depth)
	case t <= 0xbf:
		return canonicalString(b, pos, int(t&0x1f))
	}
	switch t {
	case 0xc0, 0xc2, 0xc3: // nil, false, true
		return pos, nil
	case 0xcb: // float 64
		return skip(b, pos, 8)
	case 0xcc, 0xcd, 0xce, 0xcf: // uint 8/16/32/64: only for what fixint cannot hold
		size := 1 << (t - 0xcc)
		v, p, err := readUint(b, pos, size)
		if err != nil {
			return 0, err
		}
		if min := [...]uint64{0x80, 1 << 8, 1 << 16, 1 << 32}[t-0xcc]; v < min {
			return 0, fmt.Errorf("integer %d in a longer form than needed (0x%02x)", v, t)
		}
		return p, nil
	case 0xd0, 0xd1, 0xd2, 0xd3: // int 8/16/32/64: negative, only for what negative fixint cannot hold
		size := 1 << (t - 0xd0)
		u, p, err := readUint(b, pos, size)
		if err != nil {
			return 0, err
		}
		shift := 64 - 8*size
		v := int64(u<<shift) >> shift // sign-extended
		if max := [...]int64{-33, math.MinInt8 - 1, math.MinInt16 - 1, math.MinInt32 - 1}[t-0xd0]; v > max {
			return 0, fmt.Errorf("integer %d in a longer form than needed (0x%02x)", v, t)
		}
		return p, nil
	}
	if f, ok := lengthForms[t]; ok {
		n, p, err := readUint(b, pos, f.size)
		if err != nil {
			return 0, err
		}
		if n < f.min {
			return 0, fmt.Errorf("length %d in a longer form than needed (0x%02x)", n, t)
		}
		if n > uint64(len(b)) {
			return 0, errTruncated
		}
		switch f.kind {
		case 'b':
			return skip(b, p, int(n))
		case 's':
			return canonicalString(b, p, int(n))
		case 'a':
			return canonicalArray(b, p, int(n), depth)
		default:
			return canonicalMap(b, p, int(n), depth)
		}
	}
	return 0, fmt.Errorf("type byte 0x%02x is not used by matchrec", t)
}

// lengthForms are the forms with a length: what they hold (bin, str,
// array, map), the size of the length, and the smallest length the form
// may carry (a shorter one has a shorter form).
var lengthForms = map[byte]struct {
	kind byte
	size int
	min  uint64
}{
	0xc4: {'b', 1, 0}, 0xc5: {'b', 2, 1 << 8}, 0xc6: {'b', 4, 1 << 16},
	0xd9: {'s', 1, 32}, 0xda: {'s', 2, 1 << 8}, 0xdb: {'s', 4, 1 << 16},
	0xdc: {'a', 2, 16}, 0xdd: {'a', 4, 1 << 16},
	0xde: {'m', 2, 16}, 0xdf: {'m', 4, 1 << 16},
}

func readUint(b []byte, pos, size int) (uint64, int, error) {
	if pos+size > len(b) {
		return 0, 0, errTruncated
	}
	var buf [8]byte
	copy(buf[8-size:], b[pos:pos+size])
	return binary.BigEndian.Uint64(buf[:]), pos + size, nil
}

func skip(b []byte, pos, n int) (int, error) {
	if pos+n > len(b) {
		return 0, errTruncated
	}
	return pos + n, nil
}

func canonicalString(b []byte, pos, n int) (int, error) {
	end, err := skip(b, pos, n)
	if err != nil {
		return 0, err
	}
	if !utf8.Valid(b[pos:end]) {
		return 0, errors.New("a string is not UTF-8")
	}
	return end, nil
}

func canonicalArray(b []byte, pos, n, depth int) (int, error) {
	var err error
	for i := 0; i < n; i++ {
		if pos, err = canonicalValue(b, pos, depth+1); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

func canonicalMap(b []byte, pos, n, depth int) (int, error) {
	seen := make(map[string]bool, n)
	for i := 0; i < n; i++ {
		start := pos
		end, err := canonicalValue(b, pos, depth+1)
		if err != nil {
			return 0, err
		}
		key, ok := stringAt(b[start:end])
		if !ok || seen[key] {
			return 0, errors.New("a map key is not a string, or appears twice")
		}
		seen[key] = true
		if pos, err = canonicalValue(b, end, depth+1); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

// stringAt returns the string a canonical value's bytes hold, if it is one.
func stringAt(v []byte) (string, bool) {
	switch t := v[0]; {
	case t >= 0xa0 && t <= 0xbf:
		return string(v[1:]), true
	case t == 0xd9:
		return string(v[2:]), true
	case t == 0xda:
		return string(v[3:]), true
	case t == 0xdb:
		return string(v[5:]), true
	}
	return "", false
}
