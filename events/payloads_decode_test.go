package events

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/matchrec/matchrec/tools/msgpackgen"
)

// The generated decoders (*_gen.go) must decode exactly what
// the reflective decoder does. These tests hold them to it on canonical
// encodings of random payloads (where the hand-written decoder must not
// fall back), on every other msgpack encoding of the same values, and on
// random damage: DecodePayload and the reflective decoder either both
// fail or give the same value.

// fastTypes are the payload types with generated decoders.
func fastTypes() []Type {
	var out []Type
	for _, t := range Core().Types() {
		p, _ := Core().NewPayload(t)
		if _, ok := p.(fastDecoder); ok {
			out = append(out, t)
		}
	}
	return out
}

// reflective decodes b into a fresh payload of type t with the reflective
// decoder alone, as DecodePayload did before the hand-written decoders.
func reflective(t Type, b []byte) (p Payload, err error) {
	p, _ = Core().NewPayload(t)
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, ErrMalformed
		}
	}()
	d := getDecoder(b)
	defer putDecoder(d)
	if err := d.dec.Decode(p); err != nil {
		return nil, err
	}
	return p, nil
}

// randomValue fills v (a struct, reached through a pointer) with random
// values: every field set, left zero, or (slices and maps) empty.
func randomValue(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		const letters = "abcdefghijklmnopqrstuvwxyz-_0123456789 é"
		n := r.IntN(6)
		if r.IntN(20) == 0 {
			n = 40 + r.IntN(300) // past fixstr and str8
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[r.IntN(len(letters)-1)]
		}
		v.SetString(string(b))
	case reflect.Int:
		switch r.IntN(4) {
		case 0:
			v.SetInt(int64(r.IntN(7)))
		case 1:
			v.SetInt(-int64(r.IntN(200)))
		case 2:
			v.SetInt(r.Int64N(1 << 40))
		}
	case reflect.Uint64:
		v.SetUint(r.Uint64() >> r.IntN(64))
	case reflect.Float64:
		switch r.IntN(4) {
		case 0:
			v.SetFloat(float64(r.IntN(72)))
		case 1:
			v.SetFloat(r.Float64() * 72)
		case 2:
			v.SetFloat(-r.Float64() * 1e6)
		}
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(2) == 0 {
			v.Set(reflect.New(v.Type().Elem()))
			randomValue(r, v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && r.IntN(5) != 0 {
				randomValue(r, v.Field(i))
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			randomValue(r, v.Index(i))
		}
	case reflect.Slice:
		if r.IntN(4) == 0 {
			return
		}
		n := r.IntN(4)
		if r.IntN(30) == 0 {
			n = 16 + r.IntN(20) // past a fixarray
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			randomValue(r, s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if r.IntN(4) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for n := r.IntN(4); n > 0; n-- {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			randomValue(r, k)
			randomValue(r, e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// randomPayload returns a random payload of type t.
func randomPayload(r *rand.Rand, t Type) Payload {
	p, _ := Core().NewPayload(t)
	randomValue(r, reflect.ValueOf(p).Elem())
	return p
}

// sameValue is reflect.DeepEqual, except that NaN equals NaN.
func sameValue(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// compare decodes b as type t both ways and fails the test if they
// disagree; it reports whether the hand-written decoder read b itself.
func compare(t *testing.T, typ Type, b []byte) (fast bool) {
	t.Helper()
	if checkShape(b) != nil {
		// A length past the end of the bytes, or values nested deeper
		// than any payload: malformed for any decoder (the reflective one
		// would allocate that length, or recurse that deep, first).
		if _, err := Core().DecodePayload(typ, 1, b); err == nil {
			t.Fatalf("%s % x: a length past the end decodes", typ, b)
		}
		return false
	}
	want, werr := reflective(typ, b)
	got, gerr := Core().DecodePayload(typ, 1, b)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s % x: reflective error %v, DecodePayload error %v", typ, b, werr, gerr)
	}
	if werr == nil && !sameValue(reflect.ValueOf(got), reflect.ValueOf(want)) {
		t.Fatalf("%s % x:\nhand-written %#v\nreflective   %#v", typ, b, got, want)
	}
	p, _ := Core().NewPayload(typ)
	ok, _ := decodeFast(p, b)
	return ok
}

// Canonical encodings of random payloads: the hand-written decoders read
// them all themselves, back to the value encoded.
func TestFastDecodersReadCanonicalPayloads(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range fastTypes() {
		for i := 0; i < 500; i++ {
			p := randomPayload(r, typ)
			b, err := EncodePayload(p)
			if err != nil {
				t.Fatal(err)
			}
			if !compare(t, typ, b) {
				t.Fatalf("%s: the canonical encoding % x fell back to the reflective decoder", typ, b)
			}
			got, _ := Core().DecodePayload(typ, 1, b)
			again, _ := EncodePayload(got)
			if !bytes.Equal(again, b) {
				t.Fatalf("%s: decode and encode again changed % x into % x", typ, b, again)
			}
		}
	}
}

// Every other encoding of the same values, wrong types, unknown and
// repeated keys, structs as arrays, and random damage: both decoders agree.
func TestFastDecodersAgreeWithReflective(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fast, total := 0, 0
	for _, typ := range fastTypes() {
		for i := 0; i < 3000; i++ {
			b, _ := EncodePayload(randomPayload(r, typ))
			var tree any
			if err := msgpack.Unmarshal(b, &tree); err != nil {
				t.Fatal(err)
			}
			var w bytes.Buffer
			writeAny(r, &w, tree)
			b = w.Bytes()
			if r.IntN(3) == 0 {
				b = damage(r, b)
			}
			total++
			if compare(t, typ, b) {
				fast++
			}
		}
	}
	// Most re-encodings stay within what the hand-written decoders read.
	if fast < total/4 {
		t.Fatalf("the hand-written decoders read only %d of %d encodings", fast, total)
	}
}

// FuzzFastDecoders: go test ./events -fuzz FuzzFastDecoders.
func FuzzFastDecoders(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	types := fastTypes()
	for i := range types {
		b, _ := EncodePayload(randomPayload(r, types[i]))
		f.Add(uint8(i), b)
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		compare(t, types[int(which)%len(types)], b)
	})
}

// damage flips, cuts, inserts or drops bytes.
func damage(r *rand.Rand, b []byte) []byte {
	b = bytes.Clone(b)
	for n := 1 + r.IntN(3); n > 0 && len(b) > 0; n-- {
		i := r.IntN(len(b))
		switch r.IntN(4) {
		case 0:
			b[i] ^= byte(1 << r.IntN(8))
		case 1:
			b = b[:i]
		case 2:
			b = append(b[:i], append([]byte{byte(r.IntN(256))}, b[i:]...)...)
		default:
			b = append(b[:i], b[i+1:]...)
		}
	}
	return b
}

// writeAny writes a decoded msgpack tree back with random but valid
// choices of encoding, and now and then a different value.
func writeAny(r *rand.Rand, w *bytes.Buffer, v any) {
	if r.IntN(40) == 0 {
		w.WriteByte(mpNil)
		return
	}
	switch v := v.(type) {
	case nil:
		w.WriteByte(mpNil)
	case bool:
		if v {
			w.WriteByte(mpTrue)
		} else {
			w.WriteByte(mpFalse)
		}
	case string:
		writeStr(r, w, v)
	case float32:
		writeFloat(r, w, float64(v))
	case float64:
		writeFloat(r, w, v)
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		writeInt(r, w, reflect.ValueOf(v).Convert(reflect.TypeOf(int64(0))).Int())
	case []any:
		if r.IntN(30) == 0 {
			w.WriteByte(0x80) // an empty map where an array belongs
			return
		}
		writeHeader(r, w, 0x90, mpArray16, mpArray32, len(v))
		for _, e := range v {
			writeAny(r, w, e)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		if r.IntN(25) == 0 { // a struct encoded as an array of its values
			writeHeader(r, w, 0x90, mpArray16, mpArray32, len(keys))
			for _, k := range keys {
				writeAny(r, w, v[k])
			}
			return
		}
		extra := 0
		if r.IntN(15) == 0 {
			extra = 1
		}
		writeHeader(r, w, 0x80, mpMap16, mpMap32, len(keys)+extra)
		for _, k := range keys {
			writeStr(r, w, k)
			writeAny(r, w, v[k])
		}
		if extra == 1 {
			if len(keys) > 0 && r.IntN(2) == 0 { // a key given twice
				k := keys[r.IntN(len(keys))]
				writeStr(r, w, k)
				writeAny(r, w, v[k])
			} else {
				writeStr(r, w, "unknown_field")
				writeAny(r, w, int64(r.IntN(9)))
			}
		}
	default:
		panic("unexpected msgpack value")
	}
}

func writeHeader(r *rand.Rand, w *bytes.Buffer, fix, c16, c32 byte, n int) {
	switch {
	case n <= 15 && r.IntN(3) != 0:
		w.WriteByte(fix | byte(n))
	case n <= math.MaxUint16 && r.IntN(2) == 0:
		w.WriteByte(c16)
		_ = binary.Write(w, binary.BigEndian, uint16(n))
	default:
		w.WriteByte(c32)
		_ = binary.Write(w, binary.BigEndian, uint32(n))
	}
}

func writeStr(r *rand.Rand, w *bytes.Buffer, s string) {
	n := len(s)
	switch c := r.IntN(12); {
	case c == 0: // bin8: a string the reflective decoder reads, ours leaves to it
		w.WriteByte(0xc4)
		w.WriteByte(byte(min(n, 255)))
		w.WriteString(s[:min(n, 255)])
		return
	case n <= 31 && c < 6:
		w.WriteByte(0xa0 | byte(n))
	case n <= 255 && c < 8:
		w.WriteByte(mpStr8)
		w.WriteByte(byte(n))
	case c < 10:
		w.WriteByte(mpStr16)
		_ = binary.Write(w, binary.BigEndian, uint16(n))
	default:
		w.WriteByte(mpStr32)
		_ = binary.Write(w, binary.BigEndian, uint32(n))
	}
	w.WriteString(s)
}

func writeInt(r *rand.Rand, w *bytes.Buffer, n int64) {
	switch c := r.IntN(10); {
	case c == 0 && n >= -32 && n <= 127:
		w.WriteByte(byte(int8(n)))
	case c == 1:
		w.WriteByte(mpInt64)
		_ = binary.Write(w, binary.BigEndian, n)
	case c == 2:
		w.WriteByte(mpUint64)
		_ = binary.Write(w, binary.BigEndian, uint64(n))
	case c == 3 && n >= math.MinInt32 && n <= math.MaxInt32:
		w.WriteByte(mpInt32)
		_ = binary.Write(w, binary.BigEndian, int32(n))
	case c == 4 && n >= 0 && n <= math.MaxUint32:
		w.WriteByte(mpUint32)
		_ = binary.Write(w, binary.BigEndian, uint32(n))
	case c == 5 && n >= math.MinInt16 && n <= math.MaxInt16:
		w.WriteByte(mpInt16)
		_ = binary.Write(w, binary.BigEndian, int16(n))
	case c == 6 && n >= 0 && n <= 255:
		w.WriteByte(mpUint8)
		w.WriteByte(byte(n))
	case c == 7 && n >= -128 && n <= 127:
		w.WriteByte(mpInt8)
		w.WriteByte(byte(int8(n)))
	case c == 8:
		writeFloat(r, w, float64(n)) // a float where an integer belongs
	default:
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		enc.UseCompactInts(true)
		_ = enc.EncodeInt(n)
		w.Write(buf.Bytes())
	}
}

func writeFloat(r *rand.Rand, w *bytes.Buffer, f float64) {
	switch c := r.IntN(6); {
	case c == 0 && float64(float32(f)) == f:
		w.WriteByte(mpFloat)
		_ = binary.Write(w, binary.BigEndian, math.Float32bits(float32(f)))
	case c == 1 && f == math.Trunc(f) && math.Abs(f) < 1<<53:
		writeInt(r, w, int64(f))
	case c == 2:
		w.WriteByte(mpFloat) // a float32 that rounds
		_ = binary.Write(w, binary.BigEndian, math.Float32bits(float32(f)))
	default:
		w.WriteByte(mpDouble)
		_ = binary.Write(w, binary.BigEndian, math.Float64bits(f))
	}
}

// A length the bytes cannot hold, or values nested past any payload, is
// refused before anything is allocated for it, whichever decoder the type
// has: damaged or hostile bytes cost their size, not gigabytes.
func TestHugeLengthsAreRefusedCheaply(t *testing.T) {
	deep := bytes.Repeat([]byte{0x91}, 100_000)
	cases := map[Type][]byte{
		TypeDiceRolled:       {0x81, 0xa6, 'v', 'a', 'l', 'u', 'e', 's', 0xdd, 0xff, 0xff, 0xff, 0xff},
		TypeCasualtiesChosen: append([]byte{0x81, 0xc6, 0xff, 0xff, 0xff, 0xff}, 'x'), // a bin key
		TypeRulingMade:       {0x81, 0xa6, 'm', 'o', 'd', 'e', 'l', 's', 0xdd, 0x7f, 0xff, 0xff, 0xff},
		TypeDisputeRaised:    append([]byte{0x81, 0xa7, 'u', 'n', 'k', 'n', 'o', 'w', 'n'}, deep...),
	}
	for typ, b := range cases {
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		_, err := Core().DecodePayload(typ, 1, b)
		runtime.ReadMemStats(&ms1)
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("%s % x: %v, want ErrMalformed", typ, b[:min(len(b), 16)], err)
		}
		if grew := ms1.TotalAlloc - ms0.TotalAlloc; grew > 1<<20 {
			t.Fatalf("%s: refusing %d bytes allocated %d bytes", typ, len(b), grew)
		}
	}
}

// The generated decoders are the generator's output for the payloads as
// they are: a field or payload type added without `go generate
// ./events/...` fails here (the random tests above would only find the
// field missing if the reflective decoder read it differently).
func TestGeneratedDecodersAreCurrent(t *testing.T) {
	want, err := msgpackgen.Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	have, _ := filepath.Glob("*" + msgpackgen.Suffix)
	if len(have) != len(want) {
		t.Fatalf("generated files %v, the generator writes %d: run go generate ./events/...", have, len(want))
	}
	for name, b := range want {
		got, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%s is not what tools/msgpackgen writes for the payloads as they are (%v): run go generate ./events/...", name, err)
		}
	}
}

// The generated encoders write exactly the bytes msgpack's encoder writes
// with the codec's settings, on random payloads of every type (every
// field set, left zero or empty, long strings and lists).
func TestGeneratedEncodersMatchReflective(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, typ := range Core().Types() {
		p, _ := Core().NewPayload(typ)
		if _, ok := p.(fastEncoder); !ok {
			continue
		}
		for i := 0; i < 2000; i++ {
			p := randomPayload(r, typ)
			e := getEncoder()
			if err := e.enc.Encode(p); err != nil {
				t.Fatal(err)
			}
			want := e.bytes()
			got, _ := encodeFast(p)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s %#v:\ngenerated % x\nmsgpack   % x", typ, p, got, want)
			}
		}
	}
}
