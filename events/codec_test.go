package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func chain(t *testing.T, n int) []Event {
	t.Helper()
	var out []Event
	var prev Hash
	for i := 1; i <= n; i++ {
		var p Payload = &TurnStarted{Turn: i, Player: "alice"}
		if i == 1 {
			p = &MatchCreated{Edition: "3e", Players: []PlayerSpec{{ID: "alice"}, {ID: "bob"}}, Tokens: map[string]string{"judge": "x", "player:alice": "y"}}
		}
		e, err := New("m1", uint64(i), prev, int64(i)*1000, Actor{Kind: ActorPlayer, ID: "alice"}, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
		prev = e.Hash
	}
	return out
}

func TestRoundTripAndChain(t *testing.T) {
	evs := chain(t, 5)
	var prev Hash
	for _, e := range evs {
		got, err := Unmarshal(Marshal(e))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Fatalf("round trip changed the event:\n%+v\n%+v", got, e)
		}
		if err := Verify(got, prev); err != nil {
			t.Fatal(err)
		}
		prev = got.Hash
	}
	p, err := Core().Decode(evs[1])
	if err != nil || p.(*TurnStarted).Turn != 2 {
		t.Fatalf("decode: %v %+v", err, p)
	}
}

func TestHashCoversEveryField(t *testing.T) {
	e := chain(t, 2)[1]
	edits := map[string]func(*Event){
		"match":   func(e *Event) { e.Match = "m2" },
		"seq":     func(e *Event) { e.Seq++ },
		"type":    func(e *Event) { e.Type = TypeMatchEnded },
		"version": func(e *Event) { e.Version++ },
		"time":    func(e *Event) { e.Time++ },
		"actor":   func(e *Event) { e.Actor.ID = "bob" },
		"kind":    func(e *Event) { e.Actor.Kind = ActorJudge },
		"payload": func(e *Event) { e.Payload = append([]byte(nil), e.Payload...); e.Payload[len(e.Payload)-1] ^= 1 },
		"prev":    func(e *Event) { e.PrevHash[0] ^= 1 },
	}
	for name, edit := range edits {
		c := e
		edit(&c)
		if ComputeHash(c) == e.Hash {
			t.Errorf("editing %s does not change the hash", name)
		}
	}
}

func TestCanonicalEncodingIsStable(t *testing.T) {
	p := &ShootingDeclared{Unit: "u", Target: "t", Weapons: map[string]string{}}
	for i := 0; i < 50; i++ {
		p.Weapons[string(rune('a'+i%26))+string(rune('a'+i/26))] = "w"
	}
	a, _ := EncodePayload(p)
	for i := 0; i < 20; i++ {
		b, _ := EncodePayload(p)
		if string(a) != string(b) {
			t.Fatal("payload encoding depends on map order")
		}
	}
}

// Payload maps must be map[string]string or map[string]bool: msgpack sorts
// only those, and the hash chain needs one encoding per value.
func TestPayloadsUseOnlySortableMaps(t *testing.T) {
	for _, name := range Core().Types() {
		p, err := Core().NewPayload(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.EventType() != name {
			t.Errorf("%s constructs a %s payload", name, p.EventType())
		}
		for _, bad := range NonCanonical(string(name), reflect.TypeOf(p), nil) {
			t.Errorf("%s: not canonically encodable", bad)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	e := chain(t, 2)[1]
	if _, err := Core().DecodePayload("no.such.type", 1, e.Payload); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := Core().DecodePayload(TypeTurnStarted, 2, e.Payload); !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("newer version: %v", err)
	}
	if _, err := Core().DecodePayload(TypeTurnStarted, 1, []byte{0xc1}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("malformed: %v", err)
	}
}

// Random bytes and every truncation of a valid record decode to an error,
// never a panic.
func TestUnmarshalNeverPanics(t *testing.T) {
	rec := Marshal(chain(t, 2)[1])
	for i := 0; i < len(rec); i++ {
		if _, err := Unmarshal(rec[:i]); err == nil {
			t.Fatalf("truncated record of %d bytes decoded", i)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		b := make([]byte, r.Intn(64))
		r.Read(b)
		if _, err := Unmarshal(b); err == nil && len(b) > 0 {
			continue
		}
		_, _ = Core().DecodePayload(TypeMatchCreated, 1, b)
	}
}

// FuzzUnmarshal: whatever bytes a store or the bus hands over, Unmarshal
// answers an error or an event, never a panic (not even one it recovers
// from: a recovered runtime error is a bug hiding behind the safety net).
// An accepted record re-encodes to a fixed point: Marshal of it reads back
// as the same event and the same bytes. The one documented exception is
// that msgpack has several forms for one value (str8 for a short string, a
// wider integer than needed, bin for str): Unmarshal accepts them, and the
// event's hash is computed over its canonical re-encoding (ComputeHash),
// never over the bytes as read, so another form of an event is the same
// event and cannot pass for a different one.
func FuzzUnmarshal(f *testing.F) {
	for _, e := range chainForFuzz() {
		f.Add(Marshal(e))
	}
	legacy := chainForFuzz()[1]
	legacy.Legacy = true
	legacy.Hash = ComputeHash(legacy)
	f.Add(Marshal(legacy))
	for _, rec := range goldenRecords(f) {
		f.Add(rec)
	}
	f.Add([]byte{})
	f.Add([]byte{0x92, 0x99})                   // [body, …] cut short
	f.Add([]byte{0x92, 0xc0, 0xc0})             // nil body and hash
	f.Add([]byte{0x92, 0xdd, 0xff, 0xff, 0xff}) // a body claiming 2^32-1 fields
	f.Fuzz(func(t *testing.T, b []byte) {
		sameAsLibrary(t, b)
		e, err := Unmarshal(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) || strings.Contains(err.Error(), "runtime error") {
				t.Fatalf("Unmarshal error %v", err)
			}
			return
		}
		again := Marshal(e)
		e2, err := Unmarshal(again)
		if err != nil {
			t.Fatalf("re-encoded record does not read back: %v", err)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("re-encoding changed the event:\n%+v\n%+v", e, e2)
		}
		if !bytes.Equal(Marshal(e2), again) {
			t.Fatal("the canonical encoding of an event is not a fixed point")
		}
		if ComputeHash(e) != ComputeHash(e2) {
			t.Fatal("one event, two hashes")
		}
		if _, err := Core().Decode(e); err != nil && (!errorsIsAny(err, ErrMalformed, ErrUnknownType, ErrNewerVersion) || strings.Contains(err.Error(), "runtime error")) {
			t.Fatalf("Decode error %v", err)
		}
	})
}

// sameAsLibrary fails the test if the codec's own reader accepts b and
// reads another event than the msgpack library would.
func sameAsLibrary(t *testing.T, b []byte) {
	t.Helper()
	fast, ok := readRecord(b)
	if !ok {
		return
	}
	slow, err := unmarshalSlow(b)
	if err != nil {
		t.Fatalf("% x: the codec's reader accepts a record the library refuses: %v", b, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("% x: the codec's reader read\n%+v %+v\nthe library\n%+v %+v", b, fast, fast.Auth, slow, slow.Auth)
	}
}

// The codec's reader reads every record as the library does: the records
// it writes (every envelope form) all by itself, and damaged ones either
// not at all or to the same event.
func TestRecordReaderAgreesWithLibrary(t *testing.T) {
	evs := chainForFuzz()
	legacy := evs[1]
	legacy.Legacy = true
	legacy.Hash = ComputeHash(legacy)
	evs = append(evs, legacy)
	r := rand.New(rand.NewSource(2))
	for _, e := range evs {
		rec := Marshal(e)
		if _, ok := readRecord(rec); !ok {
			t.Fatalf("the codec's reader does not read the codec's record of %+v", e)
		}
		sameAsLibrary(t, rec)
		for i := 0; i < 3000; i++ {
			b := append([]byte(nil), rec...)
			switch r.Intn(3) {
			case 0:
				b[r.Intn(len(b))] = byte(r.Intn(256))
			case 1:
				b = b[:r.Intn(len(b))]
			default:
				j := r.Intn(len(b))
				b = append(b[:j], append([]byte{byte(r.Intn(256))}, b[j:]...)...)
			}
			sameAsLibrary(t, b)
		}
	}
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// chainForFuzz is chain without a *testing.T: seeds are built before the
// fuzz function runs.
func chainForFuzz() []Event {
	var out []Event
	var prev Hash
	for i := 1; i <= 3; i++ {
		var p Payload = &TurnStarted{Turn: i, Player: "alice"}
		if i == 1 {
			p = &MatchCreated{Edition: "3e", Players: []PlayerSpec{{ID: "alice"}, {ID: "bob"}}}
		}
		e, err := NewAuthed("m1", uint64(i), prev, int64(i)*1000, Actor{Kind: ActorPlayer, ID: "alice"}, p,
			&Auth{Statement: []byte("statement"), Signature: make([]byte, SignatureSize)})
		if err != nil {
			panic(err)
		}
		out = append(out, e)
		prev = e.Hash
	}
	return out
}

// goldenRecords returns the records of the golden bundles
// (testdata/golden): real events of every family, both envelopes. Only
// the records are read, so this package needs nothing of the bundle's.
func goldenRecords(f *testing.F) [][]byte {
	paths, _ := filepath.Glob("../testdata/golden/*/*.bundle")
	if len(paths) == 0 {
		f.Fatal("no golden bundles under ../testdata/golden")
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var bundle struct{ Records [][]byte }
		if err := json.Unmarshal(b, &bundle); err != nil {
			f.Fatalf("%s: %v", p, err)
		}
		out = append(out, bundle.Records...)
	}
	return out
}

// NonCanonical must catch what it is there to catch.
func TestNonCanonicalFindsBadMaps(t *testing.T) {
	type inner struct{ M map[string]int }
	type outer struct {
		OK     map[string]string
		Bad    []inner
		Any    any
		Skip   map[int]int `json:"-"`
		hidden map[int]int
	}
	got := NonCanonical("outer", reflect.TypeOf(outer{}), nil)
	if len(got) != 2 || got[0] != "outer.Bad.M is map[string]int" || got[1] != "outer.Any is an interface" {
		t.Fatalf("NonCanonical = %v", got)
	}
}

// An extension point is walked through every concrete type listed for it.
func TestNonCanonicalWalksExtensions(t *testing.T) {
	type ext interface{ ext() }
	type good struct{ S []string }
	type bad struct{ M map[int]string }
	type state struct {
		Ext  ext
		More []ext
	}
	extType := reflect.TypeOf((*ext)(nil)).Elem()
	got := NonCanonical("state", reflect.TypeOf(state{}), map[reflect.Type][]reflect.Type{
		extType: {reflect.TypeOf(&good{}), reflect.TypeOf(&bad{})},
	})
	if len(got) != 1 || got[0] != "state.Ext(*events.bad).M is map[int]string" {
		t.Fatalf("NonCanonical = %v", got)
	}
	if got := NonCanonical("state", reflect.TypeOf(state{}), map[reflect.Type][]reflect.Type{extType: nil}); len(got) != 0 {
		t.Fatalf("an extension point with no types listed: %v", got)
	}
}
