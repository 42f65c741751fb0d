package events

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
)

// writer is the small msgpack writer under the generated payload encoders
// (*_encode_gen.go): it appends to a byte slice exactly what msgpack's
// encoder writes with the codec's settings (codec.go: the json names, map
// keys sorted, integers in their smallest form, floats as float 64), with
// no reflection and no allocation but the buffer's. msgpack's encoder
// looked up and boxed every field of every payload it wrote (to check for
// omitempty). payloads_decode_test.go holds the two to the same bytes.
type writer struct{ b []byte }

// fastEncoder is a payload with a generated encoder.
type fastEncoder interface {
	encodeMsgpack(w *writer)
}

var writers = sync.Pool{New: func() any { return &writer{b: make([]byte, 0, 256)} }}

// encodeFast returns the generated encoding of p, or false if p has none.
func encodeFast(p Payload) ([]byte, bool) {
	fe, ok := p.(fastEncoder)
	if !ok {
		return nil, false
	}
	w := writers.Get().(*writer)
	w.b = w.b[:0]
	fe.encodeMsgpack(w)
	out := slices.Clone(w.b)
	if cap(w.b) <= 64<<10 { // a huge match.created does not pin its buffer
		writers.Put(w)
	}
	return out, true
}

func (w *writer) nil() { w.b = append(w.b, mpNil) }

func (w *writer) bool(v bool) {
	if v {
		w.b = append(w.b, mpTrue)
	} else {
		w.b = append(w.b, mpFalse)
	}
}

func (w *writer) uint(n uint64) {
	switch {
	case n <= math.MaxInt8:
		w.b = append(w.b, byte(n))
	case n <= math.MaxUint8:
		w.b = append(w.b, mpUint8, byte(n))
	case n <= math.MaxUint16:
		w.b = binary.BigEndian.AppendUint16(append(w.b, mpUint16), uint16(n))
	case n <= math.MaxUint32:
		w.b = binary.BigEndian.AppendUint32(append(w.b, mpUint32), uint32(n))
	default:
		w.b = binary.BigEndian.AppendUint64(append(w.b, mpUint64), n)
	}
}

func (w *writer) int(n int64) {
	switch {
	case n >= 0:
		w.uint(uint64(n))
	case n >= -32:
		w.b = append(w.b, byte(n))
	case n >= math.MinInt8:
		w.b = append(w.b, mpInt8, byte(n))
	case n >= math.MinInt16:
		w.b = binary.BigEndian.AppendUint16(append(w.b, mpInt16), uint16(n))
	case n >= math.MinInt32:
		w.b = binary.BigEndian.AppendUint32(append(w.b, mpInt32), uint32(n))
	default:
		w.b = binary.BigEndian.AppendUint64(append(w.b, mpInt64), uint64(n))
	}
}

func (w *writer) float(f float64) {
	w.b = binary.BigEndian.AppendUint64(append(w.b, mpDouble), math.Float64bits(f))
}

// header writes a length of a form with a fix, 16- and 32-bit variant.
func (w *writer) header(n int, fix, c16, c32 byte, fixMax int) {
	switch {
	case n <= fixMax:
		w.b = append(w.b, fix|byte(n))
	case n <= math.MaxUint16:
		w.b = binary.BigEndian.AppendUint16(append(w.b, c16), uint16(n))
	default:
		w.b = binary.BigEndian.AppendUint32(append(w.b, c32), uint32(n))
	}
}

func (w *writer) mapLen(n int)   { w.header(n, 0x80, mpMap16, mpMap32, 15) }
func (w *writer) arrayLen(n int) { w.header(n, 0x90, mpArray16, mpArray32, 15) }

func (w *writer) str(s string) {
	switch n := len(s); {
	case n < 32:
		w.b = append(w.b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		w.b = append(w.b, mpStr8, byte(n))
	case n <= math.MaxUint16:
		w.b = binary.BigEndian.AppendUint16(append(w.b, mpStr16), uint16(n))
	default:
		w.b = binary.BigEndian.AppendUint32(append(w.b, mpStr32), uint32(n))
	}
	w.b = append(w.b, s...)
}

func (w *writer) strings(ss []string) {
	if ss == nil {
		w.nil()
		return
	}
	w.arrayLen(len(ss))
	for _, s := range ss {
		w.str(s)
	}
}

func (w *writer) ints(ns []int) {
	if ns == nil {
		w.nil()
		return
	}
	w.arrayLen(len(ns))
	for _, n := range ns {
		w.int(int64(n))
	}
}

// stringMap writes a map[string]string with its keys in byte order.
func (w *writer) stringMap(m map[string]string) {
	if m == nil {
		w.nil()
		return
	}
	w.mapLen(len(m))
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w.str(k)
		w.str(m[k])
	}
}

func (w *writer) points(ps [][2]float64) {
	if ps == nil {
		w.nil()
		return
	}
	w.arrayLen(len(ps))
	for _, p := range ps {
		w.arrayLen(2)
		w.float(p[0])
		w.float(p[1])
	}
}
