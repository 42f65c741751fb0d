package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
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

// The golden bundles under testdata/golden are what the independent
// verifier (tools/) is checked against, and what keeps old records valid:
// v1 holds bundles and a data file written by the envelope v1 and dice
// scheme 1 recorder; v2 bundles of this one, with expected.json saying
// what a verifier must find in each.

var updateGolden = flag.Bool("update-golden", false, "re-record testdata/golden/v2")

const goldenDir = "../testdata/golden"

// goldenExpect is what a verifier must find in a golden bundle.
type goldenExpect struct {
	Verdict string            `json:"verdict"`
	Signed  bool              `json:"signed"`
	Events  int               `json:"events"`
	Caught  map[string]uint64 `json:"caught,omitempty"` // protection → first event it names
	Note    string            `json:"note"`
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

// Records written before statements, receipts and scheme 2 still verify,
// bundles and data file alike — the branch whose parent revealed a seed
// mid-match too, which failed when epoch numbers of parent and branch
// collided.
func TestGoldenV1StillVerifies(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(goldenDir, "v1", "*.bundle"))
	if len(paths) < 5 {
		t.Fatalf("golden v1 bundles: %v", paths)
	}
	for _, p := range paths {
		rep := replay.VerifyBundle(readGolden(t, p), editions.Lookup, nil)
		if rep.Verdict != replay.VerdictClean || rep.Signed {
			t.Errorf("%s: %s signed=%v %v %v %v %v", filepath.Base(p), rep.Verdict, rep.Signed, rep.Chain.Problems, rep.Dice.Problems, rep.Refold.Problems, rep.Actors.Problems)
		}
	}
	// The data file: every match audits clean from the store too.
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
			t.Errorf("%s: %v %s %v %v", m.ID, err, rep.Verdict, rep.Dice.Problems, rep.Actors.Problems)
		}
	}
	// And a recorder of this build records on in it: a new, signed match.
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup})
	k, _ := auth.GenerateKey("", "")
	req := api.CreateRequest{Match: "new-on-old", MatchCreated: events.MatchCreated{Edition: "3e",
		Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Keys:    map[string]string{"player:alice": k.PublicHex(), "player:bob": k.PublicHex(), "judge": k.PublicHex()}}}
	if _, err := rec.Create(ctx, req); err != nil {
		t.Fatal(err)
	}
}

// The v2 golden bundles verify as expected.json says.
func TestGoldenV2(t *testing.T) {
	dir := filepath.Join(goldenDir, "v2")
	if *updateGolden {
		writeGoldenV2(t, dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]goldenExpect
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 5 {
		t.Fatalf("expected.json lists %d bundles", len(want))
	}
	for name, w := range want {
		rep := replay.VerifyBundle(readGolden(t, filepath.Join(dir, name)), editions.Lookup, nil)
		got := caughtBy(rep)
		if rep.Verdict != w.Verdict || rep.Signed != w.Signed || rep.Events != w.Events || !sameCaught(got, w.Caught) {
			t.Errorf("%s: %s signed=%v events=%d caught %v; want %+v", name, rep.Verdict, rep.Signed, rep.Events, got, w)
		}
	}
}

func sameCaught(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// writeGoldenV2 records the v2 golden bundles: a signed match, the same as
// a token match, a signed branch whose parent reveals a seed mid-match
// after the fork, an unresolved match, and two forgeries.
func writeGoldenV2(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]goldenExpect{}
	write := func(name string, path, match string, note string) {
		t.Helper()
		st, err := bolt.Open(path, bolt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ctx := context.Background()
		in, err := replay.AuditInputs(ctx, st, match)
		if err != nil {
			t.Fatal(err)
		}
		rep := replay.AuditRecords(match, in.Records, editions.Lookup, in.Options)
		var buf bytes.Buffer
		bun := replay.NewBundle(match, in, rep.Refold.StateHash)
		if err := replay.WriteBundle(&buf, bun); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		want[name] = goldenExpect{Verdict: rep.Verdict, Signed: rep.Signed, Events: rep.Events, Caught: caughtBy(rep), Note: note}
	}
	signed, token := recordTamperMatch(t, true), recordTamperMatch(t, false)
	write("signed.bundle", signed.path, tamperMatch, "a signed 3e match: seeds, physical and digital dice, witnesses, the judge's end")
	write("token.bundle", token.path, tamperMatch, "the same match with tokens: statements without signatures (unsigned: the operator is trusted)")
	forgedDie := copyFile(t, signed.path)
	forge(t, forgedDie, setRoll(signed.marks.digital, sameOutcome), rechained, nil)
	write("forged-die.bundle", forgedDie, tamperMatch, "the signed match with one digital die changed and the chain re-computed")
	stripped := copyFile(t, signed.path)
	forge(t, stripped, stripAuth(signed.marks.turn1), rechained, nil)
	write("missing-signature.bundle", stripped, tamperMatch, "the signed match with a statement and signature removed, the chain re-computed")
	branchPath := recordGoldenBranch(t)
	write("branch.bundle", branchPath, "branch", "a signed branch forked after a digital roll; its parent then reveals epoch 0 and opens its own epoch 1 — the branch's epoch 1 is another")
	write("parent.bundle", branchPath, "parent", "the branch's parent")
	write("unresolved.bundle", recordUnresolved(t), "open", "a token match with a contested roll and a dispute, no ruling")
	b, _ := json.MarshalIndent(want, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "expected.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func recordGoldenBranch(t *testing.T) string {
	rec, st, path := newTestRecorder(t)
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

func recordUnresolved(t *testing.T) string {
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
	t    *testing.T
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
