package events

import "reflect"

// Generated decoders of the payloads (payloads_decode_gen.go and the other
// *_decode_gen.go, written by
// tools/msgpackgen: `go generate ./events/...` after a payload type or
// field is added). DecodePayload uses them (fastDecoder) and falls back to
// the reflective decoder on errFallback; payloads_decode_test.go checks,
// on every example and on random bytes, that they decode exactly what it
// does, and that the generated file is the generator's output for the
// payloads as they are.

//go:generate go run ../tools/msgpackgen/cmd/msgpackgen

// fastDecoder is a payload with a generated decoder.
type fastDecoder interface {
	decodeMsgpack(r *reader)
}

// decodeFast decodes b into p with its generated decoder; ok is false
// when p has none or the bytes are outside what it reads (errFallback),
// and p is then left zero for the reflective decoder.
func decodeFast(p Payload, b []byte) (ok bool, err error) {
	fd, has := p.(fastDecoder)
	if !has {
		return false, nil
	}
	r := reader{b: b}
	fd.decodeMsgpack(&r)
	if r.err == nil && len(r.b) > 0 {
		// Trailing bytes: the reflective decoder ignores them, so let it.
		r.err = errFallback
	}
	switch r.err {
	case nil:
		return true, nil
	case errFallback:
		// The generated decoder may have filled some fields: rare
		// enough for reflection.
		reflect.ValueOf(p).Elem().SetZero()
		return false, nil
	}
	return false, r.err
}
