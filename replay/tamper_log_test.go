package replay_test

import (
	"context"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/headlog"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/editions"
	"github.com/matchrec/matchrec/replay"
	"github.com/matchrec/matchrec/store/bolt"
)

// The tamper suite's rows for the transparency log (issue 20: a finished
// match cut, a downgrade, a match deleted, two histories). The operator
// edits the data file as in TestTamperSuite; the log's entries were
// written with the events and signed into checkpoints it has handed out
// (every receipt carries one), so it either leaves the log alone — and
// the audit's log proof names what the events lack — or rebuilds the log
// from the edited events and signs it, and a checkpoint held from before
// shows two histories. No row uses a receipt's own claim: only the log
// and, for the last rows, a checkpoint someone kept.
func TestTamperSuiteLog(t *testing.T) {
	signed, unsigned := recordTamperMatch(t, true), recordTamperMatch(t, false)
	for _, m := range []recordedMatch{signed, unsigned} {
		rep, _ := auditLogged(t, m, false, nil)
		if rep.Verdict != replay.VerdictClean || rep.Checks.Log == nil || !rep.Checks.Log.OK || rep.Checks.Log.Entries < 2 {
			t.Fatalf("the untouched match (signed %v): %s %v %+v", m.signed, rep.Verdict, caughtBy(rep), rep.Checks.Log)
		}
	}
	mk, umk := signed.marks, unsigned.marks
	type row struct {
		name    string
		m       recordedMatch
		edit    func([]events.Event) []events.Event
		rb      rebuild
		relog   bool // the operator rebuilds the log from the edited events and signs it
		held    bool // the verifier holds the checkpoint of the last receipt
		by      string
		code    string
		seq     uint64
		without bool // without the log, the audit passes (the attack of issue 20's table)
	}
	rows := []row{
		{name: "the ending cut (match.ended and the reveal deleted, heads fixed), signed", m: signed, rb: asEdited,
			edit: cutAfter(mk.end - 1), by: "log", code: "truncated", seq: mk.end, without: true},
		{name: "the ending cut, unsigned", m: unsigned, rb: asEdited,
			edit: cutAfter(umk.end - 1), by: "log", code: "truncated", seq: umk.end, without: true},
		{name: "everything from the casualties on deleted, heads fixed", m: signed, rb: asEdited,
			edit: cutAfter(mk.casualties - 1), by: "log", code: "truncated", seq: mk.casualties, without: true},
		{name: "a finished match cut after its end (its reveal deleted)", m: signed, rb: asEdited,
			edit: cutAfter(mk.end), by: "log", code: "truncated", seq: mk.end + 1},
		{name: "downgraded: keys stripped, signatures dropped, statements re-bound", m: signed, rb: forged,
			edit: downgrade, by: "log", code: "downgrade", seq: 1, without: true},
		// The bundle's proof carries the created, ended and newest entries:
		// a rewrite below them is named at the first of them it changed.
		{name: "a self-consistent rewrite of an unsigned match (a die changed, statement rewritten)", m: unsigned, rb: forged,
			edit: both(setRoll(umk.wound, func(r *events.DiceRolled) { r.Values[0] = 5 }), setCommand(umk.wound, func(c *projector.Command) { c.Values[0] = 5 })),
			by:   "log", code: "rewritten", seq: umk.end, without: true},
		{name: "two histories: rewritten and the log rebuilt and signed again, checked against a kept checkpoint", m: unsigned, rb: forged,
			edit: setRoll(umk.wound, func(r *events.DiceRolled) { r.Values[0] = 5 }), relog: true, held: true, by: "log", code: "log_fork"},
		{name: "cut and the log rebuilt without it, checked against a kept checkpoint", m: signed, rb: asEdited,
			edit: cutAfter(mk.end - 1), relog: true, held: true, by: "log", code: "log_unproven"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			m := r.m
			m.path = copyFile(t, r.m.path)
			forge(t, m.path, r.edit, r.rb, nil)
			if r.relog {
				relog(t, m)
			}
			var held []byte
			if r.held {
				held = []byte(m.receipts[len(m.receipts)-1].Log.Checkpoint)
			}
			rep, _ := auditLogged(t, m, false, held)
			if rep.Verdict != replay.VerdictFailed {
				t.Fatalf("verdict %s, want FAILED (%v)", rep.Verdict, rep.Problems)
			}
			found := false
			for _, p := range rep.Problems {
				found = found || (p.Check == r.by && p.Code == r.code && p.Seq == r.seq)
			}
			if !found {
				t.Fatalf("want %s/%s at %d; got %v", r.by, r.code, r.seq, rep.Problems)
			}
			if r.without {
				if rep := auditTampered(t, m, false); rep.Verdict != replay.VerdictClean {
					t.Fatalf("without the log the audit says %s %v: not the attack of issue 20's table", rep.Verdict, rep.Problems)
				}
			}
			t.Logf("caught by %s (%s) at %d", r.by, r.code, r.seq)
		})
	}
	// A whole match deleted: the store has no bundle of it, but the log
	// still holds every head of it.
	t.Run("a whole match deleted", func(t *testing.T) {
		m := signed
		m.path = copyFile(t, signed.path)
		db, err := bbolt.Open(m.path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = db.Update(func(tx *bbolt.Tx) error {
			_ = tx.Bucket([]byte("matches")).DeleteBucket([]byte(tamperMatch))
			return tx.Bucket([]byte("heads")).Delete([]byte(tamperMatch))
		})
		_ = db.Close()
		st := openSigned(t, m)
		defer st.Close()
		ctx := context.Background()
		cp, err := st.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found, err := replay.AuditLogged(ctx, st, st, cp)
		if err != nil || len(found) != 1 || found[0].Code != "missing" || found[0].Match != tamperMatch {
			t.Fatalf("%+v %v", found, err)
		}
		t.Logf("caught by the log: %s", found[0].Message)
	})
}

// auditLogged audits the match in the data file against the store's log
// (as `matchrec audit` does through the bundle verb), holding held.
func auditLogged(t *testing.T, m recordedMatch, withReceipts bool, held []byte) (replay.Report, *headlog.Proof) {
	t.Helper()
	st := openSigned(t, m)
	defer st.Close()
	ctx := context.Background()
	in, err := replay.AuditInputs(ctx, st, tamperMatch)
	if err != nil {
		t.Fatal(err)
	}
	if in.Options.Log, err = replay.LogInputsOf(ctx, st, tamperMatch, m.recorder, held); err != nil {
		t.Fatal(err)
	}
	if withReceipts {
		in.Options.Receipts = &replay.Receipts{Receipts: m.receipts, Recorder: m.recorder}
	}
	return replay.AuditRecords(tamperMatch, in.Records, editions.Lookup, in.Options), in.Options.Log.Proof
}

// openSigned opens the match's data file as its recorder does: the log's
// checkpoints signed with the recorder's key.
func openSigned(t *testing.T, m recordedMatch) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(m.path, bolt.Options{Signer: m.signer})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// relog rebuilds the data file's log from its (edited) events, as an
// operator who holds the recorder's key can: delete it, and the store
// enters every stored event again when opened; the next checkpoint is
// signed with the recorder's key.
func relog(t *testing.T, m recordedMatch) {
	t.Helper()
	db, err := bbolt.Open(m.path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Update(func(tx *bbolt.Tx) error {
		for _, b := range []string{"tlog", "tlog-hashes", "tlog-entries", "tlog-matches"} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	})
	_ = db.Close()
}

// downgrade strips a signed match's keys and every signature, keeping
// the statements (the forger re-binds them to the rewritten heads).
func downgrade(evs []events.Event) []events.Event {
	mc := decodeAs[*events.MatchCreated](evs[0])
	mc.Keys = nil
	encode(&evs[0], mc)
	for i := range evs {
		if a := evs[i].Auth; a != nil {
			evs[i].Auth = &events.Auth{Statement: a.Statement}
		}
	}
	return evs
}
