package recorder

import (
	"context"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
	"github.com/matchrec/matchrec/store/api"
)

// joiner is a participant of a join-code match: the code it was given and
// the key it made.
type joiner struct {
	role, code string
	key        *auth.Key
}

func (j *joiner) vrf() *dice.VRFKey { return dice.VRFKeyFromSeed(j.key.Seed()) }

// joinedMatch creates the fixture with join codes and returns each role's
// joiner, none joined yet.
func joinedMatch(t *testing.T, r *Recorder) map[string]*joiner {
	t.Helper()
	req := fixture()
	req.Joins = map[string]string{}
	js := map[string]*joiner{}
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		k, _ := auth.GenerateKey("m1", role)
		j := &joiner{role: role, code: "m1:" + role + ":" + hex.EncodeToString(k.Seed()[:16]), key: k}
		js[role], req.Joins[role] = j, projector.JoinHash(j.code)
	}
	res, err := r.Create(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tokens) != 0 {
		t.Fatalf("a join-code match has tokens: %v", res.Tokens)
	}
	return js
}

func (j *joiner) join(t *testing.T, r *Recorder, vrf bool) (api.Result, error) {
	t.Helper()
	c := projector.Command{Type: projector.CmdJoin, JoinCode: j.code, Key: j.key.PublicHex()}
	if vrf {
		c.VRF = j.vrf().PublicHex()
	}
	return r.Submit(context.Background(), signed(t, r, j.key, j.role, c))
}

func (j *joiner) do(t *testing.T, r *Recorder, c projector.Command) (api.Result, error) {
	t.Helper()
	return r.Submit(context.Background(), signed(t, r, j.key, j.role, c))
}

// contribution is j's contribution to the open request.
func (j *joiner) contribution(t *testing.T, r *Recorder) projector.Command {
	t.Helper()
	s, _ := r.Live(context.Background(), "m1")
	req := s.Dice.Request
	if req == nil {
		t.Fatal("no open request")
	}
	return projector.Command{Type: projector.CmdContribute, Event: req.Seq, Proof: hex.EncodeToString(j.vrf().Prove(req.Alpha(j.role)))}
}

// A join-code match takes only joins until every role has joined; a code
// is used once; then a digital roll is asked for, waits for every
// player's contribution (the match takes nothing else meanwhile), and is
// drawn in the append of the last, with the recorder's own.
func TestJoinsAndContributedDice(t *testing.T) {
	r := newRecorder(t)
	ctx := context.Background()
	js := joinedMatch(t, r)
	alice, bob, judge := js["player:alice"], js["player:bob"], js["judge"]
	next := projector.Command{Type: projector.CmdNextTurn}
	if _, err := alice.join(t, r, true); err != nil {
		t.Fatal(err)
	}
	// Every refusal below records nothing.
	unchanged := func(what string, before uint64) {
		t.Helper()
		if h := head(t, r).Seq; h != before {
			t.Fatalf("%s recorded events %d..%d", what, before+1, h)
		}
	}
	joinedAt := head(t, r).Seq
	if _, err := alice.do(t, r, next); api.CodeOf(err) != projector.CodeNotStarted {
		t.Fatalf("a command before every role joined: %v", err)
	}
	if _, err := alice.join(t, r, true); api.CodeOf(err) != projector.CodeJoinUsed {
		t.Fatalf("a join code used twice: %v", err)
	}
	wrong := *bob
	wrong.code = alice.code
	if _, err := wrong.join(t, r, true); api.CodeOf(err) != projector.CodeBadJoinCode {
		t.Fatalf("another role's code: %v", err)
	}
	if _, err := bob.join(t, r, false); api.CodeOf(err) != projector.CodeBadCommand {
		t.Fatalf("a player's join without a VRF key: %v", err)
	}
	forged := *bob
	forged.key, _ = auth.GenerateKey("", "")
	c := projector.Command{Type: projector.CmdJoin, JoinCode: bob.code, Key: bob.key.PublicHex(), VRF: bob.vrf().PublicHex()}
	if _, err := r.Submit(ctx, signed(t, r, forged.key, bob.role, c)); api.CodeOf(err) != projector.CodeBadSignature {
		t.Fatalf("a join not signed by the key it names: %v", err)
	}
	unchanged("the refused joins and commands", joinedAt)
	for _, j := range []*joiner{bob, judge} {
		if _, err := j.join(t, r, j != judge); err != nil {
			t.Fatal(err)
		}
	}
	started := head(t, r).Seq
	if _, err := judge.join(t, r, false); api.CodeOf(err) != projector.CodeJoinUsed {
		t.Fatalf("a join after the match started: %v", err)
	}
	unchanged("a join after the start", started)
	for _, c := range []projector.Command{next, {Type: projector.CmdPhase, Phase: projector.PhaseShooting}, {Type: projector.CmdShoot, Unit: "tac", Target: "boyz"}} {
		if _, err := alice.do(t, r, c); err != nil {
			t.Fatal(err)
		}
	}
	asked, err := alice.do(t, r, projector.Command{Type: projector.CmdRoll, Digital: true})
	if err != nil || len(asked.Events) != 1 || asked.Events[0].Type != events.TypeDiceRequested {
		t.Fatalf("the digital roll: %+v %v", asked, err)
	}
	reqSeq := asked.Events[0].Seq
	if _, err := bob.do(t, r, next); api.CodeOf(err) != projector.CodeContributionPending {
		t.Fatalf("a command while the roll waits: %v", err)
	}
	other := bob.contribution(t, r)
	other.Event = reqSeq - 1
	if _, err := bob.do(t, r, other); api.CodeOf(err) != projector.CodeWrongRoll {
		t.Fatalf("a contribution for another roll: %v", err)
	}
	bad := bob.contribution(t, r)
	bad.Proof = hex.EncodeToString(bob.vrf().Prove([]byte("another roll's context")))
	if _, err := bob.do(t, r, bad); api.CodeOf(err) != projector.CodeBadVRF {
		t.Fatalf("a VRF output that does not verify: %v", err)
	}
	unchanged("the refused contributions", reqSeq)
	before := head(t, r)
	if _, err := alice.do(t, r, alice.contribution(t, r)); err != nil {
		t.Fatal(err)
	}
	if head(t, r).Seq != before.Seq+1 {
		t.Fatal("alice's contribution recorded more than itself")
	}
	done, err := bob.do(t, r, bob.contribution(t, r))
	if err != nil {
		t.Fatal(err)
	}
	types := []events.Type{}
	for _, e := range done.Events {
		types = append(types, e.Type)
	}
	if !slices.Equal(types, []events.Type{events.TypeDiceContributed, events.TypeDiceContributed, events.TypeDiceRolled}) {
		t.Fatalf("the completing append: %v", types)
	}
	var roll *events.DiceRolled
	var rollEv events.Event
	_ = r.st.Scan(ctx, "m1", done.Events[2].Seq, func(e events.Event) error {
		p, _ := events.Core().Decode(e)
		roll, rollEv = p.(*events.DiceRolled), e
		return events.ErrStop
	})
	if roll.Source != events.SourceDigital || roll.Roller != "alice" || rollEv.Actor.ID != "alice" || roll.Count != 2 {
		t.Fatalf("the roll %+v by %s", roll, rollEv.Actor)
	}
	s, _ := r.Live(ctx, "m1")
	if s.Dice.Request != nil || s.Pending.Kind == projector.WaitRoll && s.Pending.Purpose == "hit" {
		t.Fatalf("after the roll: request %+v, pending %+v", s.Dice.Request, s.Pending)
	}
	fresh, err := (&fold.Seeker{Log: r.st, Lookup: r.RulesFor}).StateAt(ctx, "m1", 0)
	if err != nil || fresh.Seq != s.Seq || fresh.Dice.Request != nil {
		t.Fatalf("a fresh fold: %v", err)
	}
}
