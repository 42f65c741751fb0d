package replay_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/events/dice"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/ed3e"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/api"
	"github.com/matchrec/matchrec/store/bolt"
)

// The tamper suite (issue 12): an attacker with the operator's powers edits
// the data file — and, as a forger would, re-computes the hash chain — and
// every rewrite is caught, naming the event, by the protection the row
// states: the hash chain, the participants' signatures (statements bound
// to the head they saw, every command re-decided), the actor rules, the
// dice commitments, or the participants' receipts where the rewrite is
// self-consistent and the match unsigned (its operator is trusted).
func TestTamperSuite(t *testing.T) {
	signed, unsigned := recordTamperMatch(t, true), recordTamperMatch(t, false)
	for _, m := range []recordedMatch{signed, unsigned} {
		if rep := auditTampered(t, m, true); rep.Verdict != replay.VerdictClean || rep.Signed != m.signed {
			t.Fatalf("the untouched match (signed %v): %s %v", m.signed, rep.Verdict, caughtBy(rep))
		}
	}
	mk := signed.marks
	reveal := mk.end + 1
	type row struct {
		name     string
		m        recordedMatch
		edit     func([]events.Event) []events.Event
		rb       rebuild
		raw      func(map[uint64][]byte)
		receipts bool
		by       string // the protection that must catch it
		seq      uint64 // the event it must name
		// only: the rewrite is self-consistent — nothing but the receipts
		// tells it, and without them the unsigned match passes, as its
		// verdict warns (the operator is trusted).
		only bool
	}
	rows := []row{
		{name: "a physical die changed without changing its outcome (6→5 on a 4+), signed", m: signed, rb: rechained,
			edit: setRoll(mk.wound, func(r *events.DiceRolled) { r.Values[0] = 5 }), by: "statements", seq: mk.wound},
		{name: "a physical die changed without changing its outcome, unsigned, statement rewritten", m: unsigned, rb: forged, receipts: true,
			edit: both(setRoll(mk.wound, func(r *events.DiceRolled) { r.Values[0] = 5 }), setCommand(mk.wound, func(c *projector.Command) { c.Values[0] = 5 })),
			only: true, by: "receipts", seq: mk.wound},
		{name: "the casualties chosen replaced by other legal models, signed", m: signed, rb: rechained,
			edit: setCasualties(mk.casualties, mk.eligible[2:6]), by: "statements", seq: mk.casualties},
		{name: "the casualties chosen replaced by other legal models, unsigned, statement rewritten", m: unsigned, rb: forged, receipts: true,
			edit: both(setCasualties(mk.casualties, mk.eligible[2:6]), setCommand(mk.casualties, func(c *projector.Command) { c.Models = mk.eligible[2:6] })),
			by:   "receipts", seq: mk.casualties},
		{name: "the roller confirms her own roll (actor changed), unsigned", m: unsigned, rb: forged,
			edit: setActor(unsigned.marks.bobConfirm+1, "bob"), by: "actors", seq: unsigned.marks.bobConfirm + 1},
		{name: "Bob starts Alice's turn (actor changed), unsigned", m: unsigned, rb: forged,
			edit: setActor(unsigned.marks.turn1, "bob"), by: "actors", seq: unsigned.marks.turn1},
		{name: "Bob starts Alice's turn (actor changed), signed", m: signed, rb: rechained,
			edit: setActor(mk.turn1, "bob"), by: "actors", seq: mk.turn1},
		{name: "the last events cut off (the match looks in progress), signed", m: signed, rb: asEdited, receipts: true,
			edit: cutAfter(mk.end - 1), by: "receipts", seq: reveal},
		{name: "the last events cut off, unsigned", m: unsigned, rb: asEdited, receipts: true,
			edit: cutAfter(unsigned.marks.end - 1), only: true, by: "receipts", seq: unsigned.marks.end + 1},
		{name: "the end kept, its reveal cut off", m: signed, rb: asEdited,
			edit: cutAfter(mk.end), by: "end", seq: mk.end},
		{name: "cut off, then continued with a new ending and another winner, signed", m: signed, rb: rechained,
			edit: setEnd(mk.end, "bob"), by: "statements", seq: mk.end},
		{name: "cut off, then continued with a new ending and another winner, unsigned", m: unsigned, rb: forged, receipts: true,
			edit: both(setEnd(unsigned.marks.end, "bob"), setCommand(unsigned.marks.end, func(c *projector.Command) { c.Winner = "bob" })),
			only: true, by: "receipts", seq: unsigned.marks.end + 1},
		{name: "every digital die re-derived under a new seed, commitment and reveal, signed", m: signed, rb: rechained,
			edit: rederive(t), by: "statements", seq: 3},
		{name: "every digital die re-derived under a new seed, commitment and reveal, unsigned", m: unsigned, rb: forged, receipts: true,
			edit: rederive(t), only: true, by: "receipts", seq: 2},
		{name: "a harmless reorder of two events, renumbered and re-chained, signed", m: signed, rb: renumbered,
			edit: swap(3), by: "statements", seq: 3},
		{name: "a harmless reorder of two events, unsigned, statements rewritten", m: unsigned, rb: forged, receipts: true,
			edit: swap(3), only: true, by: "receipts", seq: 3},
		{name: "a byte flipped", m: signed, rb: asEdited, raw: flip(mk.wound), by: "chain", seq: mk.wound},
		{name: "an event deleted", m: signed, rb: asEdited, edit: drop(mk.save), by: "chain", seq: mk.save},
		{name: "two events swapped", m: signed, rb: asEdited, raw: swapRecords(mk.save), by: "chain", seq: mk.save},
		{name: "an event duplicated, renumbered and re-chained", m: signed, rb: renumbered, edit: duplicate(mk.save), by: "statements", seq: mk.save + 1},
		{name: "a digital die forged, chain not re-computed", m: signed, rb: asEdited, edit: setRoll(mk.digital, sameOutcome), by: "chain", seq: mk.digital},
		{name: "a digital die forged, chain re-computed", m: signed, rb: rechained, edit: setRoll(mk.digital, sameOutcome), by: "dice", seq: mk.digital},
		{name: "a digital die forged, unsigned, chain and statements re-computed", m: unsigned, rb: forged,
			edit: setRoll(unsigned.marks.digital, sameOutcome), by: "dice", seq: unsigned.marks.digital},
		{name: "a forged revealed seed", m: signed, rb: rechained, edit: setReveal(reveal, bytes.Repeat([]byte{7}, 32)), by: "dice", seq: reveal},
		{name: "a replaced commitment", m: unsigned, rb: forged, edit: setCommit(2, dice.Commit(bytes.Repeat([]byte{9}, 32))), by: "dice", seq: unsigned.marks.end + 1},
		{name: "a renumbered chain (an event removed, the rest renumbered), signed", m: signed, rb: renumbered,
			edit: drop(mk.bobConfirm + 1), by: "statements", seq: mk.bobConfirm + 1},
		{name: "a renumbered chain, unsigned, statements rewritten", m: unsigned, rb: forged, receipts: true,
			edit: drop(unsigned.marks.bobConfirm + 1), by: "receipts", seq: unsigned.marks.bobConfirm + 1},
		{name: "a signature stripped (a bundle with a missing signature)", m: signed, rb: rechained,
			edit: stripAuth(mk.turn1), by: "statements", seq: mk.turn1},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			m := r.m
			m.path = copyFile(t, r.m.path)
			forge(t, m.path, r.edit, r.rb, r.raw)
			rep := auditTampered(t, m, r.receipts)
			got := caughtBy(rep)
			if rep.Verdict != replay.VerdictFailed {
				t.Fatalf("verdict %s, want FAILED", rep.Verdict)
			}
			seq, ok := got[r.by]
			if !ok || seq != r.seq {
				t.Fatalf("want %s to catch it at event %d; caught by %v\n%v", r.by, r.seq, got, rep.Problems)
			}
			if r.only {
				if len(got) != 1 {
					t.Fatalf("a self-consistent rewrite is caught by more than the receipts: %v", got)
				}
				if rep := auditTampered(t, m, false); rep.Verdict != replay.VerdictClean || rep.Signed {
					t.Fatalf("without receipts: %s (signed %v)", rep.Verdict, rep.Signed)
				}
			}
			t.Logf("caught by %s at event %d (all: %v)", r.by, seq, got)
		})
	}
}

// A player who reads the data file knows the recorder's secret seed of
// the epoch. She searches for a seed of her own that, with it, makes the
// next digital rolls all 6s — guessing nothing of Bob's seed, which is
// committed before any seed is revealed — and contributes it. She fails:
// the dice she rolls are not the ones she ground for.
func TestGrindingASeedAfterReadingTheDataFile(t *testing.T) {
	m := recordTamperMatch(t, true)
	// What she would need: seven dice that are all 6s.
	const want = 7
	ep := dice.Epoch{Match: tamperMatch, Number: 0}
	var ground []byte
	var tries int
	for tries = 1; ground == nil && tries < 1_000_000; tries++ {
		cand := make([]byte, dice.SeedSize)
		_, _ = rand.Read(cand)
		// Her best guess of Bob's part: none (as if he were excused).
		vals, _ := dice.DeriveV2(m.secret, ep, []dice.PlayerSeed{{Player: "alice", Seed: cand}, {Player: "bob"}}, 100, 2)
		if vals[0] == 6 && vals[1] == 6 {
			ground = cand
		}
	}
	if ground == nil {
		t.Fatal("could not even grind two 6s")
	}
	// With the seed she would have contributed, her dice under her guess are 6s...
	bob := dice.DerivePlayerSeed([]byte("bob's key, unknown to alice"), ep, "bob")
	guess, _ := dice.DeriveV2(m.secret, ep, []dice.PlayerSeed{{Player: "alice", Seed: ground}, {Player: "bob"}}, 100, 2)
	// ...but Bob's seed, committed before hers is revealed, is part of every die.
	real, _ := dice.DeriveV2(m.secret, ep, []dice.PlayerSeed{{Player: "alice", Seed: ground}, {Player: "bob", Seed: bob}}, 100, want)
	if !slices.Equal(guess, []int{6, 6}) || slices.Equal(real, ones(want, 6)) {
		t.Fatalf("guess %v, real %v", guess, real)
	}
	// And over many of Bob's seeds her ground seed gives 6s no more often
	// than chance: 6s are a sixth of the dice.
	sixes, n := 0, 0
	for i := 0; i < 2000; i++ {
		b := dice.DerivePlayerSeed([]byte{byte(i), byte(i >> 8)}, ep, "bob")
		vals, _ := dice.DeriveV2(m.secret, ep, []dice.PlayerSeed{{Player: "alice", Seed: ground}, {Player: "bob", Seed: b}}, 100, want)
		for _, v := range vals {
			n++
			if v == 6 {
				sixes++
			}
		}
	}
	if frac := float64(sixes) / float64(n); frac > 0.2 || frac < 0.13 {
		t.Fatalf("the ground seed gives 6s %.3f of the time, not a sixth", frac)
	}
	// The recorder takes no free seed any more: the scheme 1 way to slip a
	// ground seed in after the others are known is closed.
	if _, err := projector.Decide(ed3e.Rules{}, &projector.State{Seq: 1}, events.Actor{Kind: events.ActorPlayer, ID: "alice"}, projector.Command{Type: projector.CmdSeed, Seed: hex.EncodeToString(ground)}); err == nil {
		t.Fatal("a free seed was taken")
	}
	t.Logf("ground in %d tries a seed giving 6, 6 under the guess; rolled %v", tries, real)
}

// Edits.

func at(evs []events.Event, seq uint64) *events.Event {
	for i := range evs {
		if evs[i].Seq == seq {
			return &evs[i]
		}
	}
	panic("no event " + itoa(seq))
}

func both(fs ...func([]events.Event) []events.Event) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		for _, f := range fs {
			evs = f(evs)
		}
		return evs
	}
}

func setRoll(seq uint64, f func(*events.DiceRolled)) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		e := at(evs, seq)
		r := decodeAs[*events.DiceRolled](*e)
		f(r)
		encode(e, r)
		return evs
	}
}

// sameOutcome changes one die of a roll without changing how many
// succeeded.
func sameOutcome(r *events.DiceRolled) {
	for i, v := range r.Values {
		switch {
		case v >= r.Need && r.Need <= 5:
			r.Values[i] = map[bool]int{true: 5, false: 6}[v == 6]
			return
		case v < r.Need && r.Need >= 3:
			r.Values[i] = map[bool]int{true: 2, false: 1}[v == 1]
			return
		}
	}
	panic("no die to forge")
}

// setCommand rewrites the command in an unsigned statement (the operator
// writes those).
func setCommand(seq uint64, f func(*projector.Command)) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		e := at(evs, seq)
		st, err := auth.ParseStatement(e.Auth.Statement)
		if err != nil {
			panic(err)
		}
		var c projector.Command
		if err := events.DecodeValue(st.Command, &c); err != nil {
			panic(err)
		}
		f(&c)
		st.Command, _ = events.EncodeValue(c)
		e.Auth = &events.Auth{Statement: st.Marshal()}
		return evs
	}
}

func setCasualties(seq uint64, models []string) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		e := at(evs, seq)
		encode(e, &events.CasualtiesChosen{Models: slices.Clone(models)})
		return evs
	}
}

func setActor(seq uint64, player string) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		at(evs, seq).Actor = events.Actor{Kind: events.ActorPlayer, ID: player}
		return evs
	}
}

func cutAfter(seq uint64) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event { return evs[:seq] }
}

// setEnd has the match end with another winner.
func setEnd(seq uint64, winner string) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		e := at(evs, seq)
		encode(e, &events.MatchEnded{Winner: winner, Reason: "time"})
		return evs
	}
}

func setReveal(seq uint64, seed []byte) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		e := at(evs, seq)
		r := decodeAs[*events.DiceRevealed](*e)
		r.Seed = hex.EncodeToString(seed)
		encode(e, r)
		return evs
	}
}

func setCommit(seq uint64, commit string) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		e := at(evs, seq)
		c := decodeAs[*events.DiceCommitted](*e)
		c.Commit = commit
		encode(e, c)
		return evs
	}
}

// rederive draws a new recorder seed for epoch 0 — one under which every
// digital roll has as many successes as before, so the rest of the match
// still folds — and re-derives every digital die, the commitment and the
// reveal under it.
func rederive(t testing.TB) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		ep := dice.Epoch{Match: tamperMatch, Number: 0}
		var players []dice.PlayerSeed
		for _, e := range evs {
			if e.Type == events.TypeSeedRevealed {
				p := decodeAs[*events.SeedRevealed](e)
				b, _ := hex.DecodeString(p.Seed)
				players = append(players, dice.PlayerSeed{Player: p.Player, Seed: b})
			}
		}
		slices.SortFunc(players, func(a, b dice.PlayerSeed) int { return map[bool]int{true: -1, false: 1}[a.Player == "alice"] })
		successes := func(vals []int, need int) int {
			n := 0
			for _, v := range vals {
				if v >= need {
					n++
				}
			}
			return n
		}
		for try := 0; try < 100_000; try++ {
			k := make([]byte, dice.SeedSize)
			_, _ = rand.Read(k)
			out := slices.Clone(evs)
			ok := true
			for i, e := range out {
				switch e.Type {
				case events.TypeDiceCommitted:
					c := decodeAs[*events.DiceCommitted](e)
					c.Commit = dice.Commit(k)
					encode(&out[i], c)
				case events.TypeDiceRevealed:
					r := decodeAs[*events.DiceRevealed](e)
					r.Seed = hex.EncodeToString(k)
					encode(&out[i], r)
				case events.TypeDiceRolled:
					r := decodeAs[*events.DiceRolled](e)
					if r.Source != events.SourceDigital {
						continue
					}
					vals, _ := dice.DeriveV2(k, ep, players, e.Seq, r.Count)
					if successes(vals, r.Need) != successes(r.Values, r.Need) || slices.Equal(vals, r.Values) {
						ok = false
					}
					r.Values = vals
					encode(&out[i], r)
				}
			}
			if ok {
				return out
			}
		}
		t.Fatal("no seed keeps the outcomes")
		return nil
	}
}

func swap(seq uint64) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		evs[seq-1], evs[seq] = evs[seq], evs[seq-1]
		return evs
	}
}

func drop(seq uint64) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event { return slices.Delete(evs, int(seq-1), int(seq)) }
}

func duplicate(seq uint64) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event { return slices.Insert(evs, int(seq), evs[seq-1]) }
}

func stripAuth(seq uint64) func([]events.Event) []events.Event {
	return func(evs []events.Event) []events.Event {
		at(evs, seq).Auth = nil
		return evs
	}
}

func flip(seq uint64) func(map[uint64][]byte) {
	return func(recs map[uint64][]byte) {
		e, _ := events.Unmarshal(recs[seq])
		i := bytes.Index(recs[seq], e.Payload)
		recs[seq][i+len(e.Payload)-1] ^= 1
	}
}

func swapRecords(seq uint64) func(map[uint64][]byte) {
	return func(recs map[uint64][]byte) { recs[seq], recs[seq+1] = recs[seq+1], recs[seq] }
}

// Commands decided after a ruling were decided against the match as
// ruled: the audit re-decides them against the same state, and a match
// with a void and an amend ruling, played on after them, audits clean.
func TestCommandsAfterRulingsRedecide(t *testing.T) {
	rec, st, path := newTestRecorder(t)
	ctx := context.Background()
	res, err := rec.Create(ctx, duelSetup("ruled", 6))
	if err != nil {
		t.Fatal(err)
	}
	tok := func(p string) string { return res.Tokens[events.RolePlayer(p)] }
	do := func(who string, c projector.Command) api.Result {
		t.Helper()
		out, err := rec.Execute(ctx, "ruled", who, c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		return out
	}
	do(tok("alice"), projector.Command{Type: projector.CmdNextTurn})
	do(tok("alice"), projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	do(tok("alice"), projector.Command{Type: projector.CmdShoot, Unit: "tac", Target: "boyz"})
	hit := do(tok("alice"), projector.Command{Type: projector.CmdRoll, Values: []int{1, 1, 1, 1}}).Events[0].Seq
	d := do(tok("bob"), projector.Command{Type: projector.CmdDispute, Event: hit, Reason: "those were 6s"}).Events[0].Seq
	do(res.Tokens[events.RoleJudge], projector.Command{Type: projector.CmdRule, Dispute: d, Decision: events.RulingAmend, Values: []int{6, 6, 6, 1}})
	for s, _ := rec.Live(ctx, "ruled"); s.Attack != nil; s, _ = rec.Live(ctx, "ruled") {
		who := tok(s.Pending.Player)
		if s.Pending.Kind == projector.WaitCasualties {
			do(who, projector.Command{Type: projector.CmdCasualties, Models: s.Attack.Eligible[:s.Pending.Count]})
			continue
		}
		do(who, projector.Command{Type: projector.CmdRoll, Values: ones(s.Pending.Dice, 3)})
	}
	do(tok("alice"), projector.Command{Type: projector.CmdNextTurn})
	d2 := do(tok("alice"), projector.Command{Type: projector.CmdDispute, Event: d + 2, Reason: "void it"}).Events[0].Seq
	do(res.Tokens[events.RoleJudge], projector.Command{Type: projector.CmdRule, Dispute: d2, Decision: events.RulingVoid})
	do(tok("bob"), projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	rep, err := replay.AuditStore(ctx, st2, "ruled", editions.Lookup, nil)
	if err != nil || rep.Verdict != replay.VerdictClean || rep.Checks.Statements.Statements == 0 {
		t.Fatalf("%v %s statements %+v %v", err, rep.Verdict, rep.Checks.Statements, rep.Problems)
	}
}
