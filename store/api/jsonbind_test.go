package api

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector"
)

// Bodies of the hot verbs as the CLI, scripts and Go clients send them.
var bindCorpus = map[string][]string{
	"execute": {
		`{"match":"m1","token":"t0k","command":{"type":"move","unit":"dev","model":"dev-1","x":9,"y":32.5},"request_id":"00112233445566778899aabbccddeeff","head":{"seq":12,"hash":"` + strings.Repeat("ab", 32) + `"}}`,
		`{"match":"m1","token":"t","digital":true}`,
		`{"match":"m1","token":"t","values":[1,6,3]}`,
		` { "match" : "m1" , "command" : { "type" : "shoot", "unit":"u","target":"v","weapons":{"a-1":"bolter","a-2":"-"},"options":{"x":1.5e2},"snap":false,"focus_fire":"2+" } } `,
		`{"match":"m1","statement":"AAEC","signature":"` + strings.Repeat("AAAA", 21) + `AA=="}`,
		`{"match":"m1","command":{"type":"roll","values":[],"indices":[0,2],"digital":false,"purpose":"hit","event":3,"dispute":4,"decision":"void","seed":"s","commit":"c","hash":"h","upto":9,"epoch":2,"player":"alice","at":5,"match":"b1","name":"n","keys":{},"models":["a","b"],"winner":"w","reason":"r","advance":true,"kind":"k","phase":"p"}}`,
		`{"match":"m1","command":{"type":"shoot","unit":"tac","target":"boyz","facts":[{"kind":"range","from":"tac-1","value":"7.5"},{"kind":"target","model":"boy-1","value":"in-range"}]}}`,
		`{"match":"m1","command":{"type":"measure","facts":[]}}`,
		`{"match":"m1","command":{"type":"create","setup":{"edition":"3e"}}}`,
		`{"match":"m1","Match":"m2"}`,
		`{"match":"m1","match":"m2"}`,
		`{"match":"m\u00e9","token":null}`,
		`{"match":"mé","unknown":1}`,
		`{"match":"m1","command":{"type":"move","x":"9"}}`,
		`{"match":"m1","values":[1.5]}`,
		`{"match":"m1","head":{"seq":-1}}`,
		`{"match":"m1","head":{"seq":1,"hash":"zz"}}`,
		`{"match":"m1"} {"match":"m2"}`,
		`{"match":"m1"}x`,
		`[1,2]`,
		`{"match":1}`,
		`{"match":"m1","digital":1}`,
		`{"match":"m1","values":[01]}`,
		`{"match":"m1","command":{"type":"move","x":-0.5e-3,"y":1E+2}}`,
		"{\"match\":\"m\xff\"}",
		"{\"match\":\"m\x01\"}",
	},
	"state":  {`{"match":"m1"}`, `{"match":"m1","at":5,"after":7}`, `{"match":"m1","at":5.5}`, `{}`, `{"at":18446744073709551616}`},
	"status": {`{"match":"m1","role":"player:alice","request":"00ff"}`, `{"match":"m1","role":2}`},
	"events": {`{"match":"m1","from":3,"to":9,"text_only":true}`, `{"match":"m1","text_only":"yes"}`},
}

func newRequest(kind string) any {
	switch kind {
	case "execute":
		return &ExecuteRequest{}
	case "state":
		return &StateRequest{}
	case "status":
		return &StatusRequest{}
	}
	return &EventsRequest{}
}

// Bind's reader and encoding/json agree on every body: the same value,
// or both an error (bad_request); the plain bodies are the reader's own.
func TestFastBindAgreesWithEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fast := 0
	for kind, bodies := range bindCorpus {
		for _, body := range bodies {
			for i := 0; i < 300; i++ {
				b := []byte(body)
				if i > 0 {
					b = mutate(r, b)
				}
				got, want := newRequest(kind), newRequest(kind)
				gerr, werr := Bind(b, got), bindReflective(b, want)
				if (gerr == nil) != (werr == nil) {
					t.Fatalf("%s %q: Bind error %v, encoding/json error %v", kind, b, gerr, werr)
				}
				if gerr == nil && !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %q:\nBind          %+v\nencoding/json %+v", kind, b, got, want)
				}
				if i == 0 && got.(fastBinder).bindFast(b) {
					fast++
				}
			}
		}
	}
	if fast < 12 {
		t.Fatalf("the reader read only %d of the plain bodies itself", fast)
	}
	plain := []byte(bindCorpus["execute"][0])
	if !newRequest("execute").(fastBinder).bindFast(plain) {
		t.Fatal("the CLI's declare body fell back to encoding/json")
	}
}

// mutate flips, drops or inserts a byte.
func mutate(r *rand.Rand, b []byte) []byte {
	b = append([]byte(nil), b...)
	if len(b) == 0 {
		return b
	}
	i := r.IntN(len(b))
	switch r.IntN(3) {
	case 0:
		b[i] = `{}[]:,"\ 0123456789.-+eEtrufalsn`[r.IntN(31)]
	case 1:
		b = append(b[:i], b[i+1:]...)
	default:
		b = append(b[:i], append([]byte{`{}[]:,"\ 019.-e`[r.IntN(15)]}, b[i:]...)...)
	}
	return b
}

// A field added to a fast request type is read by the reader too: every
// JSON name of the type is a key its reader knows.
func TestFastBindersKnowEveryField(t *testing.T) {
	for kind := range bindCorpus {
		v := newRequest(kind)
		ty := reflect.TypeOf(v).Elem()
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			val := `""`
			switch f.Type.Kind() {
			case reflect.Uint64, reflect.Int, reflect.Int64:
				val = "1"
			case reflect.Bool:
				val = "true"
			case reflect.Slice:
				val = "[]"
				if f.Type.Elem().Kind() == reflect.Uint8 {
					val = `"AA=="`
				}
			case reflect.Pointer:
				val = "{}"
			}
			body := []byte(`{"` + name + `":` + val + `}`)
			if err := json.Unmarshal(body, newRequest(kind)); err != nil {
				t.Fatalf("%s: %s: %v", kind, body, err)
			}
			if !newRequest(kind).(fastBinder).bindFast(body) {
				t.Errorf("%s: field %s (%s) is not read by its reflection-free reader (jsonbind.go)", kind, f.Name, body)
			}
		}
	}
}

// So is a field added to a command (all but a create's setup).
func TestFastBindReadsEveryCommandField(t *testing.T) {
	ty := reflect.TypeOf(projector.Command{})
	for i := 0; i < ty.NumField(); i++ {
		f := ty.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || name == "setup" {
			continue
		}
		val := `""`
		switch f.Type.Kind() {
		case reflect.Uint64, reflect.Int:
			val = "1"
		case reflect.Bool:
			val = "true"
		case reflect.Slice:
			val = "[]"
		case reflect.Map:
			val = "{}"
		case reflect.Pointer:
			val = "1.5"
		}
		body := []byte(`{"match":"m","command":{"` + name + `":` + val + `}}`)
		want := &ExecuteRequest{}
		if err := bindReflective(body, want); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		got := &ExecuteRequest{}
		if !got.bindFast(body) || !reflect.DeepEqual(got, want) {
			t.Errorf("command field %s (%s) is not read by readCommand (jsonbind.go) as encoding/json reads it", f.Name, body)
		}
	}
}
