package projector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// Commands of witnesses, disputes and rulings. They are the same in every
// edition, and stay open after the match ends: a judge often rules after
// the last die.
const (
	CmdConfirm = "confirm" // a player confirms the other player's manual rolls: one (Event, Hash) or all up to the head (Upto, Hash)
	CmdContest = "contest" // a player contests the other player's manual roll (Event, Hash, Reason)
	CmdDispute = "dispute" // a player disputes an event (Event, Reason)
	CmdRule    = "rule"    // the judge rules on a dispute (Dispute, Decision, Values/Models, Reason)
)

// Witness states of a manual roll.
const (
	RollUnconfirmed = "unconfirmed"
	RollConfirmed   = "confirmed"
	RollContested   = "contested"
)

// ManualRoll is a physical roll and what the opponent said of it. Hash is
// the roll event's hash: a confirmation or contest names it, so it vouches
// for the values it saw.
type ManualRoll struct {
	Seq    uint64      `json:"seq"`
	Roller string      `json:"roller"`
	Status string      `json:"status"`
	Reason string      `json:"reason,omitempty"`
	Hash   events.Hash `json:"hash"`
	By     uint64      `json:"by,omitempty"` // the event that confirmed or contested it
	// Witness is the player who confirmed or contested it; Settled, the
	// ruling that settled its contest (rulings.go).
	Witness string `json:"witness,omitempty"`
	Settled uint64 `json:"settled,omitempty"`
}

// Dispute is a dispute and, once made, its ruling.
type Dispute struct {
	Seq      uint64   `json:"seq"`
	By       string   `json:"by"`
	Event    uint64   `json:"event"`
	Reason   string   `json:"reason"`
	Ruling   uint64   `json:"ruling,omitempty"` // seq of the ruling
	Decision string   `json:"decision,omitempty"`
	Values   []int    `json:"values,omitempty"`
	Models   []string `json:"models,omitempty"`
	// Facts are an amended measurement's facts as ruled.
	Facts []events.Fact `json:"facts,omitempty"`
	Note  string        `json:"note,omitempty"`
	// Superseded is the later ruling on the same event that replaced this
	// one: only the ruling in force counts (rulings.go).
	Superseded uint64 `json:"superseded,omitempty"`
}

// ManualRoll returns the witness record of the manual roll at seq.
func (d *DiceState) manual(seq uint64) *ManualRoll {
	for i := range d.Manual {
		if d.Manual[i].Seq == seq {
			return &d.Manual[i]
		}
	}
	return nil
}

// Dispute returns the dispute raised at seq, or nil.
func (s *State) Dispute(seq uint64) *Dispute {
	for i := range s.Disputes {
		if s.Disputes[i].Seq == seq {
			return &s.Disputes[i]
		}
	}
	return nil
}

// applyWitness folds the witness and dispute events (all editions),
// checking that a confirmation or contest vouches for the hash it names.
func applyWitness(s *State, e *events.Event, p events.Payload) (bool, error) {
	switch p := p.(type) {
	case *events.DiceRolled:
		if p.Source == events.SourceManual {
			s.Dice.Manual = append(s.Dice.Manual, ManualRoll{Seq: e.Seq, Roller: p.Roller, Status: RollUnconfirmed, Hash: e.Hash})
		}
		return false, nil // the edition folds the roll itself
	case *events.RollConfirmed:
		if p.Upto != 0 {
			if p.Upto != s.Seq || (p.Hash != "" && p.Hash != s.Head.String()) || (p.Hash == "" && !e.Legacy) {
				return true, fmt.Errorf("confirms the rolls up to event %d (%s), but the head it follows is event %d (%s)", p.Upto, p.Hash, s.Seq, s.Head)
			}
			for i := range s.Dice.Manual {
				if m := &s.Dice.Manual[i]; m.Status == RollUnconfirmed && m.Roller != e.Actor.ID {
					m.Status, m.By, m.Witness = RollConfirmed, e.Seq, e.Actor.ID
				}
			}
			for i := range s.Measures {
				if m := &s.Measures[i]; m.Status == RollUnconfirmed && m.Player != e.Actor.ID {
					m.Status, m.By, m.Witness = RollConfirmed, e.Seq, e.Actor.ID
				}
			}
			return true, nil
		}
		w, err := vouched(s, e, p.Roll, p.Hash)
		if err != nil {
			return true, err
		}
		if w.status != nil {
			*w.status, *w.by, *w.witness = RollConfirmed, e.Seq, e.Actor.ID
		}
	case *events.RollContested:
		w, err := vouched(s, e, p.Roll, p.Hash)
		if err != nil {
			return true, err
		}
		if w.status != nil {
			*w.status, *w.reason, *w.by, *w.witness = RollContested, p.Reason, e.Seq, e.Actor.ID
		}
	case *events.DisputeRaised:
		s.Disputes = append(s.Disputes, Dispute{Seq: e.Seq, By: e.Actor.ID, Event: p.Event, Reason: p.Reason})
	case *events.RulingMade:
		d := s.Dispute(p.Dispute)
		if d == nil || d.Ruling != 0 || d.Event != p.Event {
			return true, fmt.Errorf("rules on event %d, which is no open dispute of event %d", p.Dispute, p.Event)
		}
		s.rule(d, e.Seq, p)
	default:
		return false, nil
	}
	return true, nil
}

// witnessed is what a confirmation or contest may vouch for: a physical
// roll (ManualRoll) or a measurement (Measure), by whoever made it.
type witnessed struct {
	status, reason, witness *string
	by, settled             *uint64
	hash                    events.Hash
	owner                   string // the player who rolled or measured
	what                    string // "roll" or "measurement"
}

// witnessable is the physical roll or measurement recorded at seq.
func (s *State) witnessable(seq uint64) (witnessed, bool) {
	if m := s.Dice.manual(seq); m != nil {
		return witnessed{&m.Status, &m.Reason, &m.Witness, &m.By, &m.Settled, m.Hash, m.Roller, "roll"}, true
	}
	if m := s.Measure(seq); m != nil {
		return witnessed{&m.Status, &m.Reason, &m.Witness, &m.By, &m.Settled, m.Hash, m.Player, "measurement"}, true
	}
	return witnessed{}, false
}

// vouched finds the manual roll or measurement a confirmation or contest
// names and checks the hash it vouches for (required since envelope v2).
func vouched(s *State, e *events.Event, roll uint64, hash string) (witnessed, error) {
	w, ok := s.witnessable(roll)
	if !ok {
		if e.Legacy {
			return w, nil // v1 folded a witness of an unknown roll as nothing
		}
		return w, fmt.Errorf("event %d is not a manual roll or a measurement", roll)
	}
	if (hash == "" && !e.Legacy) || (hash != "" && hash != w.hash.String()) {
		return witnessed{}, fmt.Errorf("vouches for hash %q, but %s %d's hash is %s", hash, w.what, roll, w.hash)
	}
	return w, nil
}

// decideWitness decides the witness and dispute commands; handled is
// false for others.
func decideWitness(s *State, actor events.Actor, c Command, lookup func(seq uint64) (events.Payload, bool)) ([]events.Payload, bool, error) {
	isPlayer := actor.Kind == events.ActorPlayer && s.Player(actor.ID) != nil
	switch c.Type {
	case CmdConfirm, CmdContest:
		if !isPlayer {
			return nil, true, Refuse(CodeWrongPlayer, "only a player of the match confirms or contests rolls")
		}
		if c.Type == CmdConfirm && c.Upto != 0 {
			out, err := decideConfirmUpto(s, actor, c)
			return out, true, err
		}
		m, ok := s.witnessable(c.Event)
		if !ok {
			return nil, true, Refuse(CodeBadCommand, "event %d is not a manual roll or a measurement", c.Event)
		}
		if actor.ID == m.owner {
			return nil, true, Refuse(CodeWrongPlayer, "only %s's opponent may confirm or contest %s %d", s.PlayerName(m.owner), m.what, c.Event)
		}
		if *m.status != RollUnconfirmed {
			return nil, true, Refuse(CodeWrongStep, "%s %d is already %s", m.what, c.Event, *m.status)
		}
		if c.Hash != "" && c.Hash != m.hash.String() {
			return nil, true, Refuse(CodeBadCommand, "%s %d's hash is %s, not %s: look at it again", m.what, c.Event, m.hash, c.Hash)
		}
		hash := m.hash.String()
		if c.Type == CmdConfirm {
			return []events.Payload{&events.RollConfirmed{Roll: c.Event, Hash: hash}}, true, nil
		}
		if strings.TrimSpace(c.Reason) == "" {
			return nil, true, Refuse(CodeBadCommand, "say why %s %d is contested", m.what, c.Event)
		}
		return []events.Payload{&events.RollContested{Roll: c.Event, Hash: hash, Reason: c.Reason}}, true, nil
	case CmdDispute:
		if !isPlayer {
			return nil, true, Refuse(CodeWrongPlayer, "only a player of the match may raise a dispute")
		}
		if c.Event < 1 || c.Event > s.Seq {
			return nil, true, Refuse(CodeBadCommand, "event %d does not exist (the match has %d events)", c.Event, s.Seq)
		}
		if p, ok := lookup(c.Event); !ok {
			return nil, true, Refuse(CodeBadCommand, "event %d cannot be read", c.Event)
		} else if why := NotDisputable(c.Event, p); why != "" {
			return nil, true, Refuse(CodeNotDisputable, "%s", why)
		}
		if strings.TrimSpace(c.Reason) == "" {
			return nil, true, Refuse(CodeBadCommand, "a dispute needs a reason")
		}
		return []events.Payload{&events.DisputeRaised{Event: c.Event, Reason: c.Reason}}, true, nil
	case CmdRule:
		out, err := decideRuling(s, actor, c, lookup)
		return out, true, err
	}
	return nil, false, nil
}

// decideConfirmUpto confirms every unconfirmed manual roll of the other
// player up to the head, which must be the head the player saw (its hash
// is what the confirmation vouches for).
func decideConfirmUpto(s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	if c.Upto != s.Seq {
		return nil, Refuse(CodeStaleHead, "confirm up to the head: the match is at event %d (%s), not %d", s.Seq, s.Head, c.Upto)
	}
	if c.Hash != "" && c.Hash != s.Head.String() {
		return nil, Refuse(CodeStaleHead, "event %d's hash is %s, not %s: look at it again", s.Seq, s.Head, c.Hash)
	}
	n := 0
	for _, m := range s.Dice.Manual {
		if m.Status == RollUnconfirmed && m.Roller != actor.ID {
			n++
		}
	}
	for _, m := range s.Measures {
		if m.Status == RollUnconfirmed && m.Player != actor.ID {
			n++
		}
	}
	if n == 0 {
		return nil, Refuse(CodeWrongStep, "no roll or measurement of the other player is waiting for confirmation")
	}
	return []events.Payload{&events.RollConfirmed{Upto: s.Seq, Hash: s.Head.String()}}, nil
}

func decideRuling(s *State, actor events.Actor, c Command, lookup func(uint64) (events.Payload, bool)) ([]events.Payload, error) {
	if actor.Kind != events.ActorJudge {
		return nil, Refuse(CodeNotJudge, "only the judge may rule")
	}
	d := s.Dispute(c.Dispute)
	if d == nil {
		return nil, Refuse(CodeBadCommand, "event %d is not a dispute", c.Dispute)
	}
	if d.Ruling != 0 {
		return nil, Refuse(CodeWrongStep, "dispute %d was already ruled on at event %d", d.Seq, d.Ruling)
	}
	r := &events.RulingMade{Dispute: d.Seq, Event: d.Event, Decision: c.Decision, Note: c.Reason}
	switch c.Decision {
	case events.RulingUphold, events.RulingVoid:
		if d.Event == 1 && c.Decision == events.RulingVoid {
			return nil, Refuse(CodeBadCommand, "the match's creation cannot be voided")
		}
	case events.RulingAmend:
		p, ok := lookup(d.Event)
		if !ok {
			return nil, Refuse(CodeBadCommand, "event %d cannot be read", d.Event)
		}
		switch p := p.(type) {
		case *events.DiceRolled:
			if len(c.Values) != p.Count {
				return nil, Refuse(CodeDiceCount, "the amended roll must have %d dice, got %d", p.Count, len(c.Values))
			}
			for _, v := range c.Values {
				if v < 1 || v > 6 {
					return nil, Refuse(CodeBadDice, "an amended die shows %d: a D6 shows 1 to 6", v)
				}
			}
			r.Values = append([]int(nil), c.Values...)
		case *events.CasualtiesChosen, *events.HitsDistributed:
			if len(c.Models) == 0 {
				return nil, Refuse(CodeBadCommand, "an amended choice needs models")
			}
			r.Models = append([]string(nil), c.Models...)
		case *events.Measured:
			facts, err := amendedFacts(s, d.Event, p, c.Facts)
			if err != nil {
				return nil, err
			}
			r.Facts = facts
		default:
			return nil, Refuse(CodeBadCommand, "event %d (%s) has no values or models to amend: uphold or void it", d.Event, p.EventType())
		}
	default:
		return nil, Refuse(CodeBadCommand, "decision %q: use uphold, void or amend", c.Decision)
	}
	return []events.Payload{r}, nil
}

// Amend returns p as a ruling reads it: with the amended dice values or
// models, or p itself when the ruling changes nothing in it.
func Amend(p events.Payload, r *events.RulingMade) events.Payload {
	switch p := p.(type) {
	case *events.DiceRolled:
		if r.Values != nil {
			c := *p
			c.Values = r.Values
			return &c
		}
	case *events.CasualtiesChosen:
		if r.Models != nil {
			return &events.CasualtiesChosen{Models: r.Models}
		}
	case *events.HitsDistributed:
		if r.Models != nil {
			return &events.HitsDistributed{Models: r.Models}
		}
	case *events.Measured:
		if r.Facts != nil {
			return &events.Measured{For: p.For, Facts: r.Facts}
		}
	}
	return p
}

// amendedFacts checks a judge's amendment of measurement seq, p as
// recorded: the judge finds other values for the facts it measured (any
// of them, each named once), never other facts. The facts as ruled keep
// the recorded order.
func amendedFacts(s *State, seq uint64, p *events.Measured, given []events.Fact) ([]events.Fact, error) {
	if len(given) == 0 {
		return nil, Refuse(CodeFactMissing, "an amended measurement gives the facts as the judge found them")
	}
	needs := make([]FactNeed, len(p.Facts))
	for i, f := range p.Facts {
		needs[i] = Need(f.Kind, f.Model, f.From)
		needs[i].Optional = true // a fact the judge does not name keeps its value
	}
	found, err := MatchNeeds(s, fmt.Sprintf("the measurement of event %d", seq), needs, given)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(p.Facts)
	for _, f := range found {
		for i := range out {
			if out[i].Kind == f.Kind && out[i].Model == f.Model && out[i].From == f.From {
				out[i].Value = f.Value
			}
		}
	}
	return out, nil
}

// Skip advances s past an event that does not count (voided by a ruling,
// or no longer valid after one), remembering it.
func Skip(s *State, e *events.Event, why string) {
	s.Seq, s.Head = e.Seq, e.Hash
	s.Skipped = append(s.Skipped, SkippedEvent{Seq: e.Seq, Why: why})
}

// SkippedEvent is an event the as-ruled (or as-played) fold left out.
type SkippedEvent struct {
	Seq uint64 `json:"seq"`
	Why string `json:"why"`
}

func (d Dispute) String() string {
	return fmt.Sprintf("dispute %d by %s on event %d: %s", d.Seq, d.By, d.Event, d.Reason)
}
