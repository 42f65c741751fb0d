package replay

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// A witness, a dispute or a ruling changes the marks of an earlier event:
// a live reader that showed that event already (the web pages' feed, the
// overlay) needs its new marks when the later event arrives. The narrator
// says which events the event it told last concerns (Concerned) and
// re-marks them as the match stands after it (Remarks).

// Remark is an earlier event as the match stands now: its payload as
// recorded, its witness state and marks (Narrator.Mark), and the ruling in
// force on it. It has no text: telling an event needs the state before it.
type Remark struct {
	Seq     uint64          `json:"seq"`
	Type    events.Type     `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Witness string          `json:"witness,omitempty"`
	Marks   []string        `json:"marks,omitempty"`
	InForce *InForce        `json:"in_force,omitempty"`
}

// InForce is the ruling in force on an event (projector.State.InForce)
// and what it did: "4 1 6 → 5 3 6 — 3 hits instead of 2".
type InForce struct {
	Ruling   uint64 `json:"ruling"`
	Dispute  uint64 `json:"dispute"`
	Decision string `json:"decision"`
	Note     string `json:"note,omitempty"`
	Effect   string `json:"effect,omitempty"`
}

// concerned lists the earlier events whose marks e (payload p) changed,
// from the states before and after it: the roll a witness names (every
// roll a confirmation up to the head confirmed), the event a dispute or a
// ruling is about, and the events a ruling discarded or brought back.
func concerned(before, after *projector.State, e events.Event, p events.Payload) []uint64 {
	var out []uint64
	switch p := p.(type) {
	case *events.RollConfirmed:
		if p.Upto == 0 {
			return []uint64{p.Roll}
		}
		for _, m := range after.Dice.Manual {
			if m.By == e.Seq {
				out = append(out, m.Seq)
			}
		}
	case *events.RollContested:
		out = []uint64{p.Roll}
	case *events.DisputeRaised:
		out = []uint64{p.Event}
	case *events.RulingMade:
		out = []uint64{p.Event}
		skipped := func(s *projector.State, seq uint64) bool {
			return slices.ContainsFunc(s.Skipped, func(k projector.SkippedEvent) bool { return k.Seq == seq })
		}
		for _, sk := range after.Skipped {
			if !skipped(before, sk.Seq) && sk.Seq != p.Event {
				out = append(out, sk.Seq)
			}
		}
		for _, sk := range before.Skipped {
			if !skipped(after, sk.Seq) && sk.Seq != p.Event {
				out = append(out, sk.Seq)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Concerned are the earlier events whose marks the event told last
// changed (concerned), in order.
func (n *Narrator) Concerned() []uint64 { return n.concerned }

// Remarks re-mark the events the event told last concerns (Concerned) as
// the match stands now. Their payloads are read back in one pass over
// the log (a confirmation up to the head may concern every roll of a
// turn): a witness costs one scan, never one per roll.
func (n *Narrator) Remarks() ([]Remark, error) {
	seqs := n.concerned
	if len(seqs) == 0 {
		return nil, nil
	}
	played := map[uint64]events.Payload{}
	if n.f.Reread == nil || len(seqs) == 1 {
		for _, seq := range seqs {
			if p, ok := n.f.Payload(seq); ok {
				played[seq] = p
			}
		}
	} else {
		last := seqs[len(seqs)-1]
		err := n.f.Reread(func(e events.Event) error {
			if e.Seq > last {
				return events.ErrStop
			}
			if slices.Contains(seqs, e.Seq) {
				p, err := n.f.Decode(e)
				if err != nil {
					return err
				}
				played[e.Seq] = p
			}
			return nil
		})
		if err != nil && !errors.Is(err, events.ErrStop) {
			return nil, err
		}
	}
	out := make([]Remark, 0, len(seqs))
	for _, seq := range seqs {
		if p := played[seq]; p != nil {
			r, err := n.remark(seq, p)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// remark re-marks event seq, whose payload as recorded is p.
func (n *Narrator) remark(seq uint64, p events.Payload) (Remark, error) {
	v := api.EventView{Seq: seq}
	n.markFrom(n.f.State, &v, p)
	b, err := json.Marshal(p)
	if err != nil {
		return Remark{}, err
	}
	r := Remark{Seq: seq, Type: p.EventType(), Payload: b, Witness: v.Witness, Marks: v.Marks}
	if d := n.f.State.InForce(seq); d != nil {
		r.InForce = &InForce{Ruling: d.Ruling, Dispute: d.Seq, Decision: d.Decision, Note: d.Note}
		if d.Decision == events.RulingAmend {
			r.InForce.Effect = AmendEffect(*d, p)
		}
	}
	return r, nil
}

// MarkNow sets the marks of v, the event told last, from the state after
// it: a roll's witness (unconfirmed, at first), what a ruling discarded.
func (n *Narrator) MarkNow(v *api.EventView) {
	if last, p := n.f.Last(); p != nil && last.Seq == v.Seq {
		n.markFrom(n.f.State, v, p)
	}
}

// Played is the payload of the event told last, as recorded.
func (n *Narrator) Played() events.Payload {
	_, p := n.f.Last()
	return p
}

// MarkFrom sets v's marks from s, the match's state after a later event
// than v's (the visible head, for a page of history); p is v's payload as
// recorded (Played, when it was told).
func (n *Narrator) MarkFrom(s *projector.State, v *api.EventView, p events.Payload) {
	n.markFrom(s, v, p)
}

// Rules are the rules of the match the narrator tells (nil before event
// 1).
func (n *Narrator) Rules() projector.Rules { return n.f.Rules }
