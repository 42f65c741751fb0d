package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/fold"
)

// The ruling record (matchrec rulings): what a tournament keeps of a
// match's disputes — each dispute, the evidence (the disputed event as the
// log tells it, the roll with what it needed and why, the witnesses of
// it), the ruling, what it did to the board, and who said each of these
// with the signature that proves it. It is built from the events alone,
// like the audit, so a bundle file gives the same record as the store.

// RulingsRecord is the ruling record of one match.
type RulingsRecord struct {
	Match   string             `json:"match"`
	Name    string             `json:"name,omitempty"`
	Edition string             `json:"edition"`
	Players []projector.Player `json:"players"`
	Events  int                `json:"events"`
	// Head is the hash of the last event: the record this is of.
	Head events.Hash `json:"head"`
	// Verdict is the audit's (CLEAN, FAILED, UNRESOLVED); Signed and
	// OneHolder as the audit says them.
	Verdict   string          `json:"verdict"`
	Signed    bool            `json:"signed"`
	OneHolder []string        `json:"one_holder,omitempty"`
	Disputes  []DisputeRecord `json:"disputes"`
}

// DisputeRecord is one dispute with its evidence and its ruling (nil: not
// ruled on yet).
type DisputeRecord struct {
	Dispute   Said         `json:"dispute"`
	Reason    string       `json:"reason"`
	Event     Said         `json:"event"` // the disputed event
	Roll      *Explanation `json:"roll,omitempty"`
	Witnesses []Said       `json:"witnesses,omitempty"` // the confirmations and contests of the disputed roll
	Ruling    *RulingEntry `json:"ruling,omitempty"`
}

// RulingEntry is a ruling and its effect.
type RulingEntry struct {
	Said
	Decision string   `json:"decision"`
	Note     string   `json:"note,omitempty"`
	Values   []int    `json:"values,omitempty"`
	Models   []string `json:"models,omitempty"`
	// Effect is an amendment as old → new and what it changed; InForce
	// and Superseded say whether it is the ruling in force on its event
	// (projector.State.InForce) or which later ruling replaced it.
	Effect     string `json:"effect,omitempty"`
	InForce    bool   `json:"in_force,omitempty"`
	Superseded uint64 `json:"superseded,omitempty"`
	// Board is what the ruling changed on the board as ruled, from just
	// before it to just after it; Discarded the later events it left
	// answering nothing.
	Board     []BoardChange `json:"board"`
	Discarded []uint64      `json:"discarded,omitempty"`
}

// BoardChange is one thing a ruling changed: a unit's models on the
// table, what the match waits for.
type BoardChange struct {
	What   string `json:"what"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// Said is one event as the record shows it: who said it and when, the
// log's line, and the proof of who said it — in a signed match the role's
// key and the signature of the command's statement, checked here.
type Said struct {
	Seq   uint64       `json:"seq"`
	Type  events.Type  `json:"type"`
	Time  string       `json:"time"`
	Actor events.Actor `json:"actor"`
	Text  string       `json:"text"`
	Marks []string     `json:"marks,omitempty"`
	Hash  events.Hash  `json:"hash"`
	// Role, Key and Signature of the command's statement (a signed match;
	// Verified: the signature is the key's over it). An unsigned match's
	// command carries its statement but no signature: its operator is
	// trusted.
	Role      string `json:"role,omitempty"`
	Key       string `json:"key,omitempty"`
	Signature string `json:"signature,omitempty"`
	Verified  bool   `json:"verified"`
}

// RecordRulings builds the ruling record of match from its events
// (lineage for a branch, else nil) and its audit report.
func RecordRulings(match string, evs []events.Event, lineage []events.BranchPoint, lookup fold.Lookup, rep Report) (*RulingsRecord, error) {
	if len(evs) == 0 {
		return nil, fmt.Errorf("match %s has no events", match)
	}
	keys, _, _ := parties(evs, func(uint64, string, string, ...any) {})
	var disputes []uint64
	for _, e := range evs {
		if e.Type == events.TypeDisputeRaised {
			disputes = append(disputes, e.Seq)
		}
	}
	n := NewNarratorFor(lookup)
	n.f.Lineage = lineage
	said := map[uint64]*Said{}
	board := map[uint64][]BoardChange{} // ruling seq → what it changed
	var witnessed []events.Event        // confirmations and contests
	for i, e := range evs {
		var before *projector.State
		if e.Type == events.TypeRulingMade {
			before = n.f.State.Clone()
		}
		lines, err := n.Next(e)
		if err != nil {
			return nil, fmt.Errorf("event %d does not fold (run matchrec audit): %w", e.Seq, err)
		}
		if before != nil {
			board[e.Seq] = boardChanges(before, n.f.State)
		}
		if e.Type == events.TypeRollConfirmed || e.Type == events.TypeRollContested {
			witnessed = append(witnessed, e)
		}
		v, err := n.View(e, lines)
		if err != nil {
			return nil, err
		}
		said[e.Seq] = &Said{Seq: e.Seq, Type: e.Type, Time: time.Unix(0, e.Time).UTC().Format(time.RFC3339), Actor: e.Actor,
			Text: v.Text, Hash: e.Hash}
		signature(said[e.Seq], e, keys[i])
	}
	final := n.f.State
	rec := &RulingsRecord{Match: match, Name: final.Name, Edition: final.Edition, Players: final.Players, Events: len(evs),
		Head: evs[len(evs)-1].Hash, Verdict: rep.Verdict, Signed: rep.Signed, OneHolder: rep.OneHolder, Disputes: []DisputeRecord{}}
	inAudit := map[uint64]Dispute{}
	for _, d := range rep.Disputes {
		inAudit[d.Seq] = d
	}
	for _, seq := range disputes {
		d := final.Dispute(seq)
		if d == nil {
			continue
		}
		dr := DisputeRecord{Dispute: *said[seq], Reason: d.Reason}
		if ev, ok := said[d.Event]; ok {
			dr.Event = *ev
			dr.Event.Marks = marked(n, d.Event)
		}
		if dr.Event.Type == events.TypeDiceRolled {
			x, err := Explain(match, evs, lineage, lookup, d.Event)
			if err == nil {
				dr.Roll = x
			}
			for _, w := range witnessed {
				if witnessOf(w, d.Event, final) {
					dr.Witnesses = append(dr.Witnesses, *said[w.Seq])
				}
			}
		}
		if d.Ruling != 0 {
			r := &RulingEntry{Said: *said[d.Ruling], Decision: d.Decision, Note: d.Note, Values: d.Values, Models: d.Models,
				Superseded: d.Superseded, Board: board[d.Ruling], Discarded: inAudit[seq].Discarded, Effect: inAudit[seq].Effect}
			if in := final.InForce(d.Event); in != nil && in.Seq == d.Seq {
				r.InForce = true
			}
			if r.Board == nil {
				r.Board = []BoardChange{}
			}
			dr.Ruling = r
		}
		rec.Disputes = append(rec.Disputes, dr)
	}
	return rec, nil
}

// marked are the judge's marks on event seq as the match stands at its
// end: its witness state, then its rulings (RulingMarks).
func marked(n *Narrator, seq uint64) []string {
	p, ok := n.f.Payload(seq)
	if !ok {
		return nil
	}
	var marks []string
	if w := Witness(n.f.State, seq); w != "" {
		marks = append(marks, w)
	}
	return append(marks, RulingMarks(n.f.State, seq, p)...)
}

// witnessOf reports whether w (a confirmation or contest) is a witness of
// the roll at seq: it names it, or confirms every roll up to the head and
// the roll's confirmation is w's.
func witnessOf(w events.Event, seq uint64, final *projector.State) bool {
	p, err := events.Core().Decode(w)
	if err != nil {
		return false
	}
	switch p := p.(type) {
	case *events.RollContested:
		return p.Roll == seq
	case *events.RollConfirmed:
		if p.Upto == 0 {
			return p.Roll == seq
		}
		i := slices.IndexFunc(final.Dice.Manual, func(m projector.ManualRoll) bool { return m.Seq == seq })
		return i >= 0 && final.Dice.Manual[i].By == w.Seq
	}
	return false
}

// signature fills in who signed e's command, with the key in force for
// its role (keys), and checks the signature.
func signature(s *Said, e events.Event, keys map[string]string) {
	if e.Auth == nil {
		return
	}
	st, err := auth.ParseStatement(e.Auth.Statement)
	if err != nil {
		return
	}
	s.Role = st.Role
	if !e.Auth.Signed() {
		return
	}
	s.Signature = fmt.Sprintf("%x", e.Auth.Signature)
	s.Key = keys[st.Role]
	if pub, err := auth.ParsePublicKey(s.Key); err == nil {
		s.Verified = auth.Verify(pub, auth.StatementDomain, e.Auth.Statement, e.Auth.Signature)
	}
}

// boardChanges tells what changed on the board from before to after (a
// ruling's fold): the models each unit has on the table, and what the
// match waits for.
func boardChanges(before, after *projector.State) []BoardChange {
	var out []BoardChange
	for _, u := range after.Units {
		b := before.Unit(u.ID)
		if b == nil {
			continue
		}
		if was, now := len(b.AliveModels()), len(u.AliveModels()); was != now {
			out = append(out, BoardChange{What: u.DisplayName() + ": models on the table", Before: fmt.Sprint(was), After: fmt.Sprint(now)})
		}
	}
	for _, t := range after.Tally {
		b := before.TallyOf(t.Player)
		if b.WoundsCaused != t.WoundsCaused {
			out = append(out, BoardChange{What: after.PlayerName(t.Player) + ": wounds caused", Before: fmt.Sprint(b.WoundsCaused), After: fmt.Sprint(t.WoundsCaused)})
		}
	}
	if before.Pending.Text != after.Pending.Text {
		out = append(out, BoardChange{What: "the match waits for", Before: before.Pending.Text, After: after.Pending.Text})
	}
	if before.Ended != after.Ended {
		out = append(out, BoardChange{What: "the match has ended", Before: fmt.Sprint(before.Ended), After: fmt.Sprint(after.Ended)})
	}
	return out
}
