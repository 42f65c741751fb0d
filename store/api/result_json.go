package api

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/matchrec/matchrec/projector"
)

// AppendJSON appends r as encoding/json marshals it, byte for byte,
// without reflection: a command's reply is encoded on every command, and
// json.Marshal found its fields by reflection each time.
// TestResultJSONIsEncodingJSON holds the two to the same bytes. The
// receipt writes itself (its MarshalJSON).
func (r *Result) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"match":`...)
	b = appendString(b, r.Match)
	b = append(b, `,"events":`...)
	if r.Events == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range r.Events {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"seq":`...)
			b = strconv.AppendUint(b, e.Seq, 10)
			b = append(b, `,"type":`...)
			b = appendString(b, string(e.Type))
			b = append(b, `,"hash":"`...)
			b = append(b, e.Hash.String()...) // hex: nothing to escape
			b = append(b, `"}`...)
		}
		b = append(b, ']')
	}
	b = append(b, `,"pending":`...)
	b = appendPending(b, &r.Pending)
	if r.Receipt != nil {
		rb, err := r.Receipt.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(b, `,"receipt":`...)
		b = appendCompact(b, rb)
	}
	if r.Request != "" {
		b = append(b, `,"request":`...)
		b = appendString(b, r.Request)
	}
	if r.Replayed {
		b = append(b, `,"replayed":true`...)
	}
	return append(b, '}'), nil
}

func appendPending(b []byte, p *projector.Pending) []byte {
	b = append(b, `{"kind":`...)
	b = appendString(b, p.Kind)
	if p.Player != "" {
		b = append(b, `,"player":`...)
		b = appendString(b, p.Player)
	}
	if p.Dice != 0 {
		b = append(b, `,"dice":`...)
		b = strconv.AppendInt(b, int64(p.Dice), 10)
	}
	if p.Purpose != "" {
		b = append(b, `,"purpose":`...)
		b = appendString(b, p.Purpose)
	}
	if p.Need != 0 {
		b = append(b, `,"need":`...)
		b = strconv.AppendInt(b, int64(p.Need), 10)
	}
	if p.Count != 0 {
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, int64(p.Count), 10)
	}
	b = append(b, `,"text":`...)
	b = appendString(b, p.Text)
	if rr := p.Reroll; rr != nil {
		b = append(b, `,"reroll":{"seq":`...)
		b = strconv.AppendUint(b, rr.Seq, 10)
		b = append(b, `,"indices":`...)
		if rr.Indices == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, n := range rr.Indices {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(n), 10)
			}
			b = append(b, ']')
		}
		if rr.Source != "" {
			b = append(b, `,"source":`...)
			b = appendString(b, rr.Source)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendCompact appends a Marshaler's JSON as encoding/json embeds it:
// compacted, with <, > and & escaped.
func appendCompact(b, v []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return append(b, v...)
	}
	v = buf.Bytes()
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '<' || c == '>' || c == '&':
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		case c == 0xe2 && i+2 < len(v) && v[i+1] == 0x80 && v[i+2]&^1 == 0xa8: // U+2028, U+2029
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[v[i+2]&0xf])
			i += 2
		default:
			b = append(b, c)
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json writes it
// (with HTML escaping, as json.Marshal does).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[c&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
