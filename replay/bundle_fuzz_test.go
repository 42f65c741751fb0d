package replay_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// goldenBundleFiles returns the bytes of every golden bundle, v1 and v2.
func goldenBundleFiles(f *testing.F) [][]byte {
	paths, _ := filepath.Glob(filepath.Join(goldenDir, "*", "*.bundle"))
	if len(paths) == 0 {
		f.Fatalf("no golden bundles under %s", goldenDir)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// verdicts are the only answers a verification gives.
var verdicts = map[string]bool{replay.VerdictClean: true, replay.VerdictFailed: true, replay.VerdictUnresolved: true}

// FuzzReadBundle: `matchrec verify` on any file reads it and verifies it
// without panicking, and ends in one of the three verdicts or in an error
// that says the file is not a bundle it can read.
func FuzzReadBundle(f *testing.F) {
	for _, b := range goldenBundleFiles(f) {
		f.Add(b)
	}
	for _, s := range []string{
		``, `{}`, `null`, `[]`,
		`{"format":"matchrec-bundle","version":1,"match":"m","keys":[1],"records":[]}`,
		`{"format":"matchrec-bundle","version":2,"match":"m","keys":[1,2],"records":["kpmibTEBr21hdGNoLmNyZWF0ZWQBAJKmc3lzdGVtoMQAxCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAMA=","AA=="]}`,
		`{"format":"matchrec-bundle","version":2,"match":"m","keys":[],"records":[],"reveals":["AA=="],"lineage":[{"match":"p","from":1}]}`,
		`{"format":"matchrec-bundle","version":2,"match":"m","state_hash":"zz","keys":[],"records":[]}`,
		`{"format":"matchrec-bundle","version":99}`,
		`{"format":"matchrec-bundle","version":2,"match":"m","keys":[],"records":[]} trailing`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := replay.ReadBundle(bytes.NewReader(data))
		if err != nil {
			return
		}
		rep := replay.VerifyBundle(b, editions.Lookup, nil)
		if !verdicts[rep.Verdict] {
			t.Fatalf("verdict %q", rep.Verdict)
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Fatalf("the report does not encode for --json: %v", err)
		}
	})
}

// FuzzBundleRecord puts any bytes in place of one record of a real signed
// bundle. Nothing forged passes: unless the new bytes decode to the very
// event they replace (another msgpack form of it, events.FuzzUnmarshal),
// the verdict is FAILED — and whatever they are, verifying never panics.
func FuzzBundleRecord(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join(goldenDir, "v2", "signed.bundle"))
	if err != nil {
		f.Fatal(err)
	}
	var base api.Bundle
	if err := json.Unmarshal(golden, &base); err != nil {
		f.Fatal(err)
	}
	if rep := replay.VerifyBundle(&base, editions.Lookup, nil); rep.Verdict != replay.VerdictClean {
		f.Fatalf("the golden bundle verifies %s", rep.Verdict)
	}
	n := len(base.Records)
	for i, rec := range base.Records {
		f.Add(uint16(i), rec)                                // the record itself: CLEAN
		f.Add(uint16((i+1)%n), rec)                          // in another's place: FAILED
		f.Add(uint16(i), rec[:len(rec)/2])                   // cut short
		f.Add(uint16(i), append(rec[:len(rec):len(rec)], 0)) // trailing byte
	}
	f.Fuzz(func(t *testing.T, which uint16, rec []byte) {
		i := int(which) % n
		b := base
		b.Records = append([][]byte(nil), base.Records...)
		b.Records[i] = rec
		rep := replay.VerifyBundle(&b, editions.Lookup, nil)
		if !verdicts[rep.Verdict] {
			t.Fatalf("verdict %q", rep.Verdict)
		}
		if rep.Verdict == replay.VerdictFailed || bytes.Equal(rec, base.Records[i]) {
			return
		}
		was, _ := events.Unmarshal(base.Records[i])
		now, err := events.Unmarshal(rec)
		if err != nil || !reflect.DeepEqual(was, now) {
			t.Fatalf("record %d replaced by another event (%v) and the bundle verifies %s", i+1, err, rep.Verdict)
		}
	})
}
