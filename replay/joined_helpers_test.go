package replay_test

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/identity"
	"github.com/matchrec/matchrec/store/recorder"
)

// A match created with join codes (scheme 3 dice), recorded through the
// recorder on a real bbolt file: each role joins with a key of its own —
// or, oneHolder, every role with one key (play --sign) — and every
// digital roll is asked for, contributed to by every slot, and drawn.

const joinedMatch = "j1"

// table is a join-code match's recorder and participants.
type table struct {
	t      testing.TB
	rec    *recorder.Recorder
	st     *bolt.Store
	path   string
	keys   map[string]*auth.Key
	clock  *time.Time // the recorder's clock: one second per command
	match  string
	tokens map[string]string // a token match (the control of the foresight test)
	// rng draws every key, nonce and recorder secret: a fixed seed makes
	// the match, its dice and the foresight test's verdict the same every
	// run.
	rng *rand.ChaCha8
}

// newRecorderAt is a recorder on a new bbolt file with a clock of one
// second per command and randomness from rng (nil: crypto/rand).
func newRecorderAt(t testing.TB, rng *rand.ChaCha8) (*recorder.Recorder, *bolt.Store, string, *time.Time) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.db")
	k, err := auth.GenerateKey("", "recorder")
	if err != nil {
		t.Fatal(err)
	}
	id := identity.FromKey(k)
	signer, err := id.LogSigner()
	if err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(path, bolt.Options{NoSync: true, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1767225600, 0)
	opts := recorder.Options{Rules: editions.Lookup, Identity: id, Clock: func() time.Time { clock = clock.Add(time.Second); return clock }}
	if rng != nil {
		opts.Rand = rng
	}
	return recorder.New(st, opts), st, path, &clock
}

// key draws a participant's key from the table's randomness.
func (tb *table) key(match, role string) *auth.Key {
	seed := make([]byte, 32)
	_, _ = tb.rng.Read(seed)
	k, err := auth.KeyFromSeed(seed, match, role)
	if err != nil {
		tb.t.Fatal(err)
	}
	return k
}

func (tb *table) nonce() (n [auth.NonceSize]byte) {
	_, _ = tb.rng.Read(n[:])
	return n
}

// newTable creates the duel with join codes and has every role join;
// judgeDice: the judge joins with a VRF key and takes part in every roll.
func newTable(t testing.TB, match string, oneHolder, judgeDice bool) *table {
	t.Helper()
	rng := rand.NewChaCha8([32]byte{'m', 'a', 't', 'c', 'h', 'r', 'e', 'c'})
	tb := &table{t: t, keys: map[string]*auth.Key{}, match: match, rng: rng}
	tb.rec, tb.st, tb.path, tb.clock = newRecorderAt(t, rng)
	req := duelSetup(match, 6)
	req.Joins = map[string]string{}
	codes := map[string]string{}
	var one *auth.Key
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		k := tb.key(match, role)
		if oneHolder {
			if one == nil {
				one = k
			}
			k = one
		}
		tb.keys[role] = k
		n := tb.nonce()
		codes[role] = match + ":" + role + ":" + hex.EncodeToString(n[:])
		req.Joins[role] = projector.JoinHash(codes[role])
	}
	if _, err := tb.rec.Create(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"player:alice", "player:bob", "judge"} {
		c := projector.Command{Type: projector.CmdJoin, JoinCode: codes[role], Key: tb.keys[role].PublicHex()}
		if role != "judge" || judgeDice {
			c.VRF = tb.vrf(role).PublicHex()
		}
		tb.do(role, c)
	}
	return tb
}

func (tb *table) vrf(role string) *dice.VRFKey { return dice.VRFKeyFromSeed(tb.keys[role].Seed()) }

func (tb *table) live() *projector.State {
	s, err := tb.rec.Live(context.Background(), tb.match)
	if err != nil {
		tb.t.Fatal(err)
	}
	return s
}

// statement is role's signed request of c at the head of s.
func (tb *table) statement(s *projector.State, role string, c projector.Command) api.ExecuteRequest {
	if tb.tokens != nil {
		n := tb.nonce()
		return api.ExecuteRequest{Match: tb.match, Token: tb.tokens[role], Command: &c, RequestID: hex.EncodeToString(n[:]), Head: &store.Head{Seq: s.Seq, Hash: s.Head}}
	}
	b, _ := events.EncodeValue(c)
	st := auth.Statement{Match: tb.match, HeadSeq: s.Seq, HeadHash: s.Head, Nonce: tb.nonce(), Role: role, Command: b}
	body := st.Marshal()
	return api.ExecuteRequest{Match: tb.match, Statement: body, Signature: auth.Sign(tb.keys[role].Private, auth.StatementDomain, body)}
}

func (tb *table) submit(req api.ExecuteRequest) api.Result {
	tb.t.Helper()
	res, err := tb.rec.Submit(context.Background(), req)
	if err != nil {
		tb.t.Fatalf("%v", err)
	}
	return res
}

func (tb *table) do(role string, c projector.Command) api.Result {
	tb.t.Helper()
	return tb.submit(tb.statement(tb.live(), role, c))
}

// contribute sends role's contribution to the open request.
func (tb *table) contribute(role string) api.Result {
	tb.t.Helper()
	r := tb.live().Dice.Request
	return tb.do(role, projector.Command{Type: projector.CmdContribute, Event: r.Seq, Proof: hex.EncodeToString(tb.vrf(role).Prove(r.Alpha(role)))})
}

// roll asks for the pending roll's digital dice as role and has every
// other slot but those in withhold contribute; it returns the request's
// event and the roll's (0 while it waits).
func (tb *table) roll(role string, withhold ...string) (request, rolled uint64) {
	tb.t.Helper()
	request = tb.do(role, projector.Command{Type: projector.CmdRoll, Digital: true, Purpose: tb.live().Pending.Purpose}).Events[0].Seq
	return request, tb.contributeAll(withhold...)
}

// contributeAll has every slot the open request waits for contribute,
// but those in withhold; it returns the roll's event (0 while it waits).
func (tb *table) contributeAll(withhold ...string) uint64 {
	tb.t.Helper()
	r := tb.live().Dice.Request
	for _, slot := range r.Missing() {
		if slot == events.RoleRecorder || slices.Contains(withhold, slot) {
			continue
		}
		res := tb.contribute(slot)
		if last := res.Events[len(res.Events)-1]; last.Type == events.TypeDiceRolled {
			return last.Seq
		}
	}
	return 0
}

// epochSeed reads the recorder's seed of epoch n from the data file, as a
// player who can read the recorder's data directory can.
func (tb *table) epochSeed(n int) []byte {
	seed, err := tb.st.Secret(context.Background(), tb.match, n)
	if err != nil {
		tb.t.Fatal(err)
	}
	return seed
}

func (tb *table) close() {
	if err := tb.st.Close(); err != nil {
		tb.t.Fatal(err)
	}
}

// joinedMarks are the events of recordJoined's match the tamper rows
// edit.
type joinedMarks struct {
	request, roll      uint64 // Alice's first digital hit roll: its request and the roll
	bobContribution    uint64 // Bob's contribution to it
	substituted        uint64 // the judge's substitution of Bob's withheld contribution to a later roll
	substitutedRoll    uint64
	end                uint64
	recorderEpochSeed0 []byte
}

// recordJoined plays the duel with join codes: Alice shoots with digital
// hit dice every slot contributes to; later Bob withholds his contribution
// and the judge substitutes the judge's own; the judge ends the match.
func recordJoined(t testing.TB, match string, oneHolder bool) (string, joinedMarks) {
	t.Helper()
	tb := newTable(t, match, oneHolder, false)
	var m joinedMarks
	tb.do("player:alice", projector.Command{Type: projector.CmdNextTurn})
	tb.do("player:alice", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	tb.do("player:alice", projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	m.request, m.roll = tb.roll("player:alice")
	if m.roll == 0 {
		t.Fatal("the roll was not drawn")
	}
	m.bobContribution = m.roll - 2
	for s := tb.live(); s.Attack != nil; s = tb.live() {
		p := s.Pending
		switch {
		case p.Kind == projector.WaitCasualties:
			tb.do("player:bob", projector.Command{Type: projector.CmdCasualties, Models: s.Attack.Eligible[:p.Count]})
		case m.substituted == 0:
			// Bob withholds: the judge fills his slot with the judge's own.
			role := events.RolePlayer(p.Player)
			tb.roll(role, "player:bob")
			r := tb.live().Dice.Request
			k := dice.VRFKeyFromSeed(tb.keys["judge"].Seed())
			res := tb.do("judge", projector.Command{Type: projector.CmdSubstitute, Event: r.Seq, Role: "player:bob",
				VRF: k.PublicHex(), Proof: hex.EncodeToString(k.Prove(r.Alpha("player:bob"))), Reason: "Bob did not contribute"})
			m.substituted, m.substitutedRoll = res.Events[0].Seq, res.Events[len(res.Events)-1].Seq
		default:
			tb.roll(events.RolePlayer(p.Player))
		}
	}
	m.end = tb.do("judge", projector.Command{Type: projector.CmdEnd, Winner: "alice", Reason: "time"}).Events[0].Seq
	m.recorderEpochSeed0 = tb.epochSeed(0)
	if m.substituted == 0 {
		t.Fatalf("the match did not go as planned: %+v", m)
	}
	tb.close()
	return tb.path, m
}
