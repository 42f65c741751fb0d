package script_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/projector/script"
)

// FuzzParse: any bytes, read as YAML or as JSON, give a script or an
// error wrapping ErrInvalid, never a panic — not even one Parse's safety
// net recovers (a "runtime error" in the message is a bug behind it). A
// script that is accepted is written out again, in both formats, and reads
// back as the same script: what `matchrec generate` writes, `play` reads.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../../examples/*.yaml")
	if len(paths) == 0 {
		f.Fatal("no examples under ../../examples")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
		sc, err := script.Parse(p, b)
		if err != nil {
			f.Fatalf("%s: %v", p, err)
		}
		j, err := sc.Marshal("x.json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(j, false)
	}
	const setup = `"match":{"edition":"3e","players":[{"id":"alice"},{"id":"bob"}],"units":[{"id":"u","player":"alice","models":[{"id":"m","t":4,"w":1}]}]}`
	for _, s := range []string{
		`{"version":1,` + setup + `,"steps":[{"as":"alice","cmd":{"type":"next-turn"}}]}`,
		`{"version":1,` + setup + `,"steps":[{"as":"alice","cmd":{"type":"roll","values":[1,2`,
		`{"version":1.5,` + setup + `}`,
		`{"version":1,` + setup + `,"steps":[{"as":"judge","cmd":{"type":"roll","values":[1e400]}}]}`,
		`{"version":1,` + setup + `,"steps":null} {}`,
		`{"version":1,"match":{"edition":"3e","players":[{"id":"judge"}]},"steps":[]}`,
	} {
		f.Add([]byte(s), false)
	}
	for _, s := range []string{
		"version: 1\nmatch: &m {edition: 3e, players: [{id: alice}], units: [{id: u, player: alice, models: [{id: m}]}]}\nsteps:\n  - {as: alice, cmd: {type: next-turn}}\n",
		"version: 1\nmatch: {edition: 3e, players: [{id: alice}], units: [{id: u, player: alice}]}\nsteps: [{as: alice, cmd: *nope}]\n",
		"version: 1\nmatch: {1: x}\n",
		"version: 1\nmatch: {edition: 3e, players: [{id: alice}], units: [{id: u}]}\nsteps:\n  - {as: alice, cmd: {type: roll, values: [.inf]}}\n",
		"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\nversion: 1\n",
		"---\nversion: 1\n---\nversion: 2\n",
		"version: !!binary AQ==\n",
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, yaml bool) {
		name := "fuzz.json"
		if yaml {
			name = "fuzz.yaml"
		}
		sc, err := script.Parse(name, b)
		if err != nil {
			if !errors.Is(err, script.ErrInvalid) || strings.Contains(err.Error(), "runtime error") {
				t.Fatalf("Parse error %v", err)
			}
			return
		}
		for _, out := range []string{"again.json", "again.yaml"} {
			w, err := sc.Marshal(out)
			if err != nil {
				t.Fatalf("an accepted script does not write as %s: %v", out, err)
			}
			back, err := script.Parse(out, w)
			if err != nil {
				t.Fatalf("an accepted script, written as %s, does not read back: %v\n%s", out, err, w)
			}
			for i := range back.Steps {
				back.Steps[i].Line = sc.Steps[i].Line // lines differ by layout only
			}
			if !reflect.DeepEqual(sc, back) {
				t.Fatalf("written as %s and read back, the script changed:\n%+v\n%+v", out, sc, back)
			}
		}
	})
}
