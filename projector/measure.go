package projector

import (
	"fmt"
	"slices"

	"github.com/matchrec/matchrec/events"
)

// A match measured at a physical table (State.Geometry) records no
// positions: each declaration carries the facts its rules need
// (Command.Facts), recorded as a geometry.measured event just before the
// declaration's own, and a step that needs a fact mid-sequence (the models
// under a blast where it landed, the distance from a character to its
// squad-mates) waits for a measure command, as a roll waits for dice.
// Measurements are witnessed like physical dice: the opponent confirms
// (one confirmation up to the head covers every roll and measurement so
// far) or contests them, a dispute opens, and the judge upholds, voids or
// amends the facts (witness.go). In a positioned match a declaration may
// still carry facts, where a player prefers the tape.

// GeometryMeasured is MatchCreated.Geometry of a match measured at the
// table; "" is a positioned match.
const GeometryMeasured = "measured"

// CmdMeasure answers a measure step (WaitMeasure) with its facts.
const CmdMeasure = "measure"

// Measured reports whether the match is measured at the table.
func (s *State) Measured() bool { return s.Geometry == GeometryMeasured }

// Measure is a measurement and what the opponent said of it, like a
// physical roll's ManualRoll. Facts are as the fold read them: as ruled,
// once a ruling amends them.
type Measure struct {
	Seq    uint64        `json:"seq"`
	Player string        `json:"player"` // who measured
	For    string        `json:"for"`
	Facts  []events.Fact `json:"facts"`
	Status string        `json:"status"` // RollUnconfirmed, RollConfirmed or RollContested
	Reason string        `json:"reason,omitempty"`
	Hash   events.Hash   `json:"hash"`
	By     uint64        `json:"by,omitempty"` // the event that confirmed or contested it
	// Witness is the player who confirmed or contested it; Settled, the
	// ruling that settled its contest (rulings.go), as for a ManualRoll.
	Witness string `json:"witness,omitempty"`
	Settled uint64 `json:"settled,omitempty"`
	// Turn and Phase it was taken in.
	Turn  int    `json:"turn,omitempty"`
	Phase string `json:"phase,omitempty"`
}

// Measure returns the measurement recorded at seq, or nil.
func (s *State) Measure(seq uint64) *Measure {
	for i := range s.Measures {
		if s.Measures[i].Seq == seq {
			return &s.Measures[i]
		}
	}
	return nil
}

// JustMeasured is the measurement of the event just folded (s.Seq), the
// one a declaration folded now carries; nil when that event was none, or
// was for another command.
func (s *State) JustMeasured(command string) *Measure {
	if n := len(s.Measures); n > 0 && s.Measures[n-1].Seq == s.Seq && s.Measures[n-1].For == command {
		return &s.Measures[n-1]
	}
	return nil
}

// applyMeasured folds a measurement: its witness record, and what the
// common rules read of it (the moves of a measured match).
func applyMeasured(s *State, e *events.Event, p *events.Measured) error {
	if p.For == CmdMove || p.For == MeasuredAdvance {
		if err := applyMeasuredMove(s, p); err != nil {
			return err
		}
	}
	// While a measure step waits, a measurement answers it (no command
	// that carries facts may be made then); otherwise it comes with its
	// command, whose event follows it.
	if s.Pending.Kind == WaitMeasure && p.For != s.Pending.Purpose {
		return fmt.Errorf("measures for %s, but the match waits for: %s", p.For, s.Pending.Text)
	}
	s.Measures = append(s.Measures, Measure{Seq: e.Seq, Player: e.Actor.ID, For: p.For, Facts: slices.Clone(p.Facts),
		Status: RollUnconfirmed, Hash: e.Hash, Turn: s.Turn, Phase: s.Phase})
	return nil
}

// decideMeasure answers a measure step: the pending player, exactly the
// facts it lists (MatchNeeds).
func decideMeasure(s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	p := s.Pending
	if p.Kind != WaitMeasure {
		return nil, Refuse(CodeWrongStep, "no measurement is asked for now; the match waits for: %s", p.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != p.Player {
		return nil, Refuse(CodeWrongPlayer, "%s measures this, not %s", s.PlayerName(p.Player), actorName(s, actor))
	}
	if c.Purpose != "" && c.Purpose != p.Purpose {
		return nil, Refuse(CodeWrongStep, "measuring for %s, but the match waits for: %s", c.Purpose, p.Text)
	}
	facts, err := MatchNeeds(s, "the "+p.Purpose+" measurement", p.Facts, c.Facts)
	if err != nil {
		return nil, err
	}
	return []events.Payload{&events.Measured{For: p.Purpose, Facts: facts}}, nil
}

// PendingMeasure is the step that waits for player to measure needs, for
// what ("under", "distance", ...), text saying what they are.
func (s *State) PendingMeasure(player, what string, needs []FactNeed, text string) Pending {
	return Pending{Kind: WaitMeasure, Player: player, Purpose: what, Facts: needs, Count: len(needs),
		Text: fmt.Sprintf("%s measures %s (measure)", s.PlayerName(player), text)}
}

// decideMeasuredMove is a move in a measured match: no coordinates, the
// distance the model (or every model of the unit) moved from where it
// stood at the start of the phase, within its allowance.
func decideMeasuredMove(r Rules, s *State, u *Unit, c Command) ([]events.Payload, error) {
	if c.X != nil || c.Y != nil {
		return nil, Refuse(CodeMeasuredMatch, "this match is measured at the table: a move gives the distance moved (fact %s), not x and y", FactMoved)
	}
	subject := u.ID
	models := u.AliveModels()
	if c.Model != "" {
		m := u.Model(c.Model)
		if m == nil || !m.Alive() {
			return nil, Refuse(CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), c.Model)
		}
		subject, models = m.ID, []*Model{m}
	}
	facts, err := MatchNeeds(s, "the move of "+subject, append([]FactNeed{Need(FactMoved, subject, "")}, MoveNeeds(r, s, u)...), c.Facts)
	if err != nil {
		return nil, err
	}
	d := FactInches(facts[0].Value)
	for _, m := range models {
		allow := m.Move
		if allow == 0 {
			allow = r.DefaultMove()
		}
		if d > allow+1e-9 {
			return nil, Refuse(CodeMoveTooFar, "model %s may move %g\" this phase; %s\" is farther", m.ID, allow, facts[0].Value)
		}
	}
	what := CmdMove
	if c.Advance {
		what = MeasuredAdvance
	}
	return []events.Payload{&events.Measured{For: what, Facts: facts}}, nil
}

// MeasuredAdvance is what a measured advance move is for (11e): the
// distance it moved, and its unit has advanced.
const MeasuredAdvance = "advance"

// MoveMeasurer is an optional ability of an edition whose measured moves
// say more than how far (11e: what the unit is engaged with after it).
type MoveMeasurer interface {
	MoveNeeds(s *State, u *Unit) []FactNeed
}

// MoveNeeds are the facts a measured move of u needs besides its distance.
func MoveNeeds(r Rules, s *State, u *Unit) []FactNeed {
	if mm, ok := r.(MoveMeasurer); ok {
		return mm.MoveNeeds(s, u)
	}
	return nil
}

// applyMeasuredMove marks the units a measured move moved (and advanced).
func applyMeasuredMove(s *State, p *events.Measured) error {
	for _, f := range p.Facts {
		if f.Kind != FactMoved {
			continue
		}
		u := s.Unit(f.Model)
		if u == nil {
			u, _ = s.FindModel(f.Model)
		}
		if u == nil {
			return fmt.Errorf("a move of %s, which is no unit or model of the match", f.Model)
		}
		u.Moved = true
		u.Advanced = u.Advanced || p.For == MeasuredAdvance
	}
	s.Pending = s.PendingDeclare()
	return nil
}

// MovedModels are the models a measured move moved: the one it names, or
// every model of the unit it names.
func MovedModels(s *State, f events.Fact) (*Unit, []*Model) {
	if u := s.Unit(f.Model); u != nil {
		return u, u.AliveModels()
	}
	if u, m := s.FindModel(f.Model); m != nil {
		return u, []*Model{m}
	}
	return nil, nil
}

// MeasuredFacts are the facts of the measurements seqs, as ruled: what an
// attack's rules read (Attack.Measures).
func (s *State) MeasuredFacts(seqs []uint64) []events.Fact {
	var out []events.Fact
	for _, q := range seqs {
		if m := s.Measure(q); m != nil {
			out = append(out, m.Facts...)
		}
	}
	return out
}
