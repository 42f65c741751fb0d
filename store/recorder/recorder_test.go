package recorder

import (
	"context"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/projector/sim"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/mem"
)

func newRecorder(t *testing.T) *Recorder {
	t.Helper()
	clock := time.Unix(1700000000, 0)
	return New(mem.New(), Options{
		Clock: func() time.Time { clock = clock.Add(time.Second); return clock },
		Rules: editions.Lookup,
	})
}

func fixture() api.CreateRequest {
	model := func(id string, x float64) events.ModelSpec {
		return events.ModelSpec{ID: id, BS: 4, T: 4, W: 1, Sv: 4, Height: 1.5, BaseMM: 25, X: x, Y: 10, Weapons: []string{"bg"}}
	}
	gun := []events.WeaponSpec{{ID: "bg", Name: "boltgun", Range: 24, Type: "assault", Shots: 1, S: 4}}
	return api.CreateRequest{Match: "m1", MatchCreated: events.MatchCreated{
		Edition: "3e",
		Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Units: []events.UnitSpec{
			{ID: "tac", Player: "alice", Weapons: gun, Models: []events.ModelSpec{model("t1", 10), model("t2", 11)}},
			{ID: "boyz", Player: "bob", Weapons: gun, Models: []events.ModelSpec{model("b1", 20), model("b2", 21)}},
		},
	}}
}

// started records the fixture and takes alice to her shooting phase.
func started(t *testing.T, r *Recorder) api.CreateResult {
	t.Helper()
	ctx := context.Background()
	res, err := r.Create(ctx, fixture())
	if err != nil {
		t.Fatal(err)
	}
	a := res.Tokens[api.RolePlayer("alice")]
	for _, c := range []projector.Command{{Type: projector.CmdNextTurn}, {Type: projector.CmdPhase, Phase: projector.PhaseShooting}} {
		if _, err := r.Execute(ctx, "m1", a, c); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

func TestCreateCommitsToADiceSeed(t *testing.T) {
	r := newRecorder(t)
	res := started(t, r)
	if len(res.Tokens) != 3 {
		t.Fatalf("tokens %v", res.Tokens)
	}
	s, err := r.State(context.Background(), "m1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Dice.Commits) != 1 || len(s.Dice.Commits[0].Commit) != 64 {
		t.Fatalf("commit %+v", s.Dice)
	}
	seed, err := r.st.(store.Secrets).Secret(context.Background(), "m1", 0)
	if err != nil || !dice.CheckCommit(seed, s.Dice.Commits[0].Commit) {
		t.Fatalf("stored seed does not match the commitment: %v", err)
	}
	if _, err := r.Create(context.Background(), fixture()); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second create of m1: %v", err)
	}
	seed2, _ := r.st.(store.Secrets).Secret(context.Background(), "m1", 0)
	if hex.EncodeToString(seed) != hex.EncodeToString(seed2) {
		t.Fatal("a refused create overwrote the match's secret seed")
	}
}

func TestTokensDecideTheActor(t *testing.T) {
	r := newRecorder(t)
	res := started(t, r)
	ctx := context.Background()
	shoot := projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"}
	before, _ := r.st.Head(ctx, "m1")
	for _, tok := range []string{"", "not-a-token", res.Tokens[api.RolePlayer("bob")], res.Tokens[api.RoleJudge]} {
		_, err := r.Execute(ctx, "m1", tok, shoot)
		if err == nil {
			t.Fatalf("token %q may declare for alice", tok)
		}
	}
	after, _ := r.st.Head(ctx, "m1")
	if after != before {
		t.Fatal("a refused declaration was recorded")
	}
	if _, err := r.Execute(ctx, "m1", res.Tokens[api.RolePlayer("alice")], shoot); err != nil {
		t.Fatal(err)
	}
}

// seeds has each player commit, then reveal, their seed of the current
// epoch, as their CLI does, and returns what the epoch waits for after.
func seeds(t *testing.T, r *Recorder, match string, tokens map[string]string) {
	t.Helper()
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		for _, p := range []string{"alice", "bob"} {
			s, _ := r.State(ctx, match, 0)
			if c, ok := s.SeedCommand(p, []byte("secret of "+p)); ok {
				if _, err := r.Execute(ctx, match, tokens[api.RolePlayer(p)], c); err != nil {
					t.Fatalf("%s %s: %v", p, c.Type, err)
				}
			}
		}
	}
}

func TestDigitalDiceAreDerivedFromEveryPartysSeed(t *testing.T) {
	r := newRecorder(t)
	res := started(t, r)
	ctx := context.Background()
	a := res.Tokens[api.RolePlayer("alice")]
	if _, err := r.Execute(ctx, "m1", a, projector.Command{Type: projector.CmdSeed, Seed: "bob's lucky seed"}); err == nil {
		t.Fatal("a free player seed (scheme 1) was taken")
	}
	if _, err := r.Execute(ctx, "m1", a, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"}); err != nil {
		t.Fatal(err)
	}
	// No digital roll before every player committed and revealed.
	if _, err := r.Execute(ctx, "m1", a, projector.Command{Type: projector.CmdRoll, Digital: true}); api.CodeOf(err) != projector.CodeSeedsPending {
		t.Fatalf("a digital roll before the seeds: %v", err)
	}
	// A reveal before every commitment is refused, and a second commitment.
	s, _ := r.State(ctx, "m1", 0)
	commit, _ := s.SeedCommand("alice", []byte("secret of alice"))
	if _, err := r.Execute(ctx, "m1", a, commit); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(ctx, "m1", a, commit); api.CodeOf(err) != projector.CodeWrongStep {
		t.Fatalf("a second commitment: %v", err)
	}
	s, _ = r.State(ctx, "m1", 0)
	reveal := projector.Command{Type: projector.CmdSeedReveal, Epoch: 0, Seed: hex.EncodeToString(dice.DerivePlayerSeed([]byte("secret of alice"), s.Dice.Current().ID(), "alice"))}
	if _, err := r.Execute(ctx, "m1", a, reveal); api.CodeOf(err) != projector.CodeWrongStep {
		t.Fatalf("a reveal before bob committed: %v", err)
	}
	seeds(t, r, "m1", res.Tokens)
	out, err := r.Execute(ctx, "m1", a, projector.Command{Type: projector.CmdRoll, Digital: true})
	if err != nil {
		t.Fatal(err)
	}
	seq := out.Events[0].Seq
	var roll *events.DiceRolled
	_ = r.st.Scan(ctx, "m1", seq, func(e events.Event) error {
		p, _ := events.Core().Decode(e)
		roll = p.(*events.DiceRolled)
		return events.ErrStop
	})
	if roll.Source != events.SourceDigital || roll.Count != 2 {
		t.Fatalf("roll %+v", roll)
	}
	// The judge has the seed revealed mid-match; a fresh epoch opens,
	// which the players seed again.
	if _, err := r.Execute(ctx, "m1", a, projector.Command{Type: projector.CmdReveal}); err == nil {
		t.Fatal("a player revealed the seed")
	}
	if _, err := r.Execute(ctx, "m1", res.Tokens[api.RoleJudge], projector.Command{Type: projector.CmdReveal}); err != nil {
		t.Fatal(err)
	}
	s, _ = r.State(ctx, "m1", 0)
	if len(s.Dice.Commits) != 2 || s.Dice.Commits[0].Seed == "" || s.Dice.Commits[1].Seed != "" || s.Dice.Epoch != 1 {
		t.Fatalf("dice after reveal %+v", s.Dice)
	}
	if due, _ := s.SeedDue("alice"); due != projector.SeedCommitDue {
		t.Fatalf("the new epoch does not ask alice for a seed: %q", due)
	}
	ep := &s.Dice.Commits[0]
	seed, _ := hex.DecodeString(ep.Seed)
	players, err := ep.Seeds()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := dice.DeriveV2(seed, ep.ID(), players, seq, 2)
	if want[0] != roll.Values[0] || want[1] != roll.Values[1] {
		t.Fatalf("recorded %v, derived %v", roll.Values, want)
	}
	// Ending the match reveals the current seed, in the same append.
	end, err := r.Execute(ctx, "m1", res.Tokens[api.RoleJudge], projector.Command{Type: projector.CmdEnd})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(end.Events); n != 2 || end.Events[1].Type != events.TypeDiceRevealed {
		t.Fatalf("end recorded %+v", end.Events)
	}
	s, _ = r.State(ctx, "m1", 0)
	if !s.Ended || s.Dice.Commits[1].Seed == "" {
		t.Fatalf("end of match must reveal the seed: %+v", s.Dice)
	}
}

func TestRulingsChangeTheStateAsRuledOnly(t *testing.T) {
	r := newRecorder(t)
	res := started(t, r)
	ctx := context.Background()
	a, b, j := res.Tokens[api.RolePlayer("alice")], res.Tokens[api.RolePlayer("bob")], res.Tokens[api.RoleJudge]
	do := func(tok string, c projector.Command) api.Result {
		t.Helper()
		out, err := r.Execute(ctx, "m1", tok, c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		return out
	}
	do(a, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	hit := do(a, projector.Command{Type: projector.CmdRoll, Values: []int{1, 1}}).Events[0].Seq
	// Bob saw a 5 and a 6: he contests, then disputes; a spectator cannot.
	if _, err := r.Execute(ctx, "m1", a, projector.Command{Type: projector.CmdConfirm, Event: hit}); err == nil {
		t.Fatal("the roller confirmed his own roll")
	}
	do(b, projector.Command{Type: projector.CmdContest, Event: hit, Reason: "I saw a 5 and a 6"})
	if _, err := r.Execute(ctx, "m1", "", projector.Command{Type: projector.CmdDispute, Event: hit, Reason: "x"}); api.CodeOf(err) != projector.CodeUnauthorized {
		t.Fatalf("spectator dispute: %v", err)
	}
	if _, err := r.Execute(ctx, "m1", j, projector.Command{Type: projector.CmdDispute, Event: hit, Reason: "x"}); err == nil {
		t.Fatal("the judge raised a dispute")
	}
	disp := do(b, projector.Command{Type: projector.CmdDispute, Event: hit, Reason: "I saw a 5 and a 6"}).Events[0].Seq
	if _, err := r.Execute(ctx, "m1", b, projector.Command{Type: projector.CmdRule, Dispute: disp, Decision: "amend", Values: []int{5, 6}}); err == nil {
		t.Fatal("a player ruled")
	}
	headBefore, _ := r.st.Head(ctx, "m1")
	do(j, projector.Command{Type: projector.CmdRule, Dispute: disp, Decision: "amend", Values: []int{5, 6}})
	ruled, _ := r.State(ctx, "m1", 0)
	if ruled.Pending.Purpose != "wound" || ruled.Pending.Dice != 2 {
		t.Fatalf("as ruled the two hits stand: pending %+v", ruled.Pending)
	}
	// Nothing was erased: every event up to the ruling is as it was.
	n := 0
	_ = r.st.Scan(ctx, "m1", 1, func(e events.Event) error { n++; return nil })
	if uint64(n) != headBefore.Seq+1 {
		t.Fatalf("%d events stored, want %d", n, headBefore.Seq+1)
	}
	if m := ruled.Dice.Manual; len(m) != 1 || m[0].Status != projector.RollContested {
		t.Fatalf("witness state %+v", m)
	}
	if d := ruled.Disputes; len(d) != 1 || d[0].Decision != "amend" {
		t.Fatalf("disputes %+v", d)
	}
	// Play goes on from the ruled state.
	do(a, projector.Command{Type: projector.CmdRoll, Values: []int{6, 6}})
}

// Replay equals live: autoplayed matches in every edition, recorded through
// the recorder with digital dice; the live state the recorder decides
// against hashes the same as a fresh fold of the stored events.
func TestLiveEqualsFold(t *testing.T) {
	ctx := context.Background()
	for _, ed := range editions.IDs() {
		for seed := uint64(1); seed <= 3; seed++ {
			r := newRecorder(t)
			rules, _ := editions.Lookup(ed)
			setup := sim.RandomMatch(rules, rand.New(rand.NewPCG(seed, 3)))
			res, err := r.Create(ctx, api.CreateRequest{Match: "live", MatchCreated: setup})
			if err != nil {
				t.Fatal(err)
			}
			ap := &sim.Autoplay{Rules: rules, Dice: sim.NewDice(seed), MaxTurns: 3, Digital: true}
			for i := 0; i < 3000; i++ {
				live, err := r.Live(ctx, "live")
				if err != nil {
					t.Fatal(err)
				}
				actor, c, done := ap.Next(live)
				if done {
					break
				}
				tok := res.Tokens[api.RoleJudge]
				if actor.Kind == events.ActorPlayer {
					tok = res.Tokens[api.RolePlayer(actor.ID)]
				}
				if _, err := r.Execute(ctx, "live", tok, c); err != nil {
					t.Fatalf("%s seed %d: %+v: %v", ed, seed, c, err)
				}
			}
			live, _ := r.Live(ctx, "live")
			folded, _, err := fold.Fold(ctx, r.st, "live", 0, editions.Lookup)
			if err != nil {
				t.Fatal(err)
			}
			lh, _ := live.Hash()
			fh, _ := folded.Hash()
			t.Logf("%s seed %d: %d events, turn %d", ed, seed, live.Seq, live.Turn)
			if lh != fh || !live.Ended {
				t.Fatalf("%s seed %d: live state (ended=%v) differs from the fold", ed, seed, live.Ended)
			}
			// The audit of such matches (digital dice recomputed from the
			// revealed seed) is replay's: TestRecordedMatchesOfEveryEditionAuditClean.
		}
	}
}
