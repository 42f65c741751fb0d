package projector

import (
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// Commands of verifiable dice, witnesses, disputes and rulings. They are
// the same in every edition, and (but for seed) stay open after the match
// ends: a judge often rules after the last die.
const (
	CmdSeed    = "seed"    // a player adds a dice seed
	CmdReveal  = "reveal"  // the judge has the server seed revealed (the recorder fills it in)
	CmdConfirm = "confirm" // the opponent confirms a manual roll (Event)
	CmdContest = "contest" // the opponent contests a manual roll (Event, Reason)
	CmdDispute = "dispute" // a player disputes an event (Event, Reason)
	CmdRule    = "rule"    // the judge rules on a dispute (Dispute, Decision, Values/Models, Reason)
)

// Witness states of a manual roll.
const (
	RollUnconfirmed = "unconfirmed"
	RollConfirmed   = "confirmed"
	RollContested   = "contested"
)

// DiceState is what the audit needs of the dice: the commitments and
// reveals of server seeds, the players' seeds, and the witness state of
// every manual roll.
type DiceState struct {
	Epoch       int          `json:"epoch"` // the epoch digital rolls use now
	Commits     []SeedCommit `json:"commits,omitempty"`
	PlayerSeeds []string     `json:"player_seeds,omitempty"` // in the order contributed
	Manual      []ManualRoll `json:"manual,omitempty"`
}

// SeedCommit is one epoch's commitment and, once revealed, its seed.
type SeedCommit struct {
	Epoch      int    `json:"epoch"`
	Commit     string `json:"commit"`
	Seq        uint64 `json:"seq"`
	Seed       string `json:"seed,omitempty"`
	RevealedAt uint64 `json:"revealed_at,omitempty"`
}

// ManualRoll is a physical roll and what the opponent said of it.
type ManualRoll struct {
	Seq    uint64 `json:"seq"`
	Roller string `json:"roller"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
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
	Note     string   `json:"note,omitempty"`
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

// applyWitness folds the dice, witness and dispute events (all editions).
func applyWitness(s *State, e *events.Event, p events.Payload) (bool, error) {
	switch p := p.(type) {
	case *events.DiceCommitted:
		s.Dice.Epoch = p.Epoch
		s.Dice.Commits = append(s.Dice.Commits, SeedCommit{Epoch: p.Epoch, Commit: p.Commit, Seq: e.Seq})
	case *events.SeedContributed:
		s.Dice.PlayerSeeds = append(s.Dice.PlayerSeeds, p.Seed)
	case *events.DiceRevealed:
		for i := range s.Dice.Commits {
			if c := &s.Dice.Commits[i]; c.Epoch == p.Epoch {
				c.Seed, c.RevealedAt = p.Seed, e.Seq
			}
		}
	case *events.DiceRolled:
		if p.Source == events.SourceManual {
			s.Dice.Manual = append(s.Dice.Manual, ManualRoll{Seq: e.Seq, Roller: p.Roller, Status: RollUnconfirmed})
		}
		return false, nil // the edition folds the roll itself
	case *events.RollConfirmed:
		if m := s.Dice.manual(p.Roll); m != nil {
			m.Status = RollConfirmed
		}
	case *events.RollContested:
		if m := s.Dice.manual(p.Roll); m != nil {
			m.Status, m.Reason = RollContested, p.Reason
		}
	case *events.DisputeRaised:
		s.Disputes = append(s.Disputes, Dispute{Seq: e.Seq, By: e.Actor.ID, Event: p.Event, Reason: p.Reason})
	case *events.RulingMade:
		if d := s.Dispute(p.Dispute); d != nil {
			d.Ruling, d.Decision, d.Values, d.Models, d.Note = e.Seq, p.Decision, p.Values, p.Models, p.Note
		}
	default:
		return false, nil
	}
	return true, nil
}

// decideWitness decides the audit commands; handled is false for others.
func decideWitness(s *State, actor events.Actor, c Command, lookup func(seq uint64) (events.Payload, bool)) ([]events.Payload, bool, error) {
	isPlayer := actor.Kind == events.ActorPlayer && s.Player(actor.ID) != nil
	switch c.Type {
	case CmdSeed:
		if !isPlayer {
			return nil, true, Refuse(CodeWrongPlayer, "only a player of the match may add a dice seed")
		}
		if s.Ended {
			return nil, true, Refuse(CodeMatchEnded, "the match is over: no more seeds")
		}
		if c.Seed == "" || len(c.Seed) > 256 {
			return nil, true, Refuse(CodeBadCommand, "a dice seed is 1 to 256 bytes")
		}
		return []events.Payload{&events.SeedContributed{Player: actor.ID, Seed: c.Seed}}, true, nil
	case CmdConfirm, CmdContest:
		m := s.Dice.manual(c.Event)
		if m == nil {
			return nil, true, Refuse(CodeBadCommand, "event %d is not a manual roll", c.Event)
		}
		if !isPlayer || actor.ID == m.Roller {
			return nil, true, Refuse(CodeWrongPlayer, "only %s's opponent may confirm or contest roll %d", s.PlayerName(m.Roller), c.Event)
		}
		if m.Status != RollUnconfirmed {
			return nil, true, Refuse(CodeWrongStep, "roll %d is already %s", c.Event, m.Status)
		}
		if c.Type == CmdConfirm {
			return []events.Payload{&events.RollConfirmed{Roll: c.Event}}, true, nil
		}
		if strings.TrimSpace(c.Reason) == "" {
			return nil, true, Refuse(CodeBadCommand, "say why roll %d is contested", c.Event)
		}
		return []events.Payload{&events.RollContested{Roll: c.Event, Reason: c.Reason}}, true, nil
	case CmdDispute:
		if !isPlayer {
			return nil, true, Refuse(CodeWrongPlayer, "only a player of the match may raise a dispute")
		}
		if c.Event < 1 || c.Event > s.Seq {
			return nil, true, Refuse(CodeBadCommand, "event %d does not exist (the match has %d events)", c.Event, s.Seq)
		}
		if strings.TrimSpace(c.Reason) == "" {
			return nil, true, Refuse(CodeBadCommand, "a dispute needs a reason")
		}
		return []events.Payload{&events.DisputeRaised{Event: c.Event, Reason: c.Reason}}, true, nil
	case CmdRule:
		out, err := decideRuling(s, actor, c, lookup)
		return out, true, err
	case CmdReveal:
		if actor.Kind != events.ActorJudge {
			return nil, true, Refuse(CodeWrongPlayer, "only the judge may have the dice seed revealed")
		}
		return nil, true, Refuse(CodeBadCommand, "the recorder reveals seeds; this store holds none")
	}
	return nil, false, nil
}

func decideRuling(s *State, actor events.Actor, c Command, lookup func(uint64) (events.Payload, bool)) ([]events.Payload, error) {
	if actor.Kind != events.ActorJudge {
		return nil, Refuse(CodeWrongPlayer, "only the judge may rule")
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
	}
	return p
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
