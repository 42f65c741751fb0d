package events

import "sync/atomic"

// readRecord reads a stored record (Marshal's [body, hash]) written in the
// codec's own forms, the way Unmarshal's msgpack decoding reads it, with
// one allocation for every byte string it copies (payload, statement,
// signature) and the short strings interned. ok is false for anything
// else — another msgpack form, or a malformed record — which the caller
// hands to the msgpack library, so the two never disagree on a value and
// every error is the library's.
func readRecord(b []byte) (e Event, ok bool) {
	r := reader{b: b}
	if r.arrayLen() != 2 {
		return Event{}, false
	}
	switch r.arrayLen() {
	case envelopeFields:
	case envelopeFieldsV1:
		e.Legacy = true
	default:
		return Event{}, false
	}
	e.Match = r.shortStr()
	e.Seq = r.uint()
	e.Type = Type(r.shortStr())
	e.Version = uint16(r.uint())
	e.Time = r.int()
	if r.arrayLen() != 2 {
		return Event{}, false
	}
	e.Actor.Kind = ActorKind(r.shortStr())
	e.Actor.ID = r.shortStr()
	payload := r.bin()
	if prev := r.bin(); len(prev) == len(e.PrevHash) {
		copy(e.PrevHash[:], prev)
	} else {
		return Event{}, false
	}
	var stmt, sig []byte
	if !e.Legacy {
		switch n := r.arrayLen(); n {
		case -1:
		case 1, 2:
			stmt = r.bin()
			if n == 2 {
				if sig = r.bin(); len(sig) != SignatureSize {
					return Event{}, false
				}
			}
			if len(stmt) == 0 { // a statement is never empty
				return Event{}, false
			}
			e.Auth = &Auth{}
		default:
			return Event{}, false
		}
	}
	if h := r.bin(); len(h) == len(e.Hash) {
		copy(e.Hash[:], h)
	} else {
		return Event{}, false
	}
	if r.err != nil || payload == nil {
		return Event{}, false
	}
	// One block for the copies: b may be reused once Unmarshal returns.
	block := make([]byte, len(payload)+len(stmt)+len(sig))
	n := copy(block, payload)
	e.Payload = block[:n:n]
	if e.Auth != nil {
		m := copy(block[n:], stmt)
		e.Auth.Statement = block[n : n+m : n+m]
		if sig != nil {
			copy(block[n+m:], sig)
			e.Auth.Signature = block[n+m:]
		}
	}
	return e, true
}

// bin reads a byte string (bin 8, 16 or 32) without copying it; nil reads
// as nil, any other form falls back.
func (r *reader) bin() []byte {
	switch c := r.code(); {
	case r.err != nil:
		return nil
	case c == mpNil:
		return nil
	case c == mpBin8:
		return r.next(r.length(1))
	case c == mpBin16:
		return r.next(r.length(2))
	case c == mpBin32:
		return r.next(r.length(4))
	}
	r.fail(errFallback)
	return nil
}

// shortStr is str for the strings every record repeats (match and actor
// ids, event types, purposes): interned, so reading them allocates once
// per process rather than once per event.
func (r *reader) shortStr() string { return intern(r.strBytes()) }

// Intern returns string(b), the same string as the last time those bytes
// were interned when it is still in the cache (a lossy cache of short
// strings): for readers of values every message repeats — match ids,
// roles, command types, unit and model ids — which then allocate once per
// process rather than once per message.
func Intern(b []byte) string { return intern(b) }

// interned is a lossy cache of short strings: a slot holds the last
// string that hashed to it. Slots are atomic pointers, so readers on any
// goroutine share it without a lock; a miss costs what string(b) costs.
var interned [1024]atomic.Pointer[string]

const maxInterned = 32

func intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInterned {
		return string(b)
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &interned[h%uint32(len(interned))]
	if s := slot.Load(); s != nil && *s == string(b) {
		return *s
	}
	s := string(b)
	slot.Store(&s)
	return s
}
