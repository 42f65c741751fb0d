package replay_test

import (
	"context"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
)

// The foreseeable-dice attack (issue 20): Alice hosts the recorder and
// reads every file of its data directory (the open epoch's recorder seed
// included); she holds her own key and the judge's — every key but Bob's,
// the one honest participant. (Then again with Bob on her side, both
// players' keys in her hands, and the judge, who joined with --dice, the
// honest one.) She is free to try as many requests as she likes and to
// pad the log with legal, harmless commands, and she knows the recorder's clock, so before each
// digital roll she can compute exactly the record her next command makes.
// Her strategy is the one that wins against scheme 2: pad until the roll
// she is about to ask for comes out well by everything she knows, then ask.
//
// Against scheme 2 (the control: the same attacker, on a token match with
// every seed revealed before the rolls) she gets the dice she wants. Against
// scheme 3 she does not: Bob's VRF output over the recorded request, which
// she cannot compute, is part of every die. The statistic is the number of
// her dice showing 5+ in the rolls she chose: under fair dice it is
// Binomial(n, 1/3); the test fails when it reaches the one-sided critical
// value at a false-alarm rate of 1e-6, and the control must reach it — the
// test has the power to see the attack. Every key, nonce and recorder
// secret is drawn from ChaCha8 with a fixed seed, so each run plays the
// same match and gives the same verdict.

const (
	foresightRolls = 40
	maxPads        = 60
	falseAlarm     = 1e-6
)

// good is what Alice pads for: at least 3 of her 4 hit dice on 5+
// (probability 1/9 for fair dice).
func good(vals []int) bool { return fives(vals) >= 3 }

func fives(vals []int) int {
	n := 0
	for _, v := range vals {
		if v >= 5 {
			n++
		}
	}
	return n
}

// binomialUpper is the smallest k with P(X >= k) <= alpha for X ~ Bin(n, p).
func binomialUpper(n int, p, alpha float64) int {
	tail := 0.0
	for k := n; k >= 0; k-- {
		lg, _ := math.Lgamma(float64(n + 1))
		la, _ := math.Lgamma(float64(k + 1))
		lb, _ := math.Lgamma(float64(n - k + 1))
		tail += math.Exp(lg - la - lb + float64(k)*math.Log(p) + float64(n-k)*math.Log(1-p))
		if tail > alpha {
			return k + 1
		}
	}
	return 0
}

// padEnds is the control's padding: harmless end offers, Alice's and
// Bob's in turn (one offer stands at a time for each: end_pending; the
// other's is no acceptance, its winner differs). It moves the head on by
// one event whatever step is pending, which is all scheme 2's dice depend
// on; Bob's token moves nothing else, so it gives her no power over the
// dice that scheme 3 would deny her.
func padEnds(tb *table, i int) {
	who := []string{"alice", "bob"}[i%2]
	tb.do(events.RolePlayer(who), projector.Command{Type: projector.CmdEnd, Winner: who, Reason: "padding"})
}

// predictV3 is everything Alice can compute of the roll she would ask for
// now: the exact request record (her statement, the recorder's next
// time), the recorder's output (its epoch key from the data file), her
// own and the judge's, and for Bob's — which she cannot compute — her best
// guess, an output of her own making.
func predictV3(tb *table, req api.ExecuteRequest, recorderSeed []byte, honest string) ([]int, events.Hash) {
	s := tb.live()
	st, _ := auth.ParseStatement(req.Statement)
	ev, err := events.NewAuthed(tb.match, s.Seq+1, s.Head, tb.clock.Add(1e9).UnixNano(), events.Actor{Kind: events.ActorPlayer, ID: "alice"},
		&events.DiceRequested{Roller: "alice", Purpose: s.Pending.Purpose, Need: s.Pending.Need, Count: s.Pending.Dice},
		&events.Auth{Statement: st.Marshal(), Signature: req.Signature})
	if err != nil {
		tb.t.Fatal(err)
	}
	ep := s.Dice.Current().ID()
	beta := func(k *dice.VRFKey, slot string) []byte {
		out, err := dice.VerifyVRF(k.PublicHex(), hexOf(k.Prove(dice.AlphaV3(ep, ev.Seq, ev.Hash, slot))), dice.AlphaV3(ep, ev.Seq, ev.Hash, slot))
		if err != nil {
			tb.t.Fatal(err)
		}
		return out
	}
	cs := []dice.Contribution{{Slot: events.RoleRecorder, Beta: beta(dice.VRFKeyFromSeed(recorderSeed), events.RoleRecorder)}}
	for _, slot := range []string{"player:alice", "player:bob", "judge"} {
		k := tb.vrf(slot)
		if slot == honest {
			k = dice.VRFKeyFromSeed([]byte("a guess of the honest key")) // any guess: there is no better
		}
		cs = append(cs, dice.Contribution{Slot: slot, Beta: beta(k, slot)})
	}
	vals, err := dice.DeriveV3(ep, ev.Seq, cs, s.Pending.Dice)
	if err != nil {
		tb.t.Fatal(err)
	}
	return vals, ev.Hash
}

// attackTurn plays one of Alice's turns: she tries requests until the
// roll she is about to ask for looks good by predict, then asks for it;
// it returns the dice recorded. Each try is a new statement (a new nonce:
// a request of another hash, so another context for scheme 3's outputs,
// at no cost and recording nothing); pad, when set, also moves the head on
// between tries (scheme 2's dice depend on the sequence alone). Her wounds are physical ones (the attack ends), and
// Bob passes his turn.
func attackTurn(tb *table, predict func(api.ExecuteRequest) []int, draw func(api.ExecuteRequest) []int, pad func(*table, int)) []int {
	if tb.live().Active == "" {
		tb.do("player:alice", projector.Command{Type: projector.CmdNextTurn})
	}
	tb.do("player:alice", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	tb.do("player:alice", projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	var req api.ExecuteRequest
	for i := 0; ; i++ {
		s := tb.live()
		req = tb.statement(s, "player:alice", projector.Command{Type: projector.CmdRoll, Digital: true, Purpose: s.Pending.Purpose})
		if good(predict(req)) || i == maxPads {
			break
		}
		if pad != nil {
			pad(tb, i)
		}
	}
	vals := draw(req)
	for s := tb.live(); s.Attack != nil; s = tb.live() {
		role := events.RolePlayer(s.Pending.Player)
		if s.Pending.Kind == projector.WaitCasualties {
			tb.do(role, projector.Command{Type: projector.CmdCasualties, Models: s.Attack.Eligible[:s.Pending.Count]})
			continue
		}
		tb.do(role, projector.Command{Type: projector.CmdRoll, Values: ones(s.Pending.Dice, 1)})
	}
	tb.do("player:alice", projector.Command{Type: projector.CmdNextTurn})
	tb.do("player:bob", projector.Command{Type: projector.CmdNextTurn})
	return vals
}

// rolled reads the values of the digital roll recorded as event seq.
func rolled(tb *table, seq uint64) []int {
	var out []int
	_ = tb.st.Scan(context.Background(), tb.match, seq, func(e events.Event) error {
		if p, err := events.Core().Decode(e); err == nil {
			out = p.(*events.DiceRolled).Values
		}
		return events.ErrStop
	})
	return out
}

func TestNoPartyForeseesADie(t *testing.T) {
	n := 4 * foresightRolls
	limit := binomialUpper(n, 1.0/3, falseAlarm)

	// Scheme 3: the attacker reads the data file and holds every key but
	// the honest slot's — Bob's (she is Alice, with the judge's key too),
	// or the judge's (both players' CLIs together against the judge, who
	// joined with --dice).
	for _, honest := range []string{"player:bob", "judge"} {
		tb := newTable(t, "foresight", false, true)
		seed := tb.epochSeed(0)
		fives3, matches := 0, 0
		for range foresightRolls {
			var predicted []int
			var at events.Hash
			vals := attackTurn(tb, func(req api.ExecuteRequest) []int { predicted, at = predictV3(tb, req, seed, honest); return predicted },
				func(req api.ExecuteRequest) []int {
					// Her foresight of the record is exact: the request is
					// recorded as she computed it.
					if got := tb.submit(req).Events[0].Hash; got != at {
						t.Fatalf("the request was recorded as %s, not as the %s the attacker computed", got, at)
					}
					// Every slot contributes; the honest one's output is
					// the one the attacker could not compute.
					return rolled(tb, tb.contributeAll())
				}, nil)
			fives3 += fives(vals)
			for i := range vals {
				if vals[i] == predicted[i] {
					matches++
				}
			}
		}
		if fives3 >= limit {
			t.Fatalf("scheme 3, %s honest: the chosen rolls show 5+ on %d of %d dice (fair: about %d; critical value at %.0e: %d)", honest, fives3, n, n/3, falseAlarm, limit)
		}
		if m := binomialUpper(n, 1.0/6, falseAlarm); matches >= m {
			t.Fatalf("scheme 3, %s honest: %d of %d dice predicted exactly (fair: about %d; critical value %d)", honest, matches, n, n/6, m)
		}
		tb.close()
		if rep := replay.VerifyBundle(bundleFrom(t, tb.path, tb.match), editions.Lookup, nil); rep.Verdict != replay.VerdictClean || !rep.Signed {
			t.Fatalf("the attacked match: %s %v", rep.Verdict, rep.Problems)
		}
		t.Logf("scheme 3, %s honest: 5+ on %d of %d chosen dice (fair %d, critical value %d at %.0e); %d predicted exactly (fair %d)",
			honest, fives3, n, n/3, limit, falseAlarm, matches, n/6)
	}

	// The control: the same attacker against scheme 2 (a token match, every
	// seed revealed before the rolls, the recorder's read from the data
	// file) gets the dice she pads for.
	ctl := newTokenTable(t)
	sixes2 := 0
	for range foresightRolls {
		vals := attackTurn(ctl.table, ctl.predict, func(req api.ExecuteRequest) []int {
			res := ctl.table.submit(req)
			return rolled(ctl.table, res.Events[0].Seq)
		}, padEnds)
		sixes2 += fives(vals)
	}
	if sixes2 < limit {
		t.Fatalf("the control: against scheme 2 the attacker got only %d of %d 5+ (critical value %d): the test cannot see the attack", sixes2, n, limit)
	}
	t.Logf("scheme 2 (the control): 5+ on %d of %d chosen dice", sixes2, n)
}

// tokenTable is the control: the duel as a token match, scheme 2, every
// seed committed and revealed before the rolls.
type tokenTable struct {
	*table
	secret []byte
}

func newTokenTable(t testing.TB) *tokenTable {
	t.Helper()
	tb := &table{t: t, match: "control", rng: rand.NewChaCha8([32]byte{'c', 'o', 'n', 't', 'r', 'o', 'l'})}
	tb.rec, tb.st, tb.path, tb.clock = newRecorderAt(t, tb.rng)
	created, err := tb.rec.Create(context.Background(), duelSetup("control", 6))
	if err != nil {
		t.Fatal(err)
	}
	tb.tokens = created.Tokens
	for i := 0; i < 4; i++ {
		s := tb.live()
		for _, p := range []string{"alice", "bob"} {
			if c, ok := s.SeedCommand(p, []byte(created.Tokens[events.RolePlayer(p)])); ok {
				tb.do(events.RolePlayer(p), c)
				break
			}
		}
	}
	return &tokenTable{table: tb, secret: tb.epochSeed(0)}
}

// predict is the scheme 2 roll at the next event: every input is known.
func (c *tokenTable) predict(api.ExecuteRequest) []int {
	s := c.live()
	cur := s.Dice.Current()
	seeds, err := cur.Seeds()
	if err != nil {
		c.t.Fatal(err)
	}
	vals, err := dice.DeriveV2(c.secret, cur.ID(), seeds, s.Seq+1, s.Pending.Dice)
	if err != nil {
		c.t.Fatal(err)
	}
	return vals
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
