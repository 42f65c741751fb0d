package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
)

// judged is a match with physical dice the judge rules on: Alice shoots
// (hit, wound, save, casualties), then disputes and rulings as each test
// makes them.
type judged struct {
	t    *testing.T
	ps   *participants
	path string
	st   *bolt.Store
	hit  uint64 // alice's hit roll: 2 models × 2 shots, 4 1 6 2 (2 hits)
}

func newJudged(t *testing.T) *judged {
	t.Helper()
	rec, st, path := newTestRecorder(t)
	created, err := rec.Create(context.Background(), duelSetup(tamperMatch, 6))
	if err != nil {
		t.Fatal(err)
	}
	j := &judged{t: t, ps: &participants{t: t, rec: rec, tokens: created.Tokens}, path: path, st: st}
	j.ps.do("player:alice", projector.Command{Type: projector.CmdNextTurn})
	j.ps.do("player:alice", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	j.ps.do("player:alice", projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	j.hit = j.roll("alice", 4, 1, 6, 2)
	j.roll("alice", 5, 5) // 2 wounds
	j.roll("bob", 1, 1)   // no save
	j.do("player:bob", projector.Command{Type: projector.CmdCasualties, Models: j.live().Attack.Eligible[:2]})
	return j
}

func (j *judged) live() *projector.State {
	s, err := j.ps.rec.Live(context.Background(), tamperMatch)
	if err != nil {
		j.t.Fatal(err)
	}
	return s
}

func (j *judged) do(role string, c projector.Command) uint64 {
	j.t.Helper()
	return j.ps.do(role, c).Events[0].Seq
}

func (j *judged) roll(player string, values ...int) uint64 {
	j.t.Helper()
	return j.do(events.RolePlayer(player), projector.Command{Type: projector.CmdRoll, Values: values})
}

func (j *judged) dispute(event uint64, reason string) uint64 {
	j.t.Helper()
	return j.do("player:bob", projector.Command{Type: projector.CmdDispute, Event: event, Reason: reason})
}

func (j *judged) rule(dispute uint64, decision string, values ...int) uint64 {
	j.t.Helper()
	return j.do("judge", projector.Command{Type: projector.CmdRule, Dispute: dispute, Decision: decision, Values: values})
}

func (j *judged) events() []events.Event {
	j.t.Helper()
	var evs []events.Event
	if err := j.st.Scan(context.Background(), tamperMatch, 1, func(e events.Event) error { evs = append(evs, e); return nil }); err != nil {
		j.t.Fatal(err)
	}
	return evs
}

func (j *judged) audit() replay.Report {
	j.t.Helper()
	rep, err := replay.AuditStore(context.Background(), j.st, tamperMatch, editions.Lookup, nil)
	if err != nil {
		j.t.Fatal(err)
	}
	return rep
}

// Two rulings on one roll, the disputes ruled in the other order than
// they were raised: every reader — the fold, a fold resumed from a
// snapshot, the state, the audit, the explanation of the roll and the
// log's marks — shows the ruling made last as the one in force, and the
// earlier one as replaced by it.
func TestTheRulingInForceIsTheLastEverywhere(t *testing.T) {
	// Raised and ruled in turn (the case: audit --roll showed the
	// first ruling), and ruled in the other order (a fold resumed from a
	// snapshot took the ruling of the dispute raised last).
	for _, reverse := range []bool{false, true} {
		name := map[bool]string{false: "in turn", true: "in reverse"}[reverse]
		t.Run(name, func(t *testing.T) { testInForce(t, reverse) })
	}
}

func testInForce(t *testing.T, reverse bool) {
	j := newJudged(t)
	contest := j.do("player:bob", projector.Command{Type: projector.CmdContest, Event: j.hit, Reason: "cocked die"})
	var first, second, early, inForce uint64 // first: the dispute whose ruling is in force; second: the one replaced
	if reverse {
		first = j.dispute(j.hit, "I saw a 5")
		second = j.dispute(j.hit, "the 2 was a 6")
		early = j.rule(second, events.RulingAmend, 4, 6, 6, 2)  // 3 hits
		inForce = j.rule(first, events.RulingAmend, 5, 1, 6, 5) // 3 hits, other dice: the one in force
	} else {
		second = j.dispute(j.hit, "the 2 was a 6")
		early = j.rule(second, events.RulingAmend, 4, 6, 6, 2)
		first = j.dispute(j.hit, "I saw a 5")
		inForce = j.rule(first, events.RulingAmend, 5, 1, 6, 5)
	}
	evs := j.events()

	s := j.live()
	d := s.InForce(j.hit)
	if d == nil || d.Ruling != inForce || !slices.Equal(d.Values, []int{5, 1, 6, 5}) {
		t.Fatalf("in force on event %d: %+v, want ruling %d", j.hit, d, inForce)
	}
	if old := s.Dispute(second); old.Superseded != inForce {
		t.Errorf("the earlier ruling is not marked replaced: %+v", old)
	}
	if m := manualRoll(s, j.hit); m.Settled != early || m.Witness != "bob" || m.By != contest || m.Unsettled() {
		t.Errorf("the contest is not settled by the first ruling after it: %+v", m)
	}

	// A fold resumed from this state (a snapshot) that meets a later
	// ruling folds again from event 1 under the ruling in force, exactly
	// as a fold from event 1 does.
	third := j.dispute(j.hit+1, "the wound dice rolled off the table")
	j.rule(third, events.RulingVoid)
	all := j.events()
	whole := fold.NewFolder(tamperMatch, editions.Lookup)
	for _, e := range all {
		if err := whole.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	f := fold.NewFolder(tamperMatch, editions.Lookup)
	full := fold.NewFolder(tamperMatch, editions.Lookup)
	for _, e := range evs {
		if err := full.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	kept := all
	f.Reread = fold.FromEvents(kept)
	f.Resume(full.State.Clone(), full.Rules)
	for _, e := range kept[len(evs):] {
		if err := f.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	wh, _ := whole.State.Hash()
	if rh, _ := f.State.Hash(); rh != wh {
		t.Errorf("a resumed fold reads event %d under another ruling than a fold from event 1", j.hit)
	}

	// The audit.
	rep := j.audit()
	if rep.Verdict != replay.VerdictClean {
		t.Fatalf("verdict %s: %+v", rep.Verdict, rep.Unresolved)
	}
	for _, rd := range rep.Disputes {
		switch rd.Seq {
		case first:
			if !rd.InForce || rd.Superseded != 0 || !strings.Contains(rd.Effect, "4 1 6 2 → 5 1 6 5") {
				t.Errorf("audit: the ruling in force: %+v", rd)
			}
		case second:
			if rd.InForce || rd.Superseded != inForce {
				t.Errorf("audit: the replaced ruling: %+v", rd)
			}
		}
	}
	if rm := rep.ManualRolls[slices.IndexFunc(rep.ManualRolls, func(m replay.ManualRoll) bool { return m.Seq == j.hit })]; rm.Settled != early || rm.Witness != "bob" {
		t.Errorf("audit: the contested roll %+v", rm)
	}

	// audit --roll: the ruling in force, and the history.
	x, err := replay.Explain(tamperMatch, evs, nil, editions.Lookup, j.hit)
	if err != nil {
		t.Fatal(err)
	}
	if x.Ruled == nil || x.Ruled.Ruling != inForce || !slices.Equal(x.Ruled.Values, []int{5, 1, 6, 5}) || x.Ruled.Successes != 3 {
		t.Errorf("explained as ruled: %+v, want ruling %d's dice", x.Ruled, inForce)
	}
	if len(x.Rulings) != 2 || x.Rulings[0].Ruling != early || x.Rulings[0].Superseded != inForce || !x.Rulings[1].InForce {
		t.Errorf("the history of rulings: %+v", x.Rulings)
	}

	// The log's marks: the ruling in force first, the replaced one after.
	views, _, err := replay.Tell(editions.Lookup, fold.FromEvents(evs), j.hit, j.hit, 0)
	if err != nil {
		t.Fatal(err)
	}
	marks := views[0].Marks
	if len(marks) != 2 || !strings.HasPrefix(marks[0], "AMENDED by ruling "+itoa(inForce)) ||
		!strings.HasPrefix(marks[1], "replaced by ruling "+itoa(inForce)+": amended by ruling "+itoa(early)) {
		t.Errorf("marks %q", marks)
	}
	if w := views[0].Witness; !strings.Contains(w, "settled by ruling "+itoa(early)) || strings.Contains(w, "CONTESTED") {
		t.Errorf("witness %q", w)
	}
}

// A contest made after the roll was ruled on is not settled by that
// ruling: the audit (both verifiers) is UNRESOLVED, and the state shows
// it contested, until a ruling after it.
func TestAContestAfterARulingAwaitsANewOne(t *testing.T) {
	python, verifier := pythonVerifier(t)
	j := newJudged(t)
	j.rule(j.dispute(j.hit, "too quick"), events.RulingUphold)
	contest := j.do("player:bob", projector.Command{Type: projector.CmdContest, Event: j.hit, Reason: "cocked die"})
	check := func(want string) {
		t.Helper()
		rep := j.audit()
		unresolved := slices.ContainsFunc(rep.Unresolved, func(u replay.Unresolved) bool { return u.Seq == j.hit && u.Code == "contested" })
		if rep.Verdict != want || unresolved != (want == replay.VerdictUnresolved) {
			t.Errorf("audit %s %+v, want %s", rep.Verdict, rep.Unresolved, want)
		}
		in, err := replay.AuditInputs(context.Background(), j.st, tamperMatch)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := replay.WriteBundle(&buf, replay.NewBundle(tamperMatch, in, events.Hash{})); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "m.bundle")
		if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		var py report
		if err := json.Unmarshal(runPython(t, python, verifier, file), &py); err != nil {
			t.Fatal(err)
		}
		if py.Verdict != want {
			t.Errorf("tools/verify.py: %s %+v, want %s", py.Verdict, py.Unresolved, want)
		}
	}
	check(replay.VerdictUnresolved)
	if m := manualRoll(j.live(), j.hit); !m.Unsettled() || m.By != contest {
		t.Errorf("state: %+v", m)
	}
	settle := j.rule(j.dispute(j.hit, "cocked die"), events.RulingUphold)
	check(replay.VerdictClean)
	if m := manualRoll(j.live(), j.hit); m.Unsettled() || m.Settled != settle {
		t.Errorf("state after the ruling: %+v", m)
	}
}

// Only play may be disputed: a dice seed's commitment, a witness, a
// dispute or a ruling is refused with not_disputable, and nothing is
// recorded.
func TestOnlyPlayIsDisputable(t *testing.T) {
	j := newJudged(t)
	disp := j.dispute(j.hit, "I saw a 5")
	rule := j.rule(disp, events.RulingUphold)
	var commit uint64
	for _, e := range j.events() {
		if e.Type == events.TypeDiceCommitted && commit == 0 {
			commit = e.Seq
		}
	}
	for _, seq := range []uint64{1, commit, disp, rule} {
		before := j.live().Seq
		_, err := j.ps.rec.Execute(context.Background(), tamperMatch, j.ps.tokens[api.RolePlayer("bob")],
			projector.Command{Type: projector.CmdDispute, Event: seq, Reason: "no"})
		r, ok := projector.AsRefusal(err)
		if !ok || r.Code != projector.CodeNotDisputable || !strings.Contains(r.Reason, "event "+itoa(seq)) {
			t.Errorf("a dispute of event %d: %v, want not_disputable naming it", seq, err)
		}
		if j.live().Seq != before {
			t.Errorf("the refused dispute of event %d recorded something", seq)
		}
	}
}

func manualRoll(s *projector.State, seq uint64) projector.ManualRoll {
	for _, m := range s.Dice.Manual {
		if m.Seq == seq {
			return m
		}
	}
	return projector.ManualRoll{}
}

// The ruling record of a signed match: each dispute with the disputed
// roll, its witnesses and its ruling, what the ruling changed on the
// board, and every signature checked against its role's key.
func TestTheRulingRecordHasTheEvidenceAndTheSignatures(t *testing.T) {
	rec, st, _ := newTestRecorder(t)
	req := duelSetup(tamperMatch, 6)
	ps := &participants{t: t, rec: rec, keys: map[string]*auth.Key{}}
	req.Keys = map[string]string{}
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		k, _ := auth.GenerateKey(tamperMatch, role)
		ps.keys[role], req.Keys[role] = k, k.PublicHex()
	}
	if _, err := rec.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	j := &judged{t: t, ps: ps, st: st}
	j.do("player:alice", projector.Command{Type: projector.CmdNextTurn})
	j.do("player:alice", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	j.do("player:alice", projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	j.hit = j.roll("alice", 4, 1, 6, 2)
	contest := j.do("player:bob", projector.Command{Type: projector.CmdContest, Event: j.hit, Reason: "cocked die"})
	disp := j.dispute(j.hit, "I saw a 5")
	ruling := j.rule(disp, events.RulingAmend, 1, 1, 1, 1) // no hits: the attack is over
	open := j.dispute(j.hit, "and again")
	evs := j.events()
	r, err := replay.RecordRulings(tamperMatch, evs, nil, editions.Lookup, j.audit())
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != replay.VerdictUnresolved || !r.Signed || len(r.Disputes) != 2 || r.Head != evs[len(evs)-1].Hash {
		t.Fatalf("record: verdict %s signed %v %d disputes", r.Verdict, r.Signed, len(r.Disputes))
	}
	d := r.Disputes[0]
	if d.Dispute.Seq != disp || d.Reason != "I saw a 5" || d.Event.Seq != j.hit || d.Roll == nil || d.Roll.Need != 3 ||
		len(d.Witnesses) != 1 || d.Witnesses[0].Seq != contest {
		t.Fatalf("the evidence: %+v", d)
	}
	ru := d.Ruling
	if ru == nil || ru.Seq != ruling || !ru.InForce || !strings.Contains(ru.Effect, "4 1 6 2 → 1 1 1 1") {
		t.Fatalf("the ruling: %+v", ru)
	}
	pend := slices.IndexFunc(ru.Board, func(c replay.BoardChange) bool { return c.What == "the match waits for" })
	if pend < 0 || !strings.Contains(ru.Board[pend].After, "declares") {
		t.Errorf("what the ruling changed on the board: %+v", ru.Board)
	}
	for _, s := range []replay.Said{d.Dispute, d.Witnesses[0], ru.Said} {
		want := req.Keys[s.Role]
		if !s.Verified || s.Key != want || len(s.Signature) != 128 {
			t.Errorf("event %d: signed %q key %s verified %v, want %s's key %s", s.Seq, s.Signature, s.Key, s.Verified, s.Role, want)
		}
	}
	if d2 := r.Disputes[1]; d2.Dispute.Seq != open || d2.Ruling != nil {
		t.Errorf("the open dispute: %+v", d2)
	}
}
