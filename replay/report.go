package replay

import (
	"fmt"
	"slices"
)

// Report is a judge's audit of one match: every problem each check found,
// the verdict, and what stays open. Its JSON is the report of
// docs/bundle.md ("The report"), the one shape both verifiers print
// (matchrec verify --json and tools/verify.py --json). It is built from
// the events alone, so the same report comes from the store (matchrec
// audit) and from a bundle (matchrec verify).
type Report struct {
	Match  string `json:"match"`
	Events int    `json:"events"`
	// Verdict is CLEAN, FAILED or UNRESOLVED; OK is Verdict == CLEAN.
	Verdict string `json:"verdict"`
	OK      bool   `json:"ok"`
	// Signed: every part of the match (the match, and each ancestor of a
	// branch) has participants' keys; otherwise its operator is trusted.
	Signed bool `json:"signed"`
	// OneHolder lists the roles that share one key (matchrec play --sign:
	// one person scripted every role): their signatures and their dice
	// contributions are that one holder's, so they say nothing about
	// which of them decided, and that holder could foresee the dice.
	OneHolder []string `json:"one_holder,omitempty"`
	// FirstBadSeq is the lowest sequence any problem names (0 when none
	// does), FirstBadCheck the first check, in CheckOrder, naming it.
	FirstBadSeq   uint64 `json:"first_bad_seq"`
	FirstBadCheck string `json:"first_bad_check"`
	// Problems fail the verdict; Unresolved (contested rolls and disputes
	// with no ruling) leave a sound record UNRESOLVED.
	Problems   []Problem    `json:"problems"`
	Unresolved []Unresolved `json:"unresolved"`
	// ManualRolls are the physical rolls no opponent confirmed (they
	// stand) and the contested ones; Disputes the disputes and rulings.
	ManualRolls []ManualRoll `json:"manual_rolls"`
	Disputes    []Dispute    `json:"disputes"`
	// PendingReveal are digital rolls whose epoch is still secret.
	PendingReveal []uint64 `json:"pending_reveal"`
	Checks        Checks   `json:"checks"`
	// NotChecked says what this verifier leaves to another: nothing, for
	// matchrec's own.
	NotChecked []string `json:"not_checked"`
}

// Problem is one thing a check found wrong. Seq is the event it concerns
// (for the chain: the position of the record, the event that should be
// there); 0 when it concerns none (a state hash, an ancestor's reveal).
type Problem struct {
	Seq     uint64 `json:"seq"`
	Check   string `json:"check"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Seq == 0 {
		return fmt.Sprintf("%s: %s", p.Code, p.Message)
	}
	return fmt.Sprintf("event %d: %s: %s", p.Seq, p.Code, p.Message)
}

// Unresolved is what keeps a sound record from CLEAN: a contested roll no
// ruling made after the contest settled (code contested, at the roll), a dispute with no ruling
// (code open_dispute, at the dispute).
type Unresolved struct {
	Seq     uint64 `json:"seq"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ManualRoll is a physical roll no opponent has confirmed: unconfirmed, or
// contested (By: the contest, with its Reason).
type ManualRoll struct {
	Seq    uint64 `json:"seq"`
	Roller string `json:"roller"`
	Status string `json:"status"`
	By     uint64 `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Witness (who confirmed or contested it) and Settled (the ruling,
	// made after the contest, that settled it) are matchrec's additions.
	Witness string `json:"witness,omitempty"`
	Settled uint64 `json:"settled,omitempty"`
}

// Dispute is a dispute and, once ruled on, its ruling.
type Dispute struct {
	Seq      uint64 `json:"seq"`
	By       string `json:"by"`
	Event    uint64 `json:"event"`
	Reason   string `json:"reason"`
	Ruling   uint64 `json:"ruling,omitempty"`
	Decision string `json:"decision,omitempty"`
	Note     string `json:"note,omitempty"`
	// Effect and Discarded tell what a ruling did (matchrec's additions,
	// not required of other verifiers: docs/bundle.md, "The report"): an
	// amendment as old → new values with its effect, and the later events
	// the as-ruled fold skips because of the ruling.
	Effect    string   `json:"effect,omitempty"`
	Discarded []uint64 `json:"discarded,omitempty"`
	// InForce: this void or amend ruling is the one in force on its event
	// (the last made); Superseded: the later ruling that replaced it
	// (projector.State.InForce).
	InForce    bool   `json:"in_force,omitempty"`
	Superseded uint64 `json:"superseded,omitempty"`
}

// The checks of a verification (docs/bundle.md, "Verifying a bundle"), in
// the order a report names the first of them at an event.
const (
	CheckChain      = "chain"
	CheckStatements = "statements"
	CheckActors     = "actors"
	CheckDice       = "dice"
	CheckEnd        = "end"
	CheckWitnesses  = "witnesses"
	CheckRefold     = "refold"
	CheckLog        = "log"
	CheckReceipts   = "receipts"
)

// CheckOrder is the order of the checks.
var CheckOrder = []string{CheckChain, CheckStatements, CheckActors, CheckDice, CheckEnd, CheckWitnesses, CheckRefold, CheckLog, CheckReceipts}

// Checks is what each check counted; each is OK when it found no problem.
type Checks struct {
	Chain      ChainCheck     `json:"chain"`
	Statements StatementCheck `json:"statements"`
	Actors     Check          `json:"actors"`
	Dice       DiceCheck      `json:"dice"`
	End        EndCheck       `json:"end"`
	Witnesses  Check          `json:"witnesses"`
	Refold     *RefoldCheck   `json:"refold,omitempty"`
	Log        *LogCheck      `json:"log,omitempty"`
	Receipts   *ReceiptCheck  `json:"receipts,omitempty"`
}

// Check is a check with nothing to count.
type Check struct {
	OK bool `json:"ok"`
}

// ChainCheck is the hash chain and numbering of the records.
type ChainCheck struct {
	OK      bool `json:"ok"`
	Records int  `json:"records"`
}

// EndCheck is what may follow match.ended (Ended: its sequence, 0 when
// the match has not ended).
type EndCheck struct {
	OK    bool   `json:"ok"`
	Ended uint64 `json:"ended"`
}

// Verdicts of an audit, and the exit codes of audit and verify.
const (
	VerdictClean      = "CLEAN"      // exit 0
	VerdictFailed     = "FAILED"     // exit 1: the record was changed, forged or damaged
	VerdictUnresolved = "UNRESOLVED" // exit 3: sound, but a dispute or contested roll awaits a ruling
)

// failer records a problem of one check.
type failer func(seq uint64, code, format string, args ...any)

// failer returns the function a check reports its problems with.
func (r *Report) failer(check string) failer {
	return func(seq uint64, code, format string, args ...any) {
		r.Problems = append(r.Problems, Problem{Seq: seq, Check: check, Code: code, Message: fmt.Sprintf(format, args...)})
	}
}

// Of returns the problems check found.
func (r *Report) Of(check string) []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Check == check {
			out = append(out, p)
		}
	}
	return out
}

// First returns the lowest sequence check names (0 when none, or when
// its problems name no event).
func (r *Report) First(check string) uint64 {
	var first uint64
	for _, p := range r.Of(check) {
		if p.Seq != 0 && (first == 0 || p.Seq < first) {
			first = p.Seq
		}
	}
	return first
}

// judge sets the verdict, the first bad sequence and each check's OK
// from the problems.
func (r *Report) judge() {
	failed := func(check string) bool { return len(r.Of(check)) > 0 }
	c := &r.Checks
	c.Chain.OK, c.Statements.OK, c.Actors.OK = !failed(CheckChain), !failed(CheckStatements), !failed(CheckActors)
	c.Dice.OK, c.End.OK, c.Witnesses.OK = !failed(CheckDice), !failed(CheckEnd), !failed(CheckWitnesses)
	if c.Refold != nil {
		c.Refold.OK = !failed(CheckRefold)
	}
	if c.Log != nil {
		c.Log.OK = !failed(CheckLog)
	}
	if c.Receipts != nil {
		c.Receipts.OK = !failed(CheckReceipts)
	}
	slices.SortStableFunc(r.Problems, func(a, b Problem) int {
		return slices.Index(CheckOrder, a.Check) - slices.Index(CheckOrder, b.Check)
	})
	r.FirstBadSeq, r.FirstBadCheck = 0, ""
	for _, p := range r.Problems {
		switch {
		case r.FirstBadCheck == "":
			r.FirstBadSeq, r.FirstBadCheck = p.Seq, p.Check
		case p.Seq != 0 && (r.FirstBadSeq == 0 || p.Seq < r.FirstBadSeq):
			r.FirstBadSeq, r.FirstBadCheck = p.Seq, p.Check
		}
	}
	switch {
	case len(r.Problems) > 0:
		r.Verdict = VerdictFailed
	case len(r.Unresolved) > 0:
		r.Verdict = VerdictUnresolved
	default:
		r.Verdict = VerdictClean
	}
	r.OK = r.Verdict == VerdictClean
	// Lists are [] in JSON, never null: a reader need not tell the two apart.
	r.Problems, r.Unresolved, r.ManualRolls = orEmpty(r.Problems), orEmpty(r.Unresolved), orEmpty(r.ManualRolls)
	r.Disputes, r.PendingReveal, r.NotChecked = orEmpty(r.Disputes), orEmpty(r.PendingReveal), orEmpty(r.NotChecked)
	c.Dice.Mismatches = orEmpty(c.Dice.Mismatches)
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
