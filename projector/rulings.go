package projector

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
)

// The ruling in force on an event, and what may be disputed at all.
//
// A judge may rule on one event more than once: each dispute of it gets
// its own ruling, and a player may dispute an amended roll again. The
// ruling in force is the last void or amend ruling on the event, by the
// ruling's event number: a later one replaces an earlier one (that one is
// Superseded), and an uphold leaves the event as it stands — as played,
// or as the ruling in force before it reads it. This file is the one
// place that says so; the fold (fold.Folder reads events under the
// rulings in force), the state's readers, the audit, the log's marks, the
// explanation of a roll, the ruling record and the web pages (through
// Dispute.Superseded and ManualRoll.Settled in the state) all ask here.

// Changes reports whether a ruling's decision changes how its event reads
// (void, amend), so that it replaces any earlier ruling on the event; an
// uphold changes nothing.
func Changes(decision string) bool {
	return decision == events.RulingVoid || decision == events.RulingAmend
}

// InForce returns the dispute whose ruling is in force on event seq: the
// last void or amend ruling on it. Nil when none is: the event reads as
// played.
func (s *State) InForce(seq uint64) *Dispute {
	var out *Dispute
	for i := range s.Disputes {
		d := &s.Disputes[i]
		if d.Event == seq && d.Ruling != 0 && Changes(d.Decision) && (out == nil || d.Ruling > out.Ruling) {
			out = d
		}
	}
	return out
}

// Rulings returns the disputes of event seq, the ruled ones in the order
// they were ruled on, then the open ones in the order raised: the history
// of rulings on the event.
func (s *State) Rulings(seq uint64) []Dispute {
	var out []Dispute
	for _, d := range s.Disputes {
		if d.Event == seq {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Dispute) int {
		switch {
		case a.Ruling == b.Ruling:
			return 0
		case a.Ruling == 0:
			return 1
		case b.Ruling == 0:
			return -1
		case a.Ruling < b.Ruling:
			return -1
		}
		return 1
	})
	return out
}

// Unsettled reports whether m is contested and no ruling has settled the
// contest yet: a ruling on a dispute of the roll settles it only when it
// comes after the contest.
func (m *ManualRoll) Unsettled() bool { return m.Status == RollContested && m.Settled == 0 }

// rule folds ruling r (event seq) into the dispute it answers: the ruling
// it replaces is superseded, and a contest of the roll it rules on is
// settled.
func (s *State) rule(d *Dispute, seq uint64, r *events.RulingMade) {
	if Changes(r.Decision) {
		if prev := s.InForce(d.Event); prev != nil {
			prev.Superseded = seq
		}
	}
	d.Ruling, d.Decision, d.Values, d.Models, d.Facts, d.Note = seq, r.Decision, r.Values, r.Models, r.Facts, r.Note
	if w, ok := s.witnessable(d.Event); ok && *w.status == RollContested && *w.settled == 0 {
		*w.settled = seq
	}
}

// NotDisputable says why the event at seq, whose payload is p, cannot be
// disputed, or "" when it can. Play is disputable — declarations, dice
// rolls, choices of models, turns and phases, the end — since a ruling
// can void or amend it. The dice's bookkeeping (seeds, commitments,
// reveals, requests, contributions), joins, the match's creation and the
// witnesses, disputes and rulings themselves are not: the audit checks
// them, and no ruling could change them.
func NotDisputable(seq uint64, p events.Payload) string {
	what := ""
	switch p.(type) {
	case *events.MatchCreated, *events.BranchCreated:
		what = "the match's creation"
	case *events.MatchJoined:
		what = "a participant's join"
	case *events.DiceCommitted, *events.DiceRevealed, *events.SeedContributed, *events.SeedCommitted,
		*events.SeedRevealed, *events.SeedExcused, *events.RevealRequested:
		what = "a dice seed's commitment, reveal or excuse"
	case *events.DiceRequested, *events.DiceContributed:
		what = "a request or contribution of digital dice"
	case *events.RollConfirmed, *events.RollContested:
		what = "a witness of a roll"
	case *events.DisputeRaised:
		what = "a dispute"
	case *events.RulingMade:
		what = "a ruling (dispute the event it ruled on again)"
	case *events.EndProposed:
		what = "an offer to end the match"
	default:
		return ""
	}
	return fmt.Sprintf("event %d (%s) is %s, which is not disputable: dispute a declaration, a roll or a choice of models", seq, p.EventType(), what)
}
