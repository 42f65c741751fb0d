package replay_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"
	"golang.org/x/mod/sumdb/note"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// The tamper suite's match and its forger. The match is recorded through
// the recorder on a real bbolt file, signed (every participant has a key)
// or not (tokens); the participants keep every receipt the recorder gives
// them. The forger has the operator's powers: it edits the data file, and
// re-computes the hash chain — and, where the match is unsigned, rewrites
// the statements to fit — but it has no participant's key.

const tamperMatch = "t1"

// marks are the events the suite's rows tamper with.
type marks struct {
	turn1      uint64 // alice's turn.started
	wound      uint64 // alice's physical wound roll (need 4, all 6s)
	save       uint64 // bob's physical save roll
	casualties uint64 // bob's casualties.chosen
	bobConfirm uint64 // bob's confirm of alice's rolls up to the head
	digital    uint64 // bob's first digital roll
	end        uint64 // the judge's match.ended
	eligible   []string
}

type recordedMatch struct {
	path     string
	signed   bool
	marks    marks
	receipts []auth.Receipt
	recorder []byte // the recorder's public key
	secret   []byte // the recorder's seed of epoch 0, read from the data file
	// signer signs the log's checkpoints with the recorder's key: the
	// operator holds it, and uses it to sign a log rebuilt after a forgery.
	signer note.Signer
}

// participants sends commands as a signed match's keys or a token match's
// tokens, keeping every receipt.
type participants struct {
	t        testing.TB
	rec      *recorder.Recorder
	keys     map[string]*auth.Key
	tokens   map[string]string
	receipts []auth.Receipt
}

func (ps *participants) do(role string, c projector.Command) api.Result {
	ps.t.Helper()
	ctx := context.Background()
	s, err := ps.rec.Live(ctx, tamperMatch)
	if err != nil {
		ps.t.Fatal(err)
	}
	var req api.ExecuteRequest
	if k := ps.keys[role]; k != nil {
		b, _ := events.EncodeValue(c)
		st := auth.Statement{Match: tamperMatch, HeadSeq: s.Seq, HeadHash: s.Head, Nonce: auth.NewNonce(), Role: role, Command: b}
		body := st.Marshal()
		req = api.ExecuteRequest{Match: tamperMatch, Statement: body, Signature: auth.Sign(k.Private, auth.StatementDomain, body)}
	} else {
		n := auth.NewNonce()
		req = api.ExecuteRequest{Match: tamperMatch, Token: ps.tokens[role], Command: &c, RequestID: hex.EncodeToString(n[:]), Head: &store.Head{Seq: s.Seq, Hash: s.Head}}
	}
	res, err := ps.rec.Submit(ctx, req)
	if err != nil {
		ps.t.Fatalf("%s %+v: %v", role, c, err)
	}
	ps.receipts = append(ps.receipts, *res.Receipt)
	return res
}

func (ps *participants) secret(player string) []byte {
	if k := ps.keys[events.RolePlayer(player)]; k != nil {
		return k.Seed()
	}
	return []byte(ps.tokens[events.RolePlayer(player)])
}

// seed has every player commit, then reveal, as their CLIs do.
func (ps *participants) seed() {
	for i := 0; i < 4; i++ {
		s, _ := ps.rec.Live(context.Background(), tamperMatch)
		for _, p := range []string{"alice", "bob"} {
			if c, ok := s.SeedCommand(p, ps.secret(p)); ok {
				ps.do(events.RolePlayer(p), c)
				break
			}
		}
	}
}

// recordTamperMatch plays the suite's 3e match: both players seed, Alice
// shoots with physical dice (all 6s to hit and wound, Bob's saves all
// 1s, Bob chooses 4 of his 6 Boyz), Bob confirms her rolls up to the head
// and Alice his save, then Bob shoots back with digital dice, and the
// judge ends the match (the recorder reveals the seed).
func recordTamperMatch(t testing.TB, signed bool) recordedMatch {
	t.Helper()
	rec, st, path := newTestRecorder(t)
	ctx := context.Background()
	signer, err := rec.Identity().LogSigner()
	if err != nil {
		t.Fatal(err)
	}
	req := duelSetup(tamperMatch, 6)
	ps := &participants{t: t, rec: rec, keys: map[string]*auth.Key{}}
	if signed {
		req.Keys = map[string]string{}
		for _, role := range []string{"player:alice", "player:bob", "judge"} {
			k, _ := auth.GenerateKey(tamperMatch, role)
			ps.keys[role], req.Keys[role] = k, k.PublicHex()
		}
	}
	created, err := rec.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	ps.tokens = created.Tokens
	ps.receipts = append(ps.receipts, *created.Receipt)
	live := func() *projector.State {
		s, _ := rec.Live(ctx, tamperMatch)
		return s
	}
	var m marks
	ps.seed()
	m.turn1 = ps.do("player:alice", projector.Command{Type: projector.CmdNextTurn}).Events[0].Seq
	ps.do("player:alice", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	ps.do("player:alice", projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	for s := live(); s.Attack != nil; s = live() {
		p := s.Pending
		switch {
		case p.Kind == projector.WaitCasualties:
			m.eligible = append([]string(nil), s.Attack.Eligible...)
			m.casualties = ps.do("player:bob", projector.Command{Type: projector.CmdCasualties, Models: s.Attack.Eligible[:p.Count]}).Events[0].Seq
		case p.Player == "alice":
			seq := ps.do("player:alice", projector.Command{Type: projector.CmdRoll, Values: ones(p.Dice, 6)}).Events[0].Seq
			if p.Purpose == "wound" {
				m.wound = seq
			}
		default:
			m.save = ps.do("player:bob", projector.Command{Type: projector.CmdRoll, Values: ones(p.Dice, 1)}).Events[0].Seq
		}
	}
	s := live()
	m.bobConfirm = ps.do("player:bob", projector.Command{Type: projector.CmdConfirm, Upto: s.Seq, Hash: s.Head.String()}).Events[0].Seq
	ps.do("player:alice", projector.Command{Type: projector.CmdConfirm, Event: m.save})
	ps.do("player:alice", projector.Command{Type: projector.CmdNextTurn})
	ps.do("player:bob", projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	ps.do("player:bob", projector.Command{Type: projector.CmdShoot, Unit: "boyz", Target: "tac"})
	for s := live(); s.Attack != nil; s = live() {
		role := events.RolePlayer(s.Pending.Player)
		if s.Pending.Kind == projector.WaitCasualties {
			ps.do(role, projector.Command{Type: projector.CmdCasualties, Models: s.Attack.Eligible[:s.Pending.Count]})
			continue
		}
		seq := ps.do(role, projector.Command{Type: projector.CmdRoll, Digital: true}).Events[0].Seq
		if m.digital == 0 {
			m.digital = seq
		}
	}
	m.end = ps.do("judge", projector.Command{Type: projector.CmdEnd, Winner: "alice", Reason: "time"}).Events[0].Seq
	secret, err := st.Secret(ctx, tamperMatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.wound == 0 || m.save == 0 || m.casualties == 0 || m.digital == 0 {
		t.Fatalf("the match did not go as planned: %+v", m)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return recordedMatch{path: path, signed: signed, marks: m, receipts: ps.receipts, recorder: rec.Identity().PublicKey(), secret: secret, signer: signer}
}

func ones(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// rebuild is how far the forger goes after an edit.
type rebuild int

const (
	asEdited   rebuild = iota // write the edited events as they are
	rechained                 // recompute every prev_hash and hash
	renumbered                // number the events 1, 2, 3… again, then re-chain
	forged                    // renumber, re-chain, and rewrite unsigned statements to fit
)

// forge reads the match's events from the data file, lets edit change
// them, rebuilds as far as rb says, lets raw change the records, and
// writes them back (with the head record), as an operator could.
func forge(t testing.TB, path string, edit func([]events.Event) []events.Event, rb rebuild, raw func(map[uint64][]byte)) {
	t.Helper()
	forgeIn(t, path, tamperMatch, edit, rb, raw)
}

// forgeIn is forge for the match of that id.
func forgeIn(t testing.TB, path, match string, edit func([]events.Event) []events.Event, rb rebuild, raw func(map[uint64][]byte)) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("matches")).Bucket([]byte(match))
		var evs []events.Event
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			e, err := events.Unmarshal(v)
			if err != nil {
				return err
			}
			evs = append(evs, e)
		}
		if edit != nil {
			evs = edit(evs)
		}
		evs = rebuildChain(evs, rb)
		recs := map[uint64][]byte{}
		for _, e := range evs {
			recs[e.Seq] = events.Marshal(e)
		}
		if raw != nil {
			raw(recs)
		}
		for k, _ := c.First(); k != nil; k, _ = c.First() {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		var last uint64
		for seq, r := range recs {
			if err := b.Put(binary.BigEndian.AppendUint64(nil, seq), r); err != nil {
				return err
			}
			last = max(last, seq)
		}
		if e, err := events.Unmarshal(recs[last]); err == nil {
			heads := tx.Bucket([]byte("heads"))
			old := heads.Get([]byte(match))
			v := append(binary.BigEndian.AppendUint64(nil, e.Seq), e.Hash[:]...)
			v = append(v, old[40:]...)
			return heads.Put([]byte(match), v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rebuildChain(evs []events.Event, rb rebuild) []events.Event {
	if rb == asEdited {
		return evs
	}
	var prev events.Hash
	var oldStmt, newStmt []byte
	hashes := map[uint64]events.Hash{}
	for i := range evs {
		e := &evs[i]
		if rb >= renumbered {
			e.Seq = uint64(i + 1)
		}
		e.PrevHash = prev
		if rb == forged {
			// The operator writes what vouches for values in an unsigned
			// match — witnesses' hashes, statements — so it makes them fit.
			vouch := ""
			switch p := decodeAny(*e).(type) {
			case *events.RollConfirmed:
				if p.Upto != 0 {
					p.Upto, p.Hash = e.Seq-1, prev.String()
				} else {
					p.Hash = hashes[p.Roll].String()
				}
				vouch = p.Hash
				encode(e, p)
			case *events.RollContested:
				p.Hash = hashes[p.Roll].String()
				vouch = p.Hash
				encode(e, p)
			}
			if e.Auth != nil && !e.Auth.Signed() {
				if string(e.Auth.Statement) == string(oldStmt) {
					e.Auth = &events.Auth{Statement: newStmt}
				} else if st, err := auth.ParseStatement(e.Auth.Statement); err == nil {
					oldStmt = e.Auth.Statement
					st.HeadSeq, st.HeadHash = e.Seq-1, e.PrevHash
					if e.Type != events.TypeBranchCreated {
						st.Role = e.Actor.Role()
					}
					var c projector.Command
					if vouch != "" && events.DecodeValue(st.Command, &c) == nil && c.Hash != "" {
						c.Hash = vouch
						if c.Upto != 0 {
							c.Upto = e.Seq - 1
						}
						st.Command, _ = events.EncodeValue(c)
					}
					newStmt = st.Marshal()
					e.Auth = &events.Auth{Statement: newStmt}
				}
			}
		}
		e.Hash = events.ComputeHash(*e)
		prev, hashes[e.Seq] = e.Hash, e.Hash
	}
	return evs
}

func decodeAny(e events.Event) events.Payload {
	p, _ := events.Core().Decode(e)
	return p
}

// newTestRecorder is a recorder on a new bbolt file, with a fixed clock.
func newTestRecorder(t testing.TB) (*recorder.Recorder, *bolt.Store, string) {
	t.Helper()
	rec, st, path, _ := newRecorderAt(t, nil)
	return rec, st, path
}

// duelSetup is a 3e match: Alice's two boltgun marines against Bob's
// boyz Boyz, all in range.
func duelSetup(id string, boyz int) api.CreateRequest {
	model := func(id string, x, y float64) events.ModelSpec {
		return events.ModelSpec{ID: id, BS: 4, T: 4, W: 1, Sv: 5, Height: 1.5, BaseMM: 25, X: x, Y: y, Weapons: []string{"bg"}}
	}
	gun := []events.WeaponSpec{{ID: "bg", Name: "boltgun", Range: 24, Type: "assault", Shots: 2, S: 4}}
	var bs []events.ModelSpec
	for i := 0; i < boyz; i++ {
		bs = append(bs, model("b"+itoa(uint64(i+1)), 20, 10+float64(i)*1.2))
	}
	return api.CreateRequest{Match: id, MatchCreated: events.MatchCreated{
		Edition: "3e", Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Units: []events.UnitSpec{
			{ID: "tac", Player: "alice", Weapons: gun, Models: []events.ModelSpec{model("t1", 10, 10), model("t2", 10, 12)}},
			{ID: "boyz", Player: "bob", Weapons: gun, Models: bs},
		}}}
}

// inputsOf reads what an audit of the suite's match reads, from a data file.
func inputsOf(t testing.TB, path string) replay.Inputs {
	t.Helper()
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in, err := replay.AuditInputs(context.Background(), st, tamperMatch)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// auditTampered audits the match in the data file, with the
// participants' receipts when withReceipts.
func auditTampered(t testing.TB, m recordedMatch, withReceipts bool) replay.Report {
	t.Helper()
	in := inputsOf(t, m.path)
	if withReceipts {
		in.Options.Receipts = &replay.Receipts{Receipts: m.receipts, Recorder: m.recorder}
	}
	return replay.AuditRecords(tamperMatch, in.Records, editions.Lookup, in.Options)
}

func decodeAs[T events.Payload](e events.Event) T {
	p, err := events.Core().Decode(e)
	if err != nil {
		panic(err)
	}
	return p.(T)
}

func encode(e *events.Event, p events.Payload) {
	b, err := events.EncodePayload(p)
	if err != nil {
		panic(err)
	}
	e.Payload = b
}

// copyFile copies a data file, so every row tampers with its own.
func copyFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "events.db")
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// bundleOf is the bundle of the match in a data file.
func bundleOf(t testing.TB, m recordedMatch) *api.Bundle {
	t.Helper()
	return replay.NewBundle(tamperMatch, inputsOf(t, m.path), events.Hash{})
}
