package replay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// The second verifier, tools/verify.py, is written from docs/events.md,
// docs/bundle.md and docs/dice.md alone. This test runs it and replay's
// verifier (what matchrec verify --json prints) on the same bytes — every
// golden bundle and tampered copies of them — and requires one report
// shape, the same verdict and the same first bad sequence, and for a
// sound record the same findings, so the documents and the Go code cannot
// drift apart. There is no list of known disagreements: any is a failure.

// report is the part of docs/bundle.md's report both verifiers must agree on.
type report struct {
	Verdict     string   `json:"verdict"`
	OneHolder   []string `json:"one_holder"`
	Events      int      `json:"events"`
	Signed      bool     `json:"signed"`
	FirstBadSeq uint64   `json:"first_bad_seq"`
	FirstCheck  string   `json:"first_bad_check"`
	Problems    []struct {
		Seq   uint64 `json:"seq"`
		Check string `json:"check"`
		Code  string `json:"code"`
	} `json:"problems"`
	Unresolved []struct {
		Seq  uint64 `json:"seq"`
		Code string `json:"code"`
	} `json:"unresolved"`
	ManualRolls []struct {
		Seq    uint64 `json:"seq"`
		Status string `json:"status"`
	} `json:"manual_rolls"`
	PendingReveal []uint64 `json:"pending_reveal"`
	Checks        struct {
		Dice struct {
			Digital int `json:"digital_rolls"`
			Checked int `json:"checked_rolls"`
		} `json:"dice"`
		End struct {
			Ended uint64 `json:"ended"`
		} `json:"end"`
	} `json:"checks"`
}

// reportFields are the fields of docs/bundle.md's report, and of each problem.
var (
	reportFields  = []string{"checks", "disputes", "events", "first_bad_check", "first_bad_seq", "manual_rolls", "match", "not_checked", "ok", "pending_reveal", "problems", "signed", "unresolved", "verdict"}
	problemFields = []string{"check", "code", "message", "seq"}
)

func TestIndependentVerifierAgrees(t *testing.T) {
	python, verifier := pythonVerifier(t)
	golden := goldenBundles(t)
	dir := t.TempDir()
	n := 0
	for _, path := range golden {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(goldenDir, path)
		for _, c := range tamperCases(t, raw) {
			label := name
			if c.name != "" {
				label += " " + c.name
			}
			n++
			file := filepath.Join(dir, fmt.Sprintf("case-%d.bundle", n))
			t.Run(label, func(t *testing.T) {
				t.Parallel()
				if err := os.WriteFile(file, c.bundle, 0o600); err != nil {
					t.Fatal(err)
				}
				pyRaw := runPython(t, python, verifier, file)
				goRaw, err := json.Marshal(replay.VerifyBundle(readBundle(t, c.bundle), editions.Lookup, nil))
				if err != nil {
					t.Fatal(err)
				}
				sameShape(t, pyRaw, goRaw)
				var py, gr report
				if err := json.Unmarshal(pyRaw, &py); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(goRaw, &gr); err != nil {
					t.Fatal(err)
				}
				if py.Verdict != gr.Verdict || py.FirstBadSeq != gr.FirstBadSeq {
					t.Fatalf("Go says %s at %d (%s) %+v; tools/verify.py says %s at %d (%s) %+v",
						gr.Verdict, gr.FirstBadSeq, gr.FirstCheck, gr.Problems, py.Verdict, py.FirstBadSeq, py.FirstCheck, py.Problems)
				}
				if c.seq != 0 && (py.Verdict != replay.VerdictFailed || py.FirstBadSeq != c.seq) {
					t.Errorf("both say %s at %d; the tamper is at %d", py.Verdict, py.FirstBadSeq, c.seq)
				}
				if py.Verdict != replay.VerdictFailed {
					// A sound record: the same findings, not just the same verdict.
					py.FirstCheck, gr.FirstCheck = "", ""
					if !reflect.DeepEqual(py, gr) {
						t.Errorf("the findings differ:\nGo     %+v\nPython %+v", gr, py)
					}
				}
			})
		}
	}
}

// sameShape: both reports have exactly the documented fields, and each
// problem exactly seq, check, code and message.
func sameShape(t *testing.T, reports ...[]byte) {
	t.Helper()
	for i, raw := range reports {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		who := []string{"tools/verify.py", "Go"}[i]
		delete(m, "one_holder") // there only when one key signed for several roles (compared below)
		if keys := sortedKeys(m); !slices.Equal(keys, reportFields) {
			t.Errorf("%s's report has the fields %v, want %v", who, keys, reportFields)
		}
		var probs []map[string]json.RawMessage
		if err := json.Unmarshal(m["problems"], &probs); err != nil {
			t.Fatalf("%s's problems: %v", who, err)
		}
		for _, p := range probs {
			if keys := sortedKeys(p); !slices.Equal(keys, problemFields) {
				t.Errorf("%s's problem has the fields %v, want %v", who, keys, problemFields)
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

type tamperCase struct {
	name   string
	seq    uint64 // the first bad sequence the tamper makes in a sound bundle (0: untouched)
	bundle []byte
}

// tamperCases are the bundle as it is, then — for a bundle both find
// sound — with a byte flipped, a record deleted, two swapped, one
// duplicated, and, for an ended match, the recorder's reveals after the
// end cut off.
func tamperCases(t *testing.T, raw []byte) []tamperCase {
	t.Helper()
	cases := []tamperCase{{bundle: raw}}
	b := readBundle(t, raw)
	n := len(b.Records)
	if n < 8 || replay.VerifyBundle(b, editions.Lookup, nil).Verdict == replay.VerdictFailed {
		return cases
	}
	k := n / 2 // a record in the middle: position k+1, event k+1
	edit := func(name string, seq uint64, change func(b *api.Bundle)) {
		c := readBundle(t, raw)
		change(c)
		var buf bytes.Buffer
		if err := replay.WriteBundle(&buf, c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tamperCase{name, seq, buf.Bytes()})
	}
	edit("flip", uint64(k+1), func(b *api.Bundle) {
		r := append([]byte(nil), b.Records[k]...)
		r[len(r)-40] ^= 0x01 // inside the body, before the 34 bytes of the hash
		b.Records[k] = r
	})
	edit("delete", uint64(k+1), func(b *api.Bundle) {
		b.Records = append(b.Records[:k:k], b.Records[k+1:]...)
		b.Keys = append(b.Keys[:k:k], b.Keys[k+1:]...)
	})
	edit("swap", uint64(k+1), func(b *api.Bundle) {
		b.Records[k], b.Records[k+1] = b.Records[k+1], b.Records[k]
	})
	edit("duplicate", uint64(k+2), func(b *api.Bundle) {
		b.Records = append(b.Records[:k+1:k+1], b.Records[k:]...)
		b.Keys = append(b.Keys[:k+1:k+1], b.Keys[k:]...)
	})
	if ended, reveals := endOf(t, b); reveals > 0 {
		edit("cut-after-end", ended, func(b *api.Bundle) { // the last reveal recorded with match.ended
			b.Records, b.Keys = b.Records[:n-1], b.Keys[:n-1]
		})
	}
	return cases
}

// endOf finds the match.ended of a bundle and how many reveals follow it
// at its end.
func endOf(t *testing.T, b *api.Bundle) (ended uint64, reveals int) {
	t.Helper()
	for i := len(b.Records) - 1; i >= 0; i-- {
		e, err := events.Unmarshal(b.Records[i])
		if err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case events.TypeDiceRevealed:
			reveals++
		case events.TypeMatchEnded:
			return e.Seq, reveals
		default:
			return 0, 0
		}
	}
	return 0, 0
}

func readBundle(t *testing.T, raw []byte) *api.Bundle {
	t.Helper()
	b, err := replay.ReadBundle(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runPython runs tools/verify.py --json ARGS… and checks its exit code
// against its verdict.
func runPython(t *testing.T, python, verifier string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(python, append([]string{verifier, "--json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 3)) {
		t.Fatalf("tools/verify.py %v: %v: %s", args, err, stderr.String())
	}
	var v report
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("tools/verify.py --json printed no report: %v: %s", err, out)
	}
	wantExit := map[string]int{"CLEAN": 0, "FAILED": 1, "UNRESOLVED": 3}[v.Verdict]
	if got := cmd.ProcessState.ExitCode(); got != wantExit {
		t.Errorf("tools/verify.py exits %d for %s, want %d", got, v.Verdict, wantExit)
	}
	return out
}

// A bundle that is not one — framing, docs/bundle.md check 1 — cannot be
// verified by either verifier: matchrec's ReadBundle refuses it and
// tools/verify.py exits 2 with an error, never a verdict.
func TestVerifiersRefuseTheSameMalformedBundles(t *testing.T) {
	python, verifier := pythonVerifier(t)
	raw, err := os.ReadFile(filepath.Join(goldenDir, "v1", "legacy-branch.bundle"))
	if err != nil {
		t.Fatal(err)
	}
	edited := func(edit func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		return b
	}
	lineage := func(m map[string]any) []any { return m["lineage"].([]any) }
	cases := map[string][]byte{
		"another format":             edited(func(m map[string]any) { m["format"] = "something else" }),
		"version 4":                  edited(func(m map[string]any) { m["version"] = 4 }),
		"a field it does not have":   edited(func(m map[string]any) { m["extra"] = 1 }),
		"one key too few":            edited(func(m map[string]any) { m["keys"] = m["keys"].([]any)[1:] }),
		"no match":                   edited(func(m map[string]any) { m["match"] = "" }),
		"a lineage ending elsewhere": edited(func(m map[string]any) { l := lineage(m); l[len(l)-1].(map[string]any)["match"] = "other" }),
		"a lineage whose upto falls": edited(func(m map[string]any) {
			l := lineage(m)
			m["lineage"] = append([]any{map[string]any{"match": "root", "upto": 99}}, l...)
		}),
		"not JSON": []byte("{"),
	}
	if _, err := replay.ReadBundle(bytes.NewReader(raw)); err != nil {
		t.Fatalf("the golden bundle itself: %v", err)
	}
	dir := t.TempDir()
	for name, b := range cases {
		if _, err := replay.ReadBundle(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: matchrec reads it as a bundle", name)
		}
		path := filepath.Join(dir, "malformed.bundle")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(python, verifier, "--json", path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.Output()
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		if code := cmd.ProcessState.ExitCode(); code != 2 || len(out) != 0 || json.Unmarshal(stderr.Bytes(), &e) != nil || e.Error.Code == "" {
			t.Errorf("%s: tools/verify.py exits %d, prints %q, errs %q; want exit 2 and a JSON error", name, code, out, stderr.String())
		}
	}
}
