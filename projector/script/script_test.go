package script_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector/script"
)

const example = "../../examples/3e-boltguns-vs-boyz.yaml"

func readExample(t testing.TB) *script.Script {
	t.Helper()
	sc, err := script.Read(example)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestExampleScriptParses(t *testing.T) {
	sc := readExample(t)
	if sc.Version != 1 || sc.Match.Edition != "3e" || len(sc.Match.Units) != 5 || len(sc.Match.Terrain) != 2 {
		t.Fatalf("unexpected script: version %d edition %q, %d units, %d terrain", sc.Version, sc.Match.Edition, len(sc.Match.Units), len(sc.Match.Terrain))
	}
	refusals := 0
	for i, st := range sc.Steps {
		if st.Line == 0 {
			t.Errorf("step %d has no line number", i+1)
		}
		if i > 0 && st.Line <= sc.Steps[i-1].Line {
			t.Errorf("step %d at line %d does not follow step %d at line %d", i+1, st.Line, i, sc.Steps[i-1].Line)
		}
		if st.ExpectRefusal != "" {
			refusals++
		}
	}
	if refusals < 5 {
		t.Errorf("the example should show the refusals it was written for; it has %d", refusals)
	}
}

// A script survives the trip to JSON and to YAML and back unchanged, so
// the two formats are the same format.
func TestScriptJSONAndYAMLAgree(t *testing.T) {
	sc := readExample(t)
	dir := t.TempDir()
	for _, name := range []string{"m.json", "m.yml"} {
		b, err := sc.Marshal(name)
		if err != nil {
			t.Fatal(err)
		}
		back, err := script.Parse(filepath.Join(dir, name), b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		for i := range back.Steps {
			back.Steps[i].Line = sc.Steps[i].Line // lines differ by layout only
		}
		if !reflect.DeepEqual(sc, back) {
			t.Errorf("%s: the script changed on the way through", name)
		}
	}
}

func TestScriptStrictErrors(t *testing.T) {
	const setup = `"match":{"edition":"3e","players":[{"id":"alice"},{"id":"bob"}],"units":[{"id":"u","player":"alice","models":[{"id":"m","t":4,"w":1,"height":1,"base_mm":25,"x":1,"y":1}]}]}`
	cases := []struct {
		name, file, body string
		want             []string
	}{
		{"unknown step field", "s.json", `{"version":1,` + setup + `,"steps":[{"as":"alice","cmd":{"type":"next-turn"}},{"as":"alice","cmd":{"type":"shoot","unit":"u","tagret":"x"}}]}`,
			[]string{"s.json", "step 2", `cmd: unknown field "tagret"`, `did you mean "target"`}},
		{"unknown field deep in the setup", "s.json", `{"version":1,"match":{"edition":"3e","players":[{"id":"alice"},{"id":"bob"}],"units":[{"id":"u","player":"alice","models":[{"id":"m","t":4,"w":1,"toughness":4}]}]},"steps":[]}`,
			[]string{`match.units[0].models[0]: unknown field "toughness"`}},
		{"field names are exact", "s.json", `{"version":1,` + setup + `,"steps":[{"as":"alice","cmd":{"Type":"next-turn"}}]}`,
			[]string{"step 1", `unknown field "Type"`, `did you mean "type"`}},
		{"unknown top-level field", "s.json", `{"version":1,` + setup + `,"step":[]}`, []string{`unknown field "step"`, `did you mean "steps"`}},
		{"tokens are not script content", "s.json", `{"version":1,"match":{"edition":"3e","tokens":{"judge":"x"}},"steps":[]}`, []string{`match: unknown field "tokens"`}},
		{"the recorder sets a roll's source", "s.json", `{"version":1,` + setup + `,"steps":[{"as":"alice","cmd":{"type":"roll","Source":"digital"}}]}`, []string{`unknown field "Source"`}},
		{"version 2", "s.json", `{"version":2,` + setup + `,"steps":[]}`, []string{"version 2 is not supported", "reads version 1"}},
		{"no version", "s.json", `{` + setup + `,"steps":[]}`, []string{"version is missing"}},
		{"truncated JSON", "cut.json", `{"version":1,` + setup + `,"steps":[{"as":"alice","cmd":{"type":"roll","values":[1,2`,
			[]string{"cut.json", "line 1, column", "truncated"}},
		{"truncated YAML", "cut.yaml", "version: 1\nmatch:\n  edition: 3e\nsteps:\n  - {as: alice, cmd: {type: roll, values: [1, 2",
			[]string{"cut.yaml", "line"}},
		{"trailing data", "s.json", `{"version":1,` + setup + `,"steps":[]} {"version":1}`, []string{"unexpected data after the script"}},
		{"wrong type names the step", "s.json", `{"version":1,` + setup + `,"steps":[{"as":"alice","cmd":{"type":"next-turn"}},{"as":"alice","cmd":{"type":"roll","values":"six"}}]}`,
			[]string{"step 2", "values"}},
		{"unknown actor", "s.yaml", "version: 1\nmatch: {edition: 3e, players: [{id: alice}, {id: bob}], units: [{id: u, player: alice, models: [{id: m, t: 4, w: 1}]}]}\nsteps:\n  - {as: alice, cmd: {type: next-turn}}\n  - {as: carol, cmd: {type: next-turn}}\n",
			[]string{"step 2 (line 5)", `as "carol" is neither a player`}},
		{"command type missing", "s.json", `{"version":1,` + setup + `,"steps":[{"as":"judge","cmd":{}}]}`, []string{"step 1", "cmd.type is missing"}},
		{"empty file", "s.json", "", []string{"empty"}},
		{"empty YAML file", "s.yaml", "# nothing\n", []string{"empty"}},
		{"not an object", "s.json", `[1,2]`, []string{"must be an object"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := script.Parse(c.file, []byte(c.body))
			if err == nil {
				t.Fatal("parsed without error")
			}
			if !errors.Is(err, script.ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// Every prefix of a valid script is refused, never accepted as a shorter
// script and never a panic: a file cut off by a crash or a bad copy must
// not record half a match.
func TestTruncatedScriptsAreRefused(t *testing.T) {
	sc := readExample(t)
	full, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := script.Parse("full.json", full); err != nil {
		t.Fatalf("the full script does not parse: %v", err)
	}
	for n := 0; n < len(full)-1; n += 13 {
		if _, err := script.Parse("cut.json", full[:n]); err == nil {
			t.Fatalf("a script cut at byte %d of %d parsed", n, len(full))
		}
	}
}

func TestReadScriptMissingFile(t *testing.T) {
	_, err := script.Read(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("want a not-exist error, got %v", err)
	}
}

// A file over the size limit is refused before it is parsed (the error is
// the size, not the content), and one with no size to check — a device
// that never ends — after reading one byte past the limit.
func TestScriptSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x: [\n"), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := script.ReadLimit(path, 4999); !errors.Is(err, script.ErrTooLarge) || !errors.Is(err, script.ErrInvalid) {
		t.Fatalf("a 5000-byte script with a 4999-byte limit: %v", err)
	}
	if _, err := script.ReadLimit(path, 5000); errors.Is(err, script.ErrTooLarge) || !errors.Is(err, script.ErrInvalid) {
		t.Fatalf("a 5000-byte script within the limit is parsed (and is no script): %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := script.ReadLimit("/dev/zero", 1<<20)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, script.ErrTooLarge) {
		t.Fatalf("/dev/zero: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Fatalf("refusing /dev/zero at 1 MiB allocated %d bytes", grew)
	}
}
