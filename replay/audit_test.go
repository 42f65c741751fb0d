package replay_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
	"github.com/matchrec/matchrec/store/recorder"
)

// recorded plays a short 3e match with digital dice on a real bbolt file,
// ends it (revealing the seed) and returns the file's path and the seq of
// the first digital roll.
func recorded(t *testing.T) (string, uint64) {
	t.Helper()
	path, roll, _ := recordedWithTokens(t)
	return path, roll
}

func recordedWithTokens(t *testing.T) (string, uint64, map[string]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.db")
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1700000000, 0)
	rec := recorder.New(st, recorder.Options{Rules: editions.Lookup, Clock: func() time.Time { clock = clock.Add(time.Second); return clock }})
	ctx := context.Background()
	model := func(id string, x, y float64) events.ModelSpec {
		return events.ModelSpec{ID: id, BS: 4, T: 4, W: 1, Sv: 5, Height: 1.5, BaseMM: 25, X: x, Y: y, Weapons: []string{"bg"}}
	}
	gun := []events.WeaponSpec{{ID: "bg", Name: "boltgun", Range: 24, Type: "assault", Shots: 2, S: 4}}
	res, err := rec.Create(ctx, api.CreateRequest{Match: "audit1", MatchCreated: events.MatchCreated{
		Edition: "3e", Players: []events.PlayerSpec{{ID: "alice"}, {ID: "bob"}},
		Units: []events.UnitSpec{
			{ID: "tac", Player: "alice", Weapons: gun, Models: []events.ModelSpec{model("t1", 10, 10), model("t2", 10, 12), model("t3", 10, 14)}},
			{ID: "boyz", Player: "bob", Weapons: gun, Models: []events.ModelSpec{model("b1", 20, 10), model("b2", 20, 12), model("b3", 20, 14)}},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Tokens[api.RolePlayer("alice")], res.Tokens[api.RolePlayer("bob")]
	var firstRoll uint64
	do := func(tok string, c projector.Command) {
		t.Helper()
		out, err := rec.Execute(ctx, "audit1", tok, c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if c.Type == projector.CmdRoll && firstRoll == 0 {
			firstRoll = out.Events[0].Seq
		}
	}
	do(a, projector.Command{Type: projector.CmdNextTurn})
	do(a, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	do(a, projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	for i := 0; i < 5; i++ {
		s, _ := rec.State(ctx, "audit1", 0)
		if s.Attack == nil {
			break
		}
		tok := a
		if s.Pending.Player == "bob" {
			tok = b
		}
		if s.Pending.Kind == projector.WaitCasualties {
			var ids []string
			for _, id := range s.Attack.Eligible[:s.Pending.Count] {
				ids = append(ids, id)
			}
			do(tok, projector.Command{Type: projector.CmdCasualties, Models: ids})
			continue
		}
		seedAll(t, rec, "audit1", res.Tokens)
		do(tok, projector.Command{Type: projector.CmdRoll, Digital: true})
	}
	do(res.Tokens[api.RoleJudge], projector.Command{Type: projector.CmdEnd, Reason: "time"})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path, firstRoll, res.Tokens
}

func audit(t *testing.T, path string) replay.Report {
	t.Helper()
	st, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := replay.AuditStore(context.Background(), st, "audit1", editions.Lookup, nil)
	if err != nil {
		t.Fatal(err)
	}
	// verify on a bundle gives the same verdict as audit on the store.
	in, err := replay.AuditInputs(context.Background(), st, "audit1")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := replay.WriteBundle(&buf, replay.NewBundle("audit1", in, rep.Checks.Refold.StateHash)); err != nil {
		t.Fatal(err)
	}
	bun, err := replay.ReadBundle(&buf)
	if err != nil {
		t.Fatal(err)
	}
	v := replay.VerifyBundle(bun, editions.Lookup, nil)
	if v.OK != rep.OK || v.First(replay.CheckChain) != rep.First(replay.CheckChain) || len(v.Checks.Dice.Mismatches) != len(rep.Checks.Dice.Mismatches) {
		t.Fatalf("verify (ok=%v broken=%d) and audit (ok=%v broken=%d) disagree", v.OK, v.First(replay.CheckChain), rep.OK, rep.First(replay.CheckChain))
	}
	return rep
}

// tamper edits the raw bbolt file.
func tamper(t *testing.T, path string, fn func(b *bbolt.Bucket)) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bbolt.Tx) error {
		fn(tx.Bucket([]byte("matches")).Bucket([]byte("audit1")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func key(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func get(b *bbolt.Bucket, seq uint64) events.Event {
	e, err := events.Unmarshal(b.Get(key(seq)))
	if err != nil {
		panic(err)
	}
	return e
}

// rechain re-hashes every event from seq on, as a forger would.
func rechain(b *bbolt.Bucket, from uint64) {
	prev := get(b, from-1).Hash
	for seq := from; b.Get(key(seq)) != nil; seq++ {
		e := get(b, seq)
		e.PrevHash = prev
		e.Hash = events.ComputeHash(e)
		_ = b.Put(key(seq), events.Marshal(e))
		prev = e.Hash
	}
}

func TestAuditCleanMatch(t *testing.T) {
	path, _ := recorded(t)
	rep := audit(t, path)
	if !rep.OK || rep.Checks.Dice.Checked == 0 || rep.Checks.Dice.Checked != rep.Checks.Dice.Digital || len(rep.PendingReveal) != 0 {
		t.Fatalf("clean match: %+v", rep)
	}
}

func TestAuditCatchesTampering(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(b *bbolt.Bucket, roll uint64) uint64 // returns the seq that must be named
		check func(t *testing.T, rep replay.Report, seq uint64)
	}{
		{"payload byte flipped", func(b *bbolt.Bucket, roll uint64) uint64 {
			e := get(b, roll)
			rec := bytes.Clone(b.Get(key(roll)))
			i := bytes.Index(rec, e.Payload)
			rec[i+len(e.Payload)-1] ^= 0x01
			_ = b.Put(key(roll), rec)
			return roll
		}, chainBrokenAt},
		{"event deleted", func(b *bbolt.Bucket, roll uint64) uint64 {
			_ = b.Delete(key(roll))
			return roll
		}, chainBrokenAt},
		{"events swapped", func(b *bbolt.Bucket, roll uint64) uint64 {
			x, y := bytes.Clone(b.Get(key(roll))), bytes.Clone(b.Get(key(roll+1)))
			_ = b.Put(key(roll), y)
			_ = b.Put(key(roll+1), x)
			return roll
		}, chainBrokenAt},
		{"digital die changed, chain recomputed", func(b *bbolt.Bucket, roll uint64) uint64 {
			e := get(b, roll)
			p, _ := events.Core().Decode(e)
			r := p.(*events.DiceRolled)
			r.Values[0] = r.Values[0]%6 + 1
			e.Payload, _ = events.EncodePayload(r)
			e.Hash = events.ComputeHash(e)
			_ = b.Put(key(roll), events.Marshal(e))
			rechain(b, roll+1)
			return roll
		}, func(t *testing.T, rep replay.Report, seq uint64) {
			if !rep.Checks.Chain.OK {
				t.Fatalf("the forger recomputed the chain, yet it is reported broken: %v", rep.Problems)
			}
			if rep.Checks.Dice.OK || len(rep.Checks.Dice.Mismatches) == 0 || rep.Checks.Dice.Mismatches[0].Seq != seq || rep.Checks.Dice.Mismatches[0].Index != 0 {
				t.Fatalf("dice check should name die 0 of event %d: %+v", seq, rep.Checks.Dice)
			}
		}},
		{"revealed seed does not match the commitment", func(b *bbolt.Bucket, _ uint64) uint64 {
			var seq uint64
			c := b.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				e, _ := events.Unmarshal(v)
				if e.Type == events.TypeDiceRevealed {
					seq = e.Seq
				}
			}
			e := get(b, seq)
			p, _ := events.Core().Decode(e)
			r := p.(*events.DiceRevealed)
			r.Seed = hex.EncodeToString(bytes.Repeat([]byte{7}, 32))
			e.Payload, _ = events.EncodePayload(r)
			e.Hash = events.ComputeHash(e)
			_ = b.Put(key(seq), events.Marshal(e))
			rechain(b, seq+1)
			return seq
		}, func(t *testing.T, rep replay.Report, seq uint64) {
			if rep.Checks.Dice.OK || len(rep.Of(replay.CheckDice)) == 0 || !strings.Contains(rep.Of(replay.CheckDice)[0].String(), "event "+itoa(seq)) {
				t.Fatalf("dice check should name the reveal at %d: %+v", seq, rep.Checks.Dice)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, roll := recorded(t)
			var seq uint64
			tamper(t, path, func(b *bbolt.Bucket) { seq = c.edit(b, roll) })
			rep := audit(t, path)
			if rep.OK {
				t.Fatal("tampered match passes the audit")
			}
			c.check(t, rep, seq)
		})
	}
}

func chainBrokenAt(t *testing.T, rep replay.Report, seq uint64) {
	t.Helper()
	if rep.Checks.Chain.OK || rep.First(replay.CheckChain) != seq {
		t.Fatalf("chain should break first at %d: %+v", seq, rep.Checks.Chain)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
