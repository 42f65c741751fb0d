package api

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"

	"github.com/matchrec/matchrec/events"
)

// jsonReader reads the request bodies of the hot verbs (declare, roll,
// state, status, events) without reflection: encoding/json finds every
// field by reflection, and decoding requests was a tenth of a command's
// CPU. It reads JSON as the stock nats CLI and scripts send it — an
// object, keys exactly as the fields' names, strings without escapes,
// numbers in their plain forms — and gives up (ok false) on anything
// else, or anything wrong: Bind then decodes the body with encoding/json,
// whose answer, value or error, is the reference. So the two never
// disagree: an unknown field, a bad type or trailing data is still
// bad_request, with encoding/json's message.
type jsonReader struct {
	b   []byte
	bad bool // gave up: not in the subset read here
}

func (r *jsonReader) fail() { r.bad, r.b = true, nil }

func (r *jsonReader) space() {
	for len(r.b) > 0 && (r.b[0] == ' ' || r.b[0] == '\t' || r.b[0] == '\n' || r.b[0] == '\r') {
		r.b = r.b[1:]
	}
}

// peek returns the next byte after white space (0 at the end).
func (r *jsonReader) peek() byte {
	r.space()
	if len(r.b) == 0 {
		return 0
	}
	return r.b[0]
}

func (r *jsonReader) expect(c byte) {
	if r.peek() != c {
		r.fail()
		return
	}
	r.b = r.b[1:]
}

// object reads an object, calling field with each key (its bytes, valid
// until the next read); field reads the value and returns false for a key
// it does not know. A key given twice gives up (encoding/json keeps the
// last, or merges).
func (r *jsonReader) object(field func(key []byte) bool) {
	r.expect('{')
	if r.peek() == '}' {
		r.b = r.b[1:]
		return
	}
	var buf [16][]byte // on the stack for the objects of requests
	seen := buf[:0]
	for !r.bad {
		k := r.rawString()
		for _, s := range seen {
			if string(s) == string(k) {
				r.fail()
				return
			}
		}
		seen = append(seen, k)
		r.expect(':')
		if r.bad || r.peek() == 'n' || !field(k) { // null: encoding/json's own rules
			r.fail()
			return
		}
		switch r.peek() {
		case ',':
			r.b = r.b[1:]
		case '}':
			r.b = r.b[1:]
			return
		default:
			r.fail()
		}
	}
}

// rawString reads a string without escapes, as its bytes.
func (r *jsonReader) rawString() []byte {
	r.expect('"')
	for i := 0; i < len(r.b); i++ {
		switch c := r.b[i]; {
		case c == '"':
			s := r.b[:i]
			r.b = r.b[i+1:]
			return s
		case c == '\\' || c < 0x20:
			r.fail() // escapes, and control characters (invalid)
			return nil
		case c >= utf8.RuneSelf:
			rn, n := utf8.DecodeRune(r.b[i:])
			if rn == utf8.RuneError && n <= 1 {
				r.fail() // encoding/json replaces bad UTF-8
				return nil
			}
			i += n - 1
		}
	}
	r.fail()
	return nil
}

func (r *jsonReader) str() string { return string(r.rawString()) }

// id reads a string that requests repeat (a match id, a token, a command
// type, a unit or model id): interned, so it is not allocated per request.
func (r *jsonReader) id() string { return events.Intern(r.rawString()) }

// number reads a number literal of JSON's grammar.
func (r *jsonReader) number() []byte {
	r.space()
	b, i := r.b, 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		r.fail()
		return nil
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			r.fail()
			return nil
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			r.fail()
			return nil
		}
	}
	r.b = b[i:]
	return b[:i]
}

func (r *jsonReader) int() int {
	n, err := strconv.ParseInt(string(r.number()), 10, 0) // a fraction or exponent fails here, as in encoding/json
	if err != nil {
		r.fail()
	}
	return int(n)
}

func (r *jsonReader) uint() uint64 {
	n, err := strconv.ParseUint(string(r.number()), 10, 64)
	if err != nil {
		r.fail()
	}
	return n
}

func (r *jsonReader) float() float64 {
	f, err := strconv.ParseFloat(string(r.number()), 64)
	if err != nil {
		r.fail()
	}
	return f
}

func (r *jsonReader) bool() bool {
	r.space()
	switch {
	case len(r.b) >= 4 && string(r.b[:4]) == "true":
		r.b = r.b[4:]
		return true
	case len(r.b) >= 5 && string(r.b[:5]) == "false":
		r.b = r.b[5:]
		return false
	}
	r.fail()
	return false
}

// array reads an array, calling item for each element.
func (r *jsonReader) array(item func()) {
	r.expect('[')
	if r.peek() == ']' {
		r.b = r.b[1:]
		return
	}
	for !r.bad {
		if r.peek() == 'n' {
			r.fail()
			return
		}
		item()
		switch r.peek() {
		case ',':
			r.b = r.b[1:]
		case ']':
			r.b = r.b[1:]
			return
		default:
			r.fail()
		}
	}
}

func (r *jsonReader) strings() []string {
	out := []string{}
	r.array(func() { out = append(out, r.str()) })
	return out
}

func (r *jsonReader) ints() []int {
	out := []int{}
	r.array(func() { out = append(out, r.int()) })
	return out
}

func (r *jsonReader) stringMap() map[string]string {
	out := map[string]string{}
	r.object(func(k []byte) bool { out[string(k)] = r.str(); return true })
	return out
}

func (r *jsonReader) floatMap() map[string]float64 {
	out := map[string]float64{}
	r.object(func(k []byte) bool { out[string(k)] = r.float(); return true })
	return out
}

// bytes reads a []byte as encoding/json writes it: standard base64.
func (r *jsonReader) bytes() []byte {
	s := r.rawString()
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, s)
	if err != nil {
		r.fail()
		return nil
	}
	return out[:n]
}

// done reports whether the body was read whole: one value, nothing after.
func (r *jsonReader) done() bool {
	r.space()
	return !r.bad && len(r.b) == 0
}
