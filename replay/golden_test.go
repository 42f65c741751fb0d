package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// Golden histories (testdata/golden/README.md): recorded matches that no
// build may rewrite. Every bundle under testdata/golden/*/ is listed in
// its directory's expected.json, and this test holds it to that: the
// verdict, the number of events and the hash of the last one, the final
// state of a fresh fold pinned for each StateVersion, and every record —
// and every payload — decoding and encoding again to its exact bytes. So a
// codec or rules change that would rewrite an old match fails here, naming
// the bundle and the event. The bundles are never re-recorded: a
// deliberate change of the state (a StateVersion bump) pins the new
// state's hashes with `make golden`; new goldens (a new edition, a new
// example) are recorded with `make golden-record`, which writes only
// bundles that do not exist yet.

var (
	updateGolden = flag.Bool("update", false, "pin the final state of every golden bundle for this build's StateVersion (make golden)")
	recordGolden = flag.Bool("record", false, "record the golden bundles that do not exist yet and pin them (make golden-record)")
)

const goldenDir = "../testdata/golden"

// goldenExpect is what a golden bundle must give, in its directory's
// expected.json.
type goldenExpect struct {
	Verdict string `json:"verdict"`
	Signed  bool   `json:"signed"`
	Events  int    `json:"events"`
	// Head is the hash of the last record.
	Head events.Hash `json:"head"`
	// State is the hash of the final state of a fresh fold (as ruled), by
	// projector.StateVersion; none for a bundle that fails.
	State map[string]events.Hash `json:"state,omitempty"`
	// FirstBadSeq and Caught (check → the first event it names) say what
	// a verifier finds in a forged bundle.
	FirstBadSeq uint64            `json:"first_bad_seq,omitempty"`
	Caught      map[string]uint64 `json:"caught,omitempty"`
	Note        string            `json:"note"`
}

// goldenBundles are every golden bundle.
func goldenBundles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*", "*.bundle"))
	if err != nil || len(paths) < 20 {
		t.Fatalf("golden bundles under %s: %d (%v)", goldenDir, len(paths), err)
	}
	return paths
}

func TestGoldenHistories(t *testing.T) {
	if *recordGolden {
		recordMissingGoldens(t)
	}
	dirs, _ := filepath.Glob(filepath.Join(goldenDir, "*", "expected.json"))
	if len(dirs) < 4 {
		t.Fatalf("expected.json in %d golden directories, want v1, v2, examples and generated", len(dirs))
	}
	for _, file := range dirs {
		dir := filepath.Dir(file)
		want := readExpected(t, dir)
		bundles, _ := filepath.Glob(filepath.Join(dir, "*.bundle"))
		var names []string
		for _, b := range bundles {
			names = append(names, filepath.Base(b))
		}
		if listed := slices.Sorted(maps.Keys(want)); !slices.Equal(names, listed) {
			t.Errorf("%s: the bundles %v, expected.json lists %v (make golden-record pins a new one)", dir, names, listed)
		}
		changed := false
		for _, name := range names {
			w, ok := want[name]
			if !ok {
				continue
			}
			t.Run(filepath.Base(dir)+"/"+name, func(t *testing.T) {
				if checkGolden(t, filepath.Join(dir, name), &w) {
					want[name], changed = w, true
				}
			})
		}
		if changed {
			writeExpected(t, dir, want)
		}
	}
}

// checkGolden holds one golden bundle to its expectations; with -update it
// pins the state of this StateVersion in w and reports that it did.
func checkGolden(t *testing.T, path string, w *goldenExpect) (pinned bool) {
	b := readGolden(t, path)
	roundTrip(t, b)
	rep := replay.VerifyBundle(b, editions.Lookup, nil)
	if rep.Verdict != w.Verdict || rep.Signed != w.Signed || rep.Events != w.Events || rep.FirstBadSeq != w.FirstBadSeq || !maps.Equal(caughtBy(rep), w.Caught) {
		t.Errorf("%s at %d, signed %v, %d events, caught %v; want %s at %d, signed %v, %d events, caught %v\n%v",
			rep.Verdict, rep.FirstBadSeq, rep.Signed, rep.Events, caughtBy(rep), w.Verdict, w.FirstBadSeq, w.Signed, w.Events, w.Caught, rep.Problems)
	}
	if head := lastHash(t, b); head != w.Head {
		t.Errorf("the last record's hash is %s, pinned %s", head, w.Head)
	}
	if rep.Verdict == replay.VerdictFailed {
		return false
	}
	version := strconv.Itoa(projector.StateVersion)
	got := rep.Checks.Refold.StateHash
	pin, ok := w.State[version]
	switch {
	case ok && pin == got:
	case *updateGolden && !ok:
		if w.State == nil {
			w.State = map[string]events.Hash{}
		}
		w.State[version] = got
		return true
	case !ok:
		t.Errorf("no final state is pinned for StateVersion %s: a deliberate change of the state pins it with `make golden`", version)
	default:
		t.Errorf("a fresh fold ends in state %s, but StateVersion %s pinned %s: a change of the rules or the codec rewrites this match's history. If the change of the state is deliberate, bump projector.StateVersion and run `make golden`", got, version, pin)
	}
	return false
}

// roundTrip checks that every record, and every payload at its type's
// current version, decodes and encodes again to exactly its bytes.
func roundTrip(t *testing.T, b *api.Bundle) {
	t.Helper()
	vocab := events.Core()
	for i, raw := range append(slices.Clone(b.Records), b.Reveals...) {
		e, err := events.Unmarshal(raw)
		if err != nil {
			t.Errorf("record %d does not decode: %v", i+1, err)
			continue
		}
		if again := events.Marshal(e); !bytes.Equal(again, raw) {
			t.Errorf("event %d (%s of %s) encodes again to other bytes: the codec changed how history is written\nwas  %x\nnow  %x", e.Seq, e.Type, e.Match, raw, again)
		}
		if mc, ok := decodeCore(e).(*events.MatchCreated); ok {
			r, err := editions.Lookup(mc.Edition)
			if err != nil {
				t.Fatalf("event %d: %v", e.Seq, err)
			}
			vocab = projector.Vocabulary(r)
		}
		p, err := vocab.Decode(e)
		if err != nil {
			t.Errorf("event %d (%s): its payload does not decode: %v", e.Seq, e.Type, err)
			continue
		}
		if e.Version != p.SchemaVersion() {
			continue // upcast from an older schema: written otherwise, by design
		}
		if again, err := events.EncodePayload(p); err != nil || !bytes.Equal(again, e.Payload) {
			t.Errorf("event %d (%s): its payload encodes again to other bytes (%v): a payload type changed how history is written\nwas  %x\nnow  %x", e.Seq, e.Type, err, e.Payload, again)
		}
	}
}

func decodeCore(e events.Event) events.Payload {
	if e.Type != events.TypeMatchCreated {
		return nil
	}
	p, _ := events.Core().Decode(e)
	return p
}

func lastHash(t *testing.T, b *api.Bundle) events.Hash {
	t.Helper()
	if len(b.Records) == 0 {
		return events.Hash{}
	}
	e, err := events.Unmarshal(b.Records[len(b.Records)-1])
	if err != nil {
		t.Fatalf("the last record: %v", err)
	}
	return e.Hash
}

// caughtBy lists the checks that failed and the first event each names.
func caughtBy(r replay.Report) map[string]uint64 {
	var out map[string]uint64
	for _, p := range r.Problems {
		if out == nil {
			out = map[string]uint64{}
		}
		if first, ok := out[p.Check]; !ok || (p.Seq != 0 && (first == 0 || p.Seq < first)) {
			out[p.Check] = p.Seq
		}
	}
	return out
}

func readGolden(t *testing.T, path string) *api.Bundle {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := replay.ReadBundle(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readExpected(t *testing.T, dir string) map[string]goldenExpect {
	t.Helper()
	want := map[string]goldenExpect{}
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if os.IsNotExist(err) {
		return want
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s/expected.json: %v", dir, err)
	}
	return want
}

func writeExpected(t *testing.T, dir string, want map[string]goldenExpect) {
	t.Helper()
	b, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "expected.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The v1 data file, written by the envelope v1 and scheme 1 recorder:
// every match still audits clean from the store, and a recorder of this
// build records on in it.
func TestGoldenV1DataFile(t *testing.T) {
	path := copyFile(t, filepath.Join(goldenDir, "v1", "events.db"))
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	ms, err := st.Matches(ctx)
	if err != nil || len(ms) != 5 {
		t.Fatalf("matches %v %v", ms, err)
	}
	for _, m := range ms {
		rep, err := replay.AuditStore(ctx, st, m.ID, editions.Lookup, nil)
		if err != nil || rep.Verdict != replay.VerdictClean {
			t.Errorf("%s: %v %s %v", m.ID, err, rep.Verdict, rep.Problems)
		}
	}
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	k, _ := auth.GenerateKey("", "")
	req := api.CreateRequest{Match: "new-on-old", MatchCreated: events.MatchCreated{Edition: "3e",
		Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Keys:    map[string]string{"player:alice": k.PublicHex(), "player:bob": k.PublicHex(), "judge": k.PublicHex()}}}
	if _, err := rec.Create(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// rulesRevision is the rules revision a bundle's match was created under.
func rulesRevision(t *testing.T, b *api.Bundle) int {
	t.Helper()
	if len(b.Records) == 0 {
		return 0
	}
	e, err := events.Unmarshal(b.Records[0])
	if err != nil {
		t.Fatal(err)
	}
	var mc events.MatchCreated
	if e.Type != events.TypeMatchCreated || events.DecodeValue(e.Payload, &mc) != nil {
		return 0 // a branch: compared as its parent
	}
	return mc.Rules
}

// The examples and the generated matches are recorded again as their
// goldens were — the same script or seed, a fixed clock and a fixed
// stream of the recorder's randomness — and every record must come out
// byte for byte as it was: a change of the rules' decisions, of the
// recorder or of the codec shows here, at the first event it changes.
func TestGoldenReplaysByteForByte(t *testing.T) {
	for _, g := range replayableGoldens(t) {
		t.Run(g.path, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(goldenDir, g.path)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("no golden history %s (%v): `make golden-record` records it", g.path, err)
			}
			want := readGolden(t, path)
			got := g.bundle(t)
			// A history of an older rules revision is verified and refolded
			// (TestGoldenHistories); this build records the current one.
			if was, now := rulesRevision(t, want), rulesRevision(t, got); was != now {
				t.Skipf("recorded under rules revision %d; this build records revision %d", was, now)
			}
			if len(got.Records) != len(want.Records) {
				t.Errorf("recorded again, the match has %d events; its golden history %d", len(got.Records), len(want.Records))
			}
			for i := range min(len(got.Records), len(want.Records)) {
				if !bytes.Equal(got.Records[i], want.Records[i]) {
					e, _ := events.Unmarshal(got.Records[i])
					w, _ := events.Unmarshal(want.Records[i])
					t.Fatalf("event %d is recorded otherwise: now %s %x, the golden history %s %x", i+1, e.Type, e.Payload, w.Type, w.Payload)
				}
			}
		})
	}
}
