package api

import (
	"bytes"
	"sync"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/matchrec/matchrec/projector"
)

// Go clients may send a request body in msgpack instead of JSON, on the
// same subjects (natsbus says which in a header, and replies in kind): a
// body that starts with a msgpack map header — which no JSON text does —
// is a msgpack request, decoded with the same field names (the json tags)
// and as strictly: an unknown field, a bad type or trailing bytes are
// bad_request.

// IsMsgpack reports whether body is a msgpack request: it starts with a
// map header (fixmap, map 16, map 32).
func IsMsgpack(body []byte) bool {
	return len(body) > 0 && (body[0]&0xf0 == 0x80 || body[0] == 0xde || body[0] == 0xdf)
}

var mpDecoders = sync.Pool{New: func() any {
	d := &mpDecoder{rd: bytes.NewReader(nil)}
	d.dec = msgpack.NewDecoder(d.rd)
	d.dec.SetCustomStructTag("json")
	d.dec.DisallowUnknownFields(true)
	return d
}}

type mpDecoder struct {
	rd  *bytes.Reader
	dec *msgpack.Decoder
}

func bindMsgpack(body []byte, v any) (err error) {
	d := mpDecoders.Get().(*mpDecoder)
	defer mpDecoders.Put(d)
	defer func() {
		if p := recover(); p != nil {
			err = Errorf(projector.CodeBadRequest, "request body: malformed msgpack")
		}
	}()
	d.rd.Reset(body)
	d.dec.ResetReader(d.rd)
	if err := d.dec.Decode(v); err != nil {
		return Errorf(projector.CodeBadRequest, "request body: %v", err)
	}
	if d.rd.Len() > 0 {
		return Errorf(projector.CodeBadRequest, "request body: trailing data after the msgpack value")
	}
	return nil
}
