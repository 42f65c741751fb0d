package replay

import (
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
)

// Report is a judge's audit of one match: every check, what it found, and
// an overall verdict. It is built from the events alone, so the same
// report comes from the store (matchrec audit) and from a bundle
// (matchrec verify).
type Report struct {
	Match  string `json:"match"`
	Events int    `json:"events"`
	// OK is Verdict == VerdictClean.
	OK bool `json:"ok"`
	// Verdict is CLEAN, FAILED or UNRESOLVED (docs/bundle.md).
	Verdict string `json:"verdict"`
	// Signed: the participants signed their commands; an unsigned match's
	// verdict trusts the operator of its recorder.
	Signed bool `json:"signed"`

	Chain      ChainCheck     `json:"chain"`
	Statements StatementCheck `json:"statements"`
	Actors     ActorCheck     `json:"actors"`
	Dice       DiceCheck      `json:"dice"`
	Refold     RefoldCheck    `json:"refold"`
	// Receipts is the check of a participant's receipts, when given.
	Receipts *ReceiptCheck          `json:"receipts,omitempty"`
	Manual   []projector.ManualRoll `json:"manual_rolls,omitempty"` // unconfirmed and contested physical rolls
	Disputes []projector.Dispute    `json:"disputes,omitempty"`     // the disputes and rulings timeline
	// Unsettled are contested rolls no ruling has settled, Open disputes
	// with no ruling: either leaves the verdict UNRESOLVED.
	Unsettled []uint64 `json:"unsettled,omitempty"`
	Open      []uint64 `json:"open_disputes,omitempty"`
}

// Verdicts of an audit, and the exit codes of audit and verify.
const (
	VerdictClean      = "CLEAN"      // exit 0
	VerdictFailed     = "FAILED"     // exit 1: the record was changed, forged or damaged
	VerdictUnresolved = "UNRESOLVED" // exit 3: sound, but a dispute or contested roll awaits a ruling
)

// ActorCheck is who acted: every event by an actor the rules allowed at
// that point, nothing after the end but what may follow it
// (docs/events.md, "Who may author each event"; projector.CheckActor).
type ActorCheck struct {
	OK       bool     `json:"ok"`
	FirstBad uint64   `json:"first_bad,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// ChainCheck is the hash chain and sequence check.
type ChainCheck struct {
	OK bool `json:"ok"`
	// FirstBroken is the first sequence number at which the chain or the
	// numbering fails (0 when none).
	FirstBroken uint64   `json:"first_broken,omitempty"`
	Problems    []string `json:"problems,omitempty"`
	Gaps        []uint64 `json:"gaps,omitempty"` // missing sequence numbers
}

// RefoldCheck compares a fresh fold of the whole match with what was
// recorded: every roll answered the step the rules asked for, and the final
// state equals the recorded state (when one is known).
type RefoldCheck struct {
	OK        bool        `json:"ok"`
	StateHash events.Hash `json:"state_hash"`
	Compared  bool        `json:"compared"` // a recorded state hash was available
	FirstBad  uint64      `json:"first_bad,omitempty"`
	Problems  []string    `json:"problems,omitempty"`
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
	// Reveals are dice.revealed events recorded by a branch's ancestors
	// after the fork: they reveal the seeds of the inherited rolls.
	Reveals []events.Event
	// Receipts, when given, are checked against the log.
	Receipts *Receipts
	// Snapshots are the state hashes of the store's cached snapshots, by
	// sequence (api.Bundle.Snapshots): the re-fold lists those that
	// differ (RefoldCheck.SnapshotsDiffer).
	Snapshots map[uint64]events.Hash
}

// Audit checks the events of match, in stored order.
func Audit(match string, evs []events.Event, lookup fold.Lookup, o AuditOptions) Report {
	r := Report{Match: match, Events: len(evs)}
	r.Chain = checkChain(match, evs, o.Lineage)
	r.Dice = checkDice(match, evs, o.Reveals)
	st := newStatements(evs)
	r.Refold, r.Actors, r.Manual, r.Disputes = checkRefold(match, evs, lookup, o, st)
	r.Statements, r.Signed = st.c, st.c.Signed
	if o.Receipts != nil {
		rc := checkReceipts(match, evs, st.keys[len(evs)], o.Receipts)
		r.Receipts = &rc
	}
	r.Unsettled = unsettled(r.Manual, r.Disputes)
	for _, d := range r.Disputes {
		if d.Ruling == 0 {
			r.Open = append(r.Open, d.Seq)
		}
	}
	r.judge()
	return r
}

// judge sets the verdict from the checks.
func (r *Report) judge() {
	failed := !r.Chain.OK || !r.Statements.OK || !r.Actors.OK || !r.Dice.OK || !r.Refold.OK || (r.Receipts != nil && !r.Receipts.OK)
	switch {
	case failed:
		r.Verdict = VerdictFailed
	case len(r.Unsettled) > 0 || len(r.Open) > 0:
		r.Verdict = VerdictUnresolved
	default:
		r.Verdict = VerdictClean
	}
	r.OK = r.Verdict == VerdictClean
}

// unsettled lists contested rolls that no ruling has settled. Unconfirmed
// rolls are reported but do not fail the audit: a roll nobody objected to
// stands.
func unsettled(manual []projector.ManualRoll, disputes []projector.Dispute) []uint64 {
	var out []uint64
	for _, m := range manual {
		if m.Status != projector.RollContested {
			continue
		}
		ruled := false
		for _, d := range disputes {
			ruled = ruled || (d.Event == m.Seq && d.Ruling != 0)
		}
		if !ruled {
			out = append(out, m.Seq)
		}
	}
	return out
}

// checkChain walks the events in stored order: numbers 1, 2, 3… with no
// gap or swap, each prev_hash the previous event's hash, each hash its
// content's.
func checkChain(match string, evs []events.Event, lineage []events.BranchPoint) ChainCheck {
	c := ChainCheck{OK: true}
	fail := func(seq uint64, format string, args ...any) {
		if c.OK {
			c.OK, c.FirstBroken = false, seq
		}
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
	var prev events.Hash
	next := uint64(1)
	for i, e := range evs {
		switch {
		case e.Seq > next:
			for s := next; s < e.Seq; s++ {
				c.Gaps = append(c.Gaps, s)
			}
			fail(next, "events %d to %d are missing (found %d after %d)", next, e.Seq-1, e.Seq, next-1)
		case e.Seq < next:
			fail(next, "position %d holds event %d where event %d should be (events out of order)", i+1, e.Seq, next)
		}
		if want := fold.RecordedBy(lineage, match, e.Seq); e.Match != want {
			fail(e.Seq, "event %d says it was recorded by match %s, not %s", e.Seq, e.Match, want)
		}
		if got := events.ComputeHash(e); got != e.Hash {
			fail(e.Seq, "event %d: its content does not match its hash (edited after it was recorded)", e.Seq)
		}
		if e.PrevHash != prev {
			fail(e.Seq, "event %d: prev_hash does not link to event %d", e.Seq, e.Seq-1)
		}
		prev, next = e.Hash, e.Seq+1
	}
	return c
}

// checkRefold folds the whole match from scratch (as ruled), checks that
// each roll answered exactly the step the rules were waiting for, and
// compares the final state with the recorded one. Before each event it
// has st check the event's statement against the state before it; an
// event whose actor the rules did not allow is the actors check's.
func checkRefold(match string, evs []events.Event, lookup fold.Lookup, o AuditOptions, st *statements) (RefoldCheck, ActorCheck, []projector.ManualRoll, []projector.Dispute) {
	c := RefoldCheck{OK: true}
	ac := ActorCheck{OK: true}
	fail := func(seq uint64, format string, args ...any) {
		if c.OK || (seq != 0 && seq < c.FirstBad) {
			c.FirstBad = seq
		}
		c.OK = false
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
	if len(evs) == 0 {
		fail(0, "the match has no events")
		return c, ac, nil, nil
	}
	f := fold.NewFolder(match, lookup)
	f.Lineage = o.Lineage
	for i, e := range evs {
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
			if errors.Is(err, projector.ErrNotAllowed) {
				ac.OK, ac.FirstBad = false, e.Seq
				ac.Problems = append(ac.Problems, fmt.Sprintf("event %d: %v", e.Seq, err))
			} else {
				fail(e.Seq, "event %d does not fold: %v", e.Seq, err)
			}
			return c, ac, nil, nil
		}
		if want, ok := o.Snapshots[e.Seq]; ok {
			if h, err := f.State.Hash(); err != nil || h != want {
				c.SnapshotsDiffer = append(c.SnapshotsDiffer, e.Seq)
			}
		}
	}
	st.close(evs[len(evs)-1].Seq + 1)
	h, err := f.State.Hash()
	if err != nil {
		fail(0, "hash the folded state: %v", err)
	}
	c.StateHash = h
	if o.Expected != nil {
		c.Compared = true
		if *o.Expected != h {
			fail(0, "the recorded state (%s) differs from a fresh fold of the events (%s)", o.Expected, h)
		}
	}
	var manual []projector.ManualRoll
	for _, m := range f.State.Dice.Manual {
		if m.Status != projector.RollConfirmed {
			manual = append(manual, m)
		}
	}
	return c, ac, manual, f.State.Disputes
}

// checkRollStep compares what a roll event says it answered with what the
// fold says the match was waiting for.
func checkRollStep(s *projector.State, seq uint64, r *events.DiceRolled, fail func(uint64, string, ...any)) {
	p := s.Pending
	switch {
	case p.Kind != projector.WaitRoll:
		fail(seq, "event %d is a roll, but the match was waiting for: %s", seq, p.Text)
	case p.Player != r.Roller:
		fail(seq, "event %d: %s rolled, but the rules asked %s to", seq, r.Roller, p.Player)
	case p.Dice != r.Count || p.Need != r.Need || p.Purpose != r.Purpose:
		fail(seq, "event %d records %d dice to %s needing %d+, but the rules asked for %d dice to %s needing %d+",
			seq, r.Count, r.Purpose, r.Need, p.Dice, p.Purpose, p.Need)
	}
}
