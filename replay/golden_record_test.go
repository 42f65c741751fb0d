package replay_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/script"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/replay/generate"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// How the golden bundles were recorded, and how `make golden-record`
// records one that does not exist yet. v1/ was written by an older
// recorder and can never be recorded again.

// goldenSpec is one golden bundle this build can record.
type goldenSpec struct {
	path  string // under testdata/golden
	match string
	note  string
	// record records the match into a data file and returns its path.
	record func(t testing.TB) string
	// replay: the recording is deterministic (a fixed clock and stream of
	// randomness), so it is recorded again and compared byte for byte.
	replay bool
}

// goldenEditions are the editions with generated golden histories; a new
// edition adds itself here and runs `make golden-record`.
var goldenEditions = []string{"3e", "6e", "11e"}

func goldenSpecs(t testing.TB) []goldenSpec {
	specs := []goldenSpec{
		{path: "v2/signed.bundle", match: tamperMatch, note: "a signed 3e match: seeds, physical and digital dice, witnesses, the judge's end",
			record: func(t testing.TB) string { return recordTamperMatch(t, true).path }},
		{path: "v2/token.bundle", match: tamperMatch, note: "the same match with tokens: statements without signatures (unsigned: the operator is trusted)",
			record: func(t testing.TB) string { return recordTamperMatch(t, false).path }},
		{path: "v2/forged-die.bundle", match: tamperMatch, note: "the signed match with one digital die changed and the chain re-computed",
			record: func(t testing.TB) string {
				m := recordTamperMatch(t, true)
				path := copyFile(t, m.path)
				forge(t, path, setRoll(m.marks.digital, sameOutcome), rechained, nil)
				return path
			}},
		{path: "v2/missing-signature.bundle", match: tamperMatch, note: "the signed match with a statement and signature removed, the chain re-computed",
			record: func(t testing.TB) string {
				m := recordTamperMatch(t, true)
				path := copyFile(t, m.path)
				forge(t, path, stripAuth(m.marks.turn1), rechained, nil)
				return path
			}},
		{path: "v2/branch.bundle", match: "branch", note: "a signed branch forked after a digital roll; its parent then reveals epoch 0 and opens its own epoch 1 — the branch's epoch 1 is another",
			record: recordGoldenBranch},
		{path: "v2/parent.bundle", match: "parent", note: "the branch's parent", record: recordGoldenBranch},
		{path: "v2/unresolved.bundle", match: "open", note: "a token match with a contested roll and a dispute, no ruling", record: recordUnresolved},
		{path: "v3/joined.bundle", match: "joined", replay: true,
			note:   "a match created with join codes: each role joins with its own key; scheme 3 digital dice contributed by every slot, one withheld contribution substituted by the judge; the judge's end",
			record: func(t testing.TB) string { path, _ := recordJoined(t, "joined", false); return path }},
		{path: "v3/one-holder.bundle", match: "one-holder", replay: true,
			note:   "the same match played by one holder of every key (matchrec play --sign): every verdict names the roles it signed for",
			record: func(t testing.TB) string { path, _ := recordJoined(t, "one-holder", true); return path }},
	}
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*.yaml"))
	for _, ex := range examples {
		name := strings.TrimSuffix(filepath.Base(ex), ".yaml")
		specs = append(specs, goldenSpec{path: "examples/" + name + ".bundle", match: name, replay: true,
			note:   "examples/" + filepath.Base(ex) + " played as `matchrec play` plays it (tokens; each player's dice seeds from their token)",
			record: func(t testing.TB) string { return recordExample(t, ex, name) }})
	}
	for _, ed := range goldenEditions {
		for _, manual := range []bool{false, true} {
			dice, seed := "digital", uint64(1)
			if manual {
				dice, seed = "manual", 2
			}
			opts := generate.Options{Edition: ed, Matches: 1, Seed: seed, Workers: 1, MaxTurns: 3, IDPrefix: "golden", Manual: manual, Players: []string{"alice", "bob"}}
			// Not replayed byte for byte: the generator's choices (armies,
			// moves, which rolls are typed in) are not history, and a
			// better generator must not fail the goldens. They are
			// verified, refolded and pinned like every other.
			specs = append(specs, goldenSpec{path: "generated/" + ed + "-" + dice + ".bundle", match: generate.Setup(mustRules(ed), opts, 0).Match, replay: false,
				note:   "generated: a random " + ed + " match autoplayed with " + dice + " dice (generate.Options seed " + itoa(seed) + ", 3 turns)",
				record: func(t testing.TB) string { return recordGenerated(t, opts) }})
		}
	}
	return specs
}

func replayableGoldens(t testing.TB) []replayable {
	var out []replayable
	for _, g := range goldenSpecs(t) {
		if g.replay {
			out = append(out, replayable{g, func(t testing.TB) *api.Bundle { return bundleFrom(t, g.record(t), g.match) }})
		}
	}
	return out
}

type replayable struct {
	goldenSpec
	bundle func(t testing.TB) *api.Bundle
}

// recordMissingGoldens records every golden bundle that does not exist
// yet, and pins every bundle expected.json does not list yet. Nothing
// that exists is written again.
func recordMissingGoldens(t *testing.T) {
	notes := map[string]string{}
	for _, g := range goldenSpecs(t) {
		notes[g.path] = g.note
		path := filepath.Join(goldenDir, g.path)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := replay.WriteBundle(&buf, bundleFrom(t, g.record(t), g.match)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s", g.path)
	}
	dirs, _ := filepath.Glob(filepath.Join(goldenDir, "*"))
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue // README.md
		}
		bundles, _ := filepath.Glob(filepath.Join(dir, "*.bundle"))
		want, added := readExpected(t, dir), false
		for _, path := range bundles {
			name := filepath.Base(path)
			if _, ok := want[name]; ok {
				continue
			}
			b := readGolden(t, path)
			rep := replay.VerifyBundle(b, editions.Lookup, nil)
			w := goldenExpect{Verdict: rep.Verdict, Signed: rep.Signed, Events: rep.Events, Head: lastHash(t, b),
				FirstBadSeq: rep.FirstBadSeq, Caught: caughtBy(rep), Note: notes[filepath.Base(dir)+"/"+name]}
			if rep.Verdict != replay.VerdictFailed {
				w.State = map[string]events.Hash{itoa(projector.StateVersion): rep.Checks.Refold.StateHash}
			}
			want[name], added = w, true
			t.Logf("pinned %s/%s", filepath.Base(dir), name)
		}
		if added {
			writeExpected(t, dir, want)
		}
	}
}

// bundleFrom exports match from a data file as `matchrec export --bundle`
// does, with the state of a fresh fold.
func bundleFrom(t testing.TB, path, match string) *api.Bundle {
	t.Helper()
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in, err := replay.AuditInputs(context.Background(), st, match)
	if err != nil {
		t.Fatal(err)
	}
	rep := replay.AuditRecords(match, in.Records, editions.Lookup, in.Options)
	return replay.NewBundle(match, in, rep.Checks.Refold.StateHash)
}

// goldenRecorder is a recorder whose clock and randomness are fixed: what
// it records depends on the commands alone.
func goldenRecorder(t testing.TB, seed uint64) (*recorder.Recorder, *bolt.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.db")
	st, err := bolt.Open(path, bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var tick atomic.Int64
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var key [32]byte
	copy(key[:], "matchrec golden history "+itoa(seed))
	return recorder.New(st, recorder.Options{Rules: editions.Lookup, Rand: rand.NewChaCha8(key),
		Clock: func() time.Time { return start.Add(time.Duration(tick.Add(1)) * time.Second) }}), st, path
}

// recordExample plays an example script as `matchrec play` does.
func recordExample(t testing.TB, path, match string) string {
	t.Helper()
	sc, err := script.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, st, data := goldenRecorder(t, 1)
	req := api.CreateRequest{Match: match, RequestID: strings.Repeat("0", 31) + "1", Secret: "the golden history of " + match + " (a fixed secret)"}
	if _, err := generate.Script(context.Background(), generate.Direct{Recorder: rec}, editions.Lookup, sc, req); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// recordGenerated records one generated match.
func recordGenerated(t testing.TB, opts generate.Options) string {
	t.Helper()
	rec, st, data := goldenRecorder(t, opts.Seed)
	if _, err := generate.Run(context.Background(), generate.Direct{Recorder: rec}, editions.Lookup, opts); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// branchData is the data file of the branch and its parent, recorded once
// per test: both golden bundles must come from the same recording.
var branchData = map[testing.TB]string{}

func recordGoldenBranch(t testing.TB) string {
	t.Helper()
	if path, ok := branchData[t]; ok {
		return path
	}
	rec, st, path := newTestRecorder(t)
	branchData[t] = path
	ctx := context.Background()
	keys := map[string]*auth.Key{}
	req := duelSetup("parent", 3)
	req.Keys = map[string]string{}
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		k, _ := auth.GenerateKey("", role)
		keys[role], req.Keys[role] = k, k.PublicHex()
	}
	if _, err := rec.Create(ctx, req); err != nil {
		t.Fatal(err)
	}
	p := &signer{t: t, rec: rec, keys: keys}
	p.seed("parent")
	p.do("parent", "player:alice", projector.Command{Type: projector.CmdNextTurn})
	p.do("parent", "player:alice", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	p.do("parent", "player:alice", projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	fork := p.do("parent", "player:alice", projector.Command{Type: projector.CmdRoll, Digital: true}).Events[0].Seq
	// The judge branches right after the first digital roll, with the same keys.
	s, _ := rec.State(ctx, "parent", fork)
	cmd, _ := events.EncodeValue(projector.Command{Type: projector.CmdBranch, At: fork, Match: "branch", Name: "again", Keys: req.Keys})
	stmt := auth.Statement{Match: "parent", HeadSeq: s.Seq, HeadHash: s.Head, Nonce: auth.NewNonce(), Role: "judge", Command: cmd}
	body := stmt.Marshal()
	if _, err := rec.Branch(ctx, api.BranchRequest{Parent: "parent", At: fork, Statement: body, Signature: auth.Sign(keys["judge"].Private, auth.StatementDomain, body)}); err != nil {
		t.Fatal(err)
	}
	// The parent reveals epoch 0 mid-match, seeds its epoch 1 and plays on.
	p.do("parent", "judge", projector.Command{Type: projector.CmdReveal})
	p.finish("parent")
	p.do("parent", "judge", projector.Command{Type: projector.CmdEnd, Winner: "alice", Reason: "time"})
	// The branch plays its own epoch 1.
	p.finish("branch")
	p.do("branch", "judge", projector.Command{Type: projector.CmdEnd, Reason: "what-if done"})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func recordUnresolved(t testing.TB) string {
	t.Helper()
	rec, st, path := newTestRecorder(t)
	ctx := context.Background()
	res, err := rec.Create(ctx, duelSetup("open", 3))
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Tokens["player:alice"], res.Tokens["player:bob"]
	do := func(tok string, c projector.Command) api.Result {
		out, err := rec.Execute(ctx, "open", tok, c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		return out
	}
	do(a, projector.Command{Type: projector.CmdNextTurn})
	do(a, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	do(a, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	hit := do(a, projector.Command{Type: projector.CmdRoll, Values: []int{6, 6, 2, 1}}).Events[0].Seq
	do(b, projector.Command{Type: projector.CmdContest, Event: hit, Reason: "the third die was a 5"})
	do(b, projector.Command{Type: projector.CmdDispute, Event: hit, Reason: "the third die was a 5"})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// signer sends signed commands to any match of a recorder.
type signer struct {
	t    testing.TB
	rec  *recorder.Recorder
	keys map[string]*auth.Key
}

func (p *signer) do(match, role string, c projector.Command) api.Result {
	p.t.Helper()
	s, err := p.rec.Live(context.Background(), match)
	if err != nil {
		p.t.Fatal(err)
	}
	b, _ := events.EncodeValue(c)
	st := auth.Statement{Match: match, HeadSeq: s.Seq, HeadHash: s.Head, Nonce: auth.NewNonce(), Role: role, Command: b}
	body := st.Marshal()
	res, err := p.rec.Submit(context.Background(), api.ExecuteRequest{Match: match, Statement: body, Signature: auth.Sign(p.keys[role].Private, auth.StatementDomain, body)})
	if err != nil {
		p.t.Fatalf("%s %s %+v: %v", match, role, c, err)
	}
	return res
}

func (p *signer) seed(match string) {
	for i := 0; i < 4; i++ {
		s, _ := p.rec.Live(context.Background(), match)
		players := []string{"alice", "bob"}
		sort.Strings(players)
		for _, pl := range players {
			if c, ok := s.SeedCommand(pl, p.keys[events.RolePlayer(pl)].Seed()); ok {
				p.do(match, events.RolePlayer(pl), c)
				break
			}
		}
	}
}

// finish plays the attack in progress (or a new one by the active
// player) with digital dice, seeding first.
func (p *signer) finish(match string) {
	p.seed(match)
	s, _ := p.rec.Live(context.Background(), match)
	if s.Attack == nil {
		next := s.Opponent(s.Active)
		p.do(match, events.RolePlayer(s.Active), projector.Command{Type: projector.CmdNextTurn})
		p.do(match, events.RolePlayer(next), projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
		unit, target := "boyz", "tac"
		if next == "alice" {
			unit, target = target, unit
		}
		p.do(match, events.RolePlayer(next), projector.Command{Type: projector.CmdShoot, Unit: unit, Target: target})
	}
	for s, _ = p.rec.Live(context.Background(), match); s.Attack != nil; s, _ = p.rec.Live(context.Background(), match) {
		role := events.RolePlayer(s.Pending.Player)
		if s.Pending.Kind == projector.WaitCasualties {
			p.do(match, role, projector.Command{Type: projector.CmdCasualties, Models: s.Attack.Eligible[:s.Pending.Count]})
			continue
		}
		p.do(match, role, projector.Command{Type: projector.CmdRoll, Digital: true})
	}
}

// mustRules is edition ed's rules.
func mustRules(ed string) projector.Rules {
	r, err := editions.Lookup(ed)
	if err != nil {
		panic(err)
	}
	return r
}
