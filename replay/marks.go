package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/kit"
	"github.com/matchrec/matchrec/store/api"
)

// A judge reads a roll twice: as played (what the event records) and as
// ruled (what counts after the rulings). The narration of an event tells
// it as played; its marks say what became of it: the witness state of a
// physical roll (unconfirmed, confirmed, contested), and the disputes and
// rulings about it — amended (old → new values and their effect), voided,
// upheld, disputed with no ruling yet — or that a ruling discarded it.
// Marks depend on later events, so they are set once the narrator has
// folded the match to its end (Narrator.Mark).

// Witness is the witness state of the manual roll at seq as a judge reads
// it ("unconfirmed", "confirmed", "CONTESTED by Bob: cocked die", or once
// a ruling settled the contest "contested by Bob: cocked die; settled by
// ruling 20"), "" for any other event.
func Witness(s *projector.State, seq uint64) string {
	for _, m := range s.Dice.Manual {
		if m.Seq == seq {
			return witnessText(s, m.Status, m.Reason, m.Witness, m.Settled)
		}
	}
	if m := s.Measure(seq); m != nil {
		return witnessText(s, m.Status, m.Reason, m.Witness, m.Settled)
	}
	return ""
}

// witnessText is a physical roll's or measurement's witness state, as
// Witness tells it.
func witnessText(s *projector.State, status, reason, witness string, settled uint64) string {
	if status != projector.RollContested {
		return status
	}
	by := ""
	if witness != "" {
		by = " by " + s.PlayerName(witness)
	}
	if settled != 0 {
		return fmt.Sprintf("contested%s: %s; settled by ruling %d", by, reason, settled)
	}
	return "CONTESTED" + by + ": " + reason
}

// Mark sets v's judge's marks from everything the narrator has folded so
// far: call it after the last event of the match, so that confirmations,
// disputes and rulings recorded after v's event count.
func (n *Narrator) Mark(v *api.EventView) {
	p, _ := n.f.Payload(v.Seq)
	n.markFrom(n.f.State, v, p)
}

// markFrom sets v's marks from s, the match's state after a later event
// than v's (its last, for every mark to count); p is v's payload as
// recorded. A narrator that told v itself knows what a ruling discarded.
func (n *Narrator) markFrom(s *projector.State, v *api.EventView, p events.Payload) {
	v.Witness = Witness(s, v.Seq)
	v.Marks = nil
	v.Marks = append(v.Marks, RulingMarks(s, v.Seq, p)...)
	for _, sk := range s.Skipped {
		if sk.Seq == v.Seq && !voided(s, sk.Seq) {
			v.Marks = append(v.Marks, "DISCARDED as ruled: "+sk.Why)
		}
	}
	for r, seqs := range n.discarded {
		if r == v.Seq && len(seqs) > 0 {
			v.Marks = append(v.Marks, "as ruled, this ruling discards events "+seqList(seqs))
		}
	}
}

// RulingMarks are the marks of the disputes and rulings of event seq,
// whose payload as played is p: the ruling in force first
// (projector.State.InForce), then the history — earlier rulings, each
// saying which ruling replaced it, and upholds, in the order they were
// made — then the disputes no ruling has answered yet.
func RulingMarks(s *projector.State, seq uint64, p events.Payload) []string {
	var out []string
	in := s.InForce(seq)
	if in != nil {
		out = append(out, RulingMark(*in, p))
	}
	for _, d := range s.Rulings(seq) {
		if in == nil || d.Seq != in.Seq {
			out = append(out, RulingMark(d, p))
		}
	}
	return out
}

// RulingMark tells what dispute d did to the event it is about, whose
// payload as played is p: "AMENDED by ruling 14 on dispute 13: 4 1 6 →
// 4 5 6 — 3 hits instead of 2", "VOIDED by ruling 14 on dispute 13",
// "disputed by bob at event 13 (…), upheld by ruling 14", "DISPUTED by
// bob at event 13: … — no ruling yet". A ruling a later one replaced
// (Superseded) is told in lower case, as history: "replaced by ruling 20:
// amended by ruling 14 on dispute 13: …".
func RulingMark(d projector.Dispute, p events.Payload) string {
	if d.Ruling == 0 {
		return fmt.Sprintf("DISPUTED by %s at event %d: %s — no ruling yet", d.By, d.Seq, d.Reason)
	}
	note := ""
	if d.Note != "" {
		note = " (" + d.Note + ")"
	}
	var out string
	switch d.Decision {
	case events.RulingVoid:
		out = fmt.Sprintf("VOIDED by ruling %d on dispute %d%s", d.Ruling, d.Seq, note)
	case events.RulingAmend:
		out = fmt.Sprintf("AMENDED by ruling %d on dispute %d: %s%s", d.Ruling, d.Seq, AmendEffect(d, p), note)
	default:
		return fmt.Sprintf("disputed by %s at event %d (%s), %s by ruling %d%s", d.By, d.Seq, d.Reason, pastTense(d.Decision), d.Ruling, note)
	}
	if d.Superseded != 0 {
		word, rest, _ := strings.Cut(out, " ")
		return fmt.Sprintf("replaced by ruling %d: %s %s", d.Superseded, strings.ToLower(word), rest)
	}
	return out
}

// pastTense is a decision as a mark tells it: upheld, voided, amended.
func pastTense(decision string) string {
	switch decision {
	case events.RulingUphold:
		return "upheld"
	case events.RulingVoid:
		return "voided"
	case events.RulingAmend:
		return "amended"
	}
	return decision
}

// AmendEffect tells an amendment as old → new and its effect: "4 1 6 →
// 4 5 6 — 3 hits instead of 2", "boy-1, boy-2 → boy-3, boy-4".
func AmendEffect(d projector.Dispute, p events.Payload) string {
	switch p := p.(type) {
	case *events.DiceRolled:
		if d.Values == nil {
			break
		}
		out := Faces(p.Values) + " → " + Faces(d.Values)
		if p.Need > 0 {
			was, now := projector.CountAtLeast(p.Values, p.Need), projector.CountAtLeast(d.Values, p.Need)
			noun := successNoun(p.Purpose)
			if was == now {
				out += fmt.Sprintf(" — still %s", kit.Count(now, strings.TrimSuffix(noun, "s"), noun))
			} else {
				out += fmt.Sprintf(" — %s instead of %d", kit.Count(now, strings.TrimSuffix(noun, "s"), noun), was)
			}
		}
		return out
	case *events.CasualtiesChosen:
		if d.Models != nil {
			return strings.Join(p.Models, ", ") + " → " + strings.Join(d.Models, ", ")
		}
	case *events.HitsDistributed:
		if d.Models != nil {
			return strings.Join(p.Models, ", ") + " → " + strings.Join(d.Models, ", ")
		}
	case *events.Measured:
		if d.Facts != nil {
			return FactsChanged(p.Facts, d.Facts)
		}
	}
	switch {
	case d.Values != nil:
		return "dice read as " + Faces(d.Values)
	case d.Models != nil:
		return "models read as " + strings.Join(d.Models, ", ")
	}
	return "amended"
}

// FactsChanged tells an amended measurement: each fact whose value the
// ruling changed, "range from tac-1: 11.5 → 12.5; target boy-2:
// out-of-range → in-range" ("no fact changed" when none did).
func FactsChanged(played, ruled []events.Fact) string {
	var out []string
	for _, r := range ruled {
		for _, p := range played {
			if p.Kind == r.Kind && p.Model == r.Model && p.From == r.From && p.Value != r.Value {
				out = append(out, fmt.Sprintf("%s: %s → %s", projector.FactName(p), p.Value, r.Value))
			}
		}
	}
	if len(out) == 0 {
		return "no fact changed"
	}
	return strings.Join(out, "; ")
}

// successNoun names what the successes of a roll are: hits, wounds, saves.
func successNoun(purpose string) string {
	switch purpose {
	case "hit", "wound", "save":
		return purpose + "s"
	}
	return "successes"
}

// Faces are dice as people write them: "5 3 6".
func Faces(values []int) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, " ")
}

// seqList lists event numbers: "8, 9, 10".
func seqList(seqs []uint64) string {
	s := make([]string, len(seqs))
	for i, q := range seqs {
		s[i] = strconv.FormatUint(q, 10)
	}
	return strings.Join(s, ", ")
}

// newlySkipped lists the events after has skipped that before had not:
// what a ruling just discarded.
func newlySkipped(before, after *projector.State) []uint64 {
	var out []uint64
	for _, sk := range after.Skipped {
		if !slices.ContainsFunc(before.Skipped, func(b projector.SkippedEvent) bool { return b.Seq == sk.Seq }) && !voided(after, sk.Seq) {
			out = append(out, sk.Seq)
		}
	}
	return out
}

// voided reports whether a ruling voided event seq.
func voided(s *projector.State, seq uint64) bool {
	return slices.ContainsFunc(s.Disputes, func(d projector.Dispute) bool {
		return d.Event == seq && d.Ruling != 0 && d.Decision == events.RulingVoid
	})
}
