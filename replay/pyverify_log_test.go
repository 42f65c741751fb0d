package replay_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/storetest"
)

// Both verifiers check a bundle against the transparency log alike: a
// bundle of version 3 (with the log's proof of its match) as recorded,
// cut, rewritten, downgraded, with a forged or foreign checkpoint, a
// proof of another match, and against a checkpoint the verifier holds
// (the same history, an older one with its consistency proof, two
// histories). Each case: one verdict, one first bad sequence, and both
// name the log check's code the case expects.
func TestVerifiersAgreeOnTheLog(t *testing.T) {
	python, verifier := pythonVerifier(t)
	signed, unsigned := recordTamperMatch(t, true), recordTamperMatch(t, false)
	other, _ := auth.GenerateKey("", "")
	type lcase struct {
		name   string
		m      recordedMatch
		edit   func([]events.Event) []events.Event
		rb     rebuild
		bundle func(*api.Bundle)
		key    ed25519.PublicKey // the key the verifier is given (nil: the recorder's)
		held   func(t *testing.T, m recordedMatch) []byte
		code   string // "" : CLEAN
		seq    uint64
	}
	mk := signed.marks
	cases := []lcase{
		{name: "as recorded, signed", m: signed},
		{name: "as recorded, unsigned", m: unsigned},
		{name: "held: the bundle's own checkpoint", m: signed, held: func(t *testing.T, m recordedMatch) []byte { return []byte(logOf(t, m, nil).Checkpoint) }},
		{name: "held: an older checkpoint, the bundle carries the consistency proof", m: signed,
			bundle: func(b *api.Bundle) {}, held: func(t *testing.T, m recordedMatch) []byte { return []byte(m.receipts[3].Log.Checkpoint) }},
		{name: "the ending cut", m: signed, edit: cutAfter(mk.end - 1), code: "truncated", seq: mk.end},
		{name: "cut after its end", m: signed, edit: cutAfter(mk.end), code: "truncated", seq: mk.end + 1},
		{name: "downgraded", m: signed, edit: downgrade, rb: forged, code: "downgrade", seq: 1},
		{name: "a forged checkpoint", m: signed, code: "bad_checkpoint",
			bundle: func(b *api.Bundle) { b.Log.Checkpoint = strings.Replace(b.Log.Checkpoint, "\n", "\n1", 1) }},
		{name: "another recorder's key", m: signed, key: other.Public(), code: "bad_checkpoint"},
		{name: "a proof of another match", m: signed, code: "foreign_entry", bundle: nil},
		{name: "events the log never acknowledged", m: signed, code: "not_logged", seq: 2,
			bundle: func(b *api.Bundle) { b.Log.Entries = b.Log.Entries[:1] }},
		{name: "held: a checkpoint of another history", m: signed, code: "log_fork",
			held: func(t *testing.T, m recordedMatch) []byte { return forkedCheckpoint(t, m) }},
		{name: "held: an older checkpoint, no consistency proof", m: signed, code: "log_unproven",
			bundle: func(b *api.Bundle) { b.Log.Consistency = nil },
			held:   func(t *testing.T, m recordedMatch) []byte { return []byte(m.receipts[3].Log.Checkpoint) }},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			m.path = copyFile(t, c.m.path)
			if c.edit != nil {
				forge(t, m.path, c.edit, c.rb, nil)
			}
			var held []byte
			if c.held != nil {
				held = c.held(t, m)
			}
			b := bundleOf(t, m)
			b.Version, b.Recorder = api.BundleVersion, hex.EncodeToString(m.recorder)
			b.Log = logOf(t, m, held)
			if c.code == "foreign_entry" {
				b.Log = otherMatchLog(t, m)
			}
			if c.bundle != nil {
				c.bundle(b)
			}
			key := c.key
			if key == nil {
				key = m.recorder
			}
			var buf bytes.Buffer
			if err := replay.WriteBundle(&buf, b); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "case-"+itoa(uint64(i))+".bundle")
			if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"--recorder-key", hex.EncodeToString(key)}
			if held != nil {
				hf := file + ".checkpoint"
				_ = os.WriteFile(hf, held, 0o600)
				args = append(args, "--checkpoint", hf)
			}
			pyRaw := runPython(t, python, verifier, append(args, file)...)
			gr := replay.VerifyBundleLog(readBundle(t, buf.Bytes()), editions.Lookup, nil, &replay.LogInputs{Recorder: key, Held: held})
			goRaw, _ := json.Marshal(gr)
			sameShape(t, pyRaw, goRaw)
			var py report
			_ = json.Unmarshal(pyRaw, &py)
			if py.Verdict != gr.Verdict || py.FirstBadSeq != gr.FirstBadSeq {
				t.Fatalf("Go says %s at %d %v; tools/verify.py says %s at %d %+v", gr.Verdict, gr.FirstBadSeq, gr.Problems, py.Verdict, py.FirstBadSeq, py.Problems)
			}
			if c.code == "" {
				if gr.Verdict != replay.VerdictClean || gr.Checks.Log == nil || !gr.Checks.Log.OK {
					t.Fatalf("%s %v", gr.Verdict, gr.Problems)
				}
				return
			}
			names := func(check, code string, seq uint64) bool {
				for _, p := range py.Problems {
					if p.Check == check && p.Code == code && p.Seq == seq {
						return true
					}
				}
				return false
			}
			goNames := false
			for _, p := range gr.Problems {
				goNames = goNames || (p.Check == "log" && p.Code == c.code && p.Seq == c.seq)
			}
			if !goNames || !names("log", c.code, c.seq) {
				t.Fatalf("want log/%s at %d from both; Go %v; Python %+v", c.code, c.seq, gr.Problems, py.Problems)
			}
		})
	}
}

// logOf is the log's proof of the match in the data file, with a
// consistency proof from the held checkpoint's size.
func logOf(t *testing.T, m recordedMatch, held []byte) *headlog.Proof {
	t.Helper()
	st := openSigned(t, m)
	defer st.Close()
	var from []int64
	if held != nil {
		if cp, err := headlog.Open(held, m.recorder); err == nil {
			from = append(from, cp.Size)
		}
	}
	p, err := replay.ProveMatch(context.Background(), st, tamperMatch, 0, from)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// otherMatchLog is the log's proof of another match of the same log.
func otherMatchLog(t *testing.T, m recordedMatch) *headlog.Proof {
	t.Helper()
	st := openSigned(t, m)
	defer st.Close()
	ctx := context.Background()
	if _, err := st.AppendLogged(ctx, "other", 0, storetest.MakeEvents("other", 1, events.Hash{}, 2), nil, nil); err != nil {
		t.Fatal(err)
	}
	p, err := replay.ProveMatch(ctx, st, "other", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// forkedCheckpoint is a checkpoint of a log of the same size as the
// data file's with one entry changed, signed with the recorder's key.
func forkedCheckpoint(t *testing.T, m recordedMatch) []byte {
	t.Helper()
	m.path = copyFile(t, m.path)
	forge(t, m.path, setRoll(m.marks.wound, func(r *events.DiceRolled) { r.Values[0] = 5 }), rechained, nil)
	relog(t, m)
	return []byte(logOf(t, m, nil).Checkpoint)
}
