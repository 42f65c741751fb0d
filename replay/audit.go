package replay

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
)

// RefoldCheck compares a fresh fold of the whole match with what was
// recorded: every event folds, every roll answered the step the rules
// asked for, and the final state equals the recorded state (when one is
// known: Compared).
type RefoldCheck struct {
	OK        bool        `json:"ok"`
	StateHash events.Hash `json:"state_hash"`
	Compared  bool        `json:"compared"` // a recorded state hash was available
	// SnapshotsDiffer are the cached snapshots (AuditOptions.Snapshots)
	// whose state differs from the fold at their sequence. They are a
	// cache, not the record: they do not fail the audit, they are
	// discarded.
	SnapshotsDiffer []uint64 `json:"snapshots_differ,omitempty"`
}

// AuditOptions give the audit what the events alone do not say.
type AuditOptions struct {
	// Expected is the state hash the recorder holds (live or at export),
	// compared with a fresh fold; nil when unknown.
	Expected *events.Hash
	// Lineage of a branch (store.Brancher): which match recorded which
	// of its events. Nil for a match that is no branch.
	Lineage []events.BranchPoint
	// Reveals are dice.revealed records its ancestors recorded after the
	// fork: they reveal the seeds of a branch's inherited rolls.
	Reveals [][]byte
	// Receipts, when given, are checked against the log.
	Receipts *Receipts
	// Log, when given, checks the records against the transparency log
	// (audit_log.go).
	Log *LogInputs
	// Snapshots are the state hashes of the store's cached snapshots, by
	// sequence (api.Bundle.Snapshots): the re-fold lists those that
	// differ (RefoldCheck.SnapshotsDiffer).
	Snapshots map[uint64]events.Hash
}

// Audit checks the events of match, in stored order.
func Audit(match string, evs []events.Event, lookup fold.Lookup, o AuditOptions) Report {
	recs := make([]record, len(evs))
	for i := range evs {
		recs[i] = record{key: evs[i].Seq, ev: &evs[i]}
	}
	return audit(match, recs, lookup, o)
}

// AuditRecords audits raw records, each stored under its key: a record
// that does not decode, is not canonical or is stored under another
// event's number is the chain check's, at its position.
func AuditRecords(match string, recs []Record, lookup fold.Lookup, o AuditOptions) Report {
	rs := make([]record, len(recs))
	for i, r := range recs {
		rs[i] = record{key: r.Key, raw: r.Data}
		if e, err := events.Unmarshal(r.Data); err != nil {
			rs[i].err = err
		} else {
			rs[i].ev = &e
		}
	}
	return audit(match, rs, lookup, o)
}

// audit runs every check of docs/bundle.md ("Verifying a bundle") and
// matchrec's re-fold.
func audit(match string, recs []record, lookup fold.Lookup, o AuditOptions) Report {
	r := Report{Match: match, Events: len(recs), Checks: Checks{Refold: &RefoldCheck{}}}
	r.Checks.Chain = checkChain(match, recs, o.Lineage, r.failer(CheckChain))
	// From the first record the chain check fails on, the records are not
	// known to be what was recorded: the other checks read the sound
	// records before it (docs/bundle.md, "Verifying a bundle").
	sound := len(recs)
	if first := r.First(CheckChain); first != 0 {
		sound = int(first) - 1
	}
	whole := sound == len(recs)
	var all, evs []events.Event
	for i, rec := range recs {
		if rec.ev != nil {
			all = append(all, *rec.ev)
			if i < sound {
				evs = append(evs, *rec.ev)
			}
		}
	}
	pre := startPrepass(evs) // on every core, beside the checks below
	defer pre.end()
	// The dice and end checks read the events alone: they run beside the
	// re-fold, on the other core, reporting into a report of their own,
	// whose problems come first, as if they had run before it.
	var side Report
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Checks.Dice, r.PendingReveal = checkDice(evs, whole, o.Reveals, o.Lineage, side.failer(CheckDice))
		r.Checks.End = checkEnd(evs, whole, side.failer(CheckEnd))
	}()
	base := len(r.Problems)
	st := newStatements(evs, r.failer(CheckStatements), pre)
	if !whole {
		o.Expected = nil // the state of a prefix is not the state recorded
	}
	checkRefold(match, evs, whole, lookup, o, st, &r)
	wg.Wait()
	r.Problems = append(append(r.Problems[:base:base], side.Problems...), r.Problems[base:]...)
	r.Signed = st.signed
	if n := len(st.created); r.Signed && n > 0 {
		r.OneHolder = projector.OneHolder(st.created[n-1].keys)
	}
	r.Checks.Statements = st.c
	if o.Log != nil && (o.Log.Proof != nil || len(o.Log.Held) > 0) {
		lc := checkLog(match, all, o.Log, r.failer(CheckLog))
		r.Checks.Log = &lc
	}
	if o.Receipts != nil {
		rc := checkReceipts(match, all, st.created, o.Receipts, r.failer(CheckReceipts))
		r.Checks.Receipts = &rc
	}
	r.judge()
	return r
}

// record is one stored record on its way through the checks: its key,
// its bytes (nil when audited from decoded events) and what they decode
// to.
type record struct {
	key uint64
	raw []byte
	ev  *events.Event
	err error
}

// checkRefold folds the whole match from scratch (as ruled), checks that
// each roll answered exactly the step the rules were waiting for, and
// compares the final state with the recorded one. Before each event it
// has st check the event's statement against the state before it. An
// event whose actor the rules did not allow is the actors check's; a
// witness, dispute or ruling that does not fold the witnesses check's.
// It fills in the report's manual rolls, disputes and what is unresolved.
// whole: evs are the whole log, not the sound records before a break.
func checkRefold(match string, evs []events.Event, whole bool, lookup fold.Lookup, o AuditOptions, st *statements, r *Report) {
	fail := r.failer(CheckRefold)
	if len(evs) == 0 {
		return // the chain check reports an empty log
	}
	f := fold.NewFolder(match, lookup)
	f.Lineage = o.Lineage
	discarded := map[uint64][]uint64{} // ruling seq → events it made the fold skip
	for i, e := range evs {
		var before *projector.State
		if e.Type == events.TypeRulingMade {
			before = f.State.Clone()
		}
		p, err := f.Decode(e)
		if err == nil {
			if roll, ok := p.(*events.DiceRolled); ok && f.State.Seq > 0 && !f.Ruled() {
				checkRollStep(f.State, e.Seq, roll, fail)
			}
			if f.Rules != nil {
				st.check(f, i, e, p)
			}
			err = f.ApplyDecoded(e, p)
		}
		if err != nil {
			switch {
			case errors.Is(err, projector.ErrNotAllowed):
				r.failer(CheckActors)(e.Seq, "wrong_actor", "%v", err)
			case isWitness(p):
				r.failer(CheckWitnesses)(e.Seq, "bad_witness", "%s does not fold: %v", e.Type, err)
			default:
				fail(e.Seq, "does_not_fold", "%s does not fold: %v", e.Type, err)
			}
			return
		}
		if before != nil {
			discarded[e.Seq] = newlySkipped(before, f.State)
		}
		if want, ok := o.Snapshots[e.Seq]; ok {
			if h, err := f.State.Hash(); err != nil || h != want {
				r.Checks.Refold.SnapshotsDiffer = append(r.Checks.Refold.SnapshotsDiffer, e.Seq)
			}
		}
	}
	if whole {
		st.close(evs[len(evs)-1].Seq + 1) // a prefix may end inside a command
	}
	rc := r.Checks.Refold
	h, err := f.State.Hash()
	if err != nil {
		fail(0, "does_not_fold", "hash the folded state: %v", err)
	}
	rc.StateHash = h
	if o.Expected != nil {
		rc.Compared = true
		if *o.Expected != h {
			fail(0, "state_differs", "the recorded state (%s) differs from a fresh fold of the events (%s)", o.Expected, h)
		}
	}
	witnesses(f, discarded, r)
}

func isWitness(p events.Payload) bool {
	switch p.(type) {
	case *events.RollConfirmed, *events.RollContested, *events.DisputeRaised, *events.RulingMade:
		return true
	}
	return false
}

// witnesses lists the physical rolls no opponent confirmed, the disputes
// and rulings, and what keeps a sound record from CLEAN: a contested roll
// no ruling settled (a ruling on a dispute of that roll, made after the
// contest: projector.ManualRoll.Settled), a dispute with no ruling.
// Unconfirmed rolls do not: a roll nobody objected to stands.
//
// A ruling's dispute also says what the ruling did: an amendment's old →
// new values and their effect, whether it is the ruling in force on its
// event or which later ruling replaced it, and the later events the
// as-ruled fold skips because of it (discarded: ruling seq → those
// events).
func witnesses(f *fold.Folder, discarded map[uint64][]uint64, r *Report) {
	s := f.State
	for _, m := range Witnessed(s) {
		if m.Status == projector.RollConfirmed {
			continue
		}
		r.ManualRolls = append(r.ManualRolls, ManualRoll{Seq: m.Seq, Roller: m.Roller, Status: m.Status, By: m.By, Reason: m.Reason, Witness: m.Witness, Settled: m.Settled})
		if m.Unsettled() {
			msg := fmt.Sprintf("contested at event %d, and no ruling on a dispute of it", m.By)
			if len(s.Rulings(m.Seq)) > 0 {
				msg = fmt.Sprintf("contested at event %d, and no ruling on a dispute of it since", m.By)
			}
			r.Unresolved = append(r.Unresolved, Unresolved{Seq: m.Seq, Code: "contested", Message: msg})
		}
	}
	for _, d := range s.Disputes {
		rd := Dispute{Seq: d.Seq, By: d.By, Event: d.Event, Reason: d.Reason, Ruling: d.Ruling, Decision: d.Decision, Note: d.Note,
			Discarded: discarded[d.Ruling], Superseded: d.Superseded}
		if in := s.InForce(d.Event); in != nil && in.Seq == d.Seq {
			rd.InForce = true
		}
		if d.Decision == events.RulingAmend {
			played, _ := f.Payload(d.Event)
			rd.Effect = AmendEffect(d, played)
		}
		r.Disputes = append(r.Disputes, rd)
		if d.Ruling == 0 {
			r.Unresolved = append(r.Unresolved, Unresolved{Seq: d.Seq, Code: "open_dispute", Message: fmt.Sprintf("a dispute of event %d with no ruling", d.Event)})
		}
	}
}

// Witnessed are the records an opponent confirms or contests — the
// physical rolls and the measurements taken at the table — in the order
// they were recorded, with what the opponent said of each.
func Witnessed(s *projector.State) []projector.ManualRoll {
	out := slices.Clone(s.Dice.Manual)
	for _, m := range s.Measures {
		out = append(out, projector.ManualRoll{Seq: m.Seq, Roller: m.Player, Status: m.Status, Reason: m.Reason, Hash: m.Hash, By: m.By, Witness: m.Witness, Settled: m.Settled})
	}
	slices.SortStableFunc(out, func(a, b projector.ManualRoll) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// checkRollStep compares what a roll event says it answered with what the
// fold says the match was waiting for.
func checkRollStep(s *projector.State, seq uint64, r *events.DiceRolled, fail failer) {
	p := s.Pending
	switch {
	case p.Kind != projector.WaitRoll:
		fail(seq, "wrong_step", "a roll, but the match was waiting for: %s", p.Text)
	case p.Player != r.Roller:
		fail(seq, "wrong_step", "%s rolled, but the rules asked %s to", r.Roller, p.Player)
	case p.Dice != r.Count || p.Need != r.Need || p.Purpose != r.Purpose:
		fail(seq, "wrong_step", "%d dice to %s needing %d+, but the rules asked for %d dice to %s needing %d+",
			r.Count, r.Purpose, r.Need, p.Dice, p.Purpose, p.Need)
	}
}
