package projector

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/matchrec/matchrec/events"
)

// ErrNotHandled is returned by an edition's Decide for a command it leaves
// to the common rules (turns, phases, moves, ending the match).
var ErrNotHandled = errors.New("command not handled by the edition")

// Rules is one edition: its own decide/evolve pair. The common fold
// (match creation, turns, phases, moves) runs first; the edition's Evolve
// then sees every event, and its Decide every command.
type Rules interface {
	// Edition is the edition id ("3e", "6e", "11e").
	Edition() string
	// Phases lists the phases of a player turn, in order.
	Phases() []string
	// DefaultMove is the move allowance of a model whose profile has none.
	DefaultMove() float64
	// Decide turns a command into payloads or refuses it (a *Refusal).
	// ErrNotHandled hands the command to the common rules.
	Decide(s *State, actor events.Actor, c Command) ([]events.Payload, error)
	// Evolve folds an event into s after the common fold. It must be
	// deterministic and must not fail on events Decide produced.
	Evolve(s *State, e *events.Event, p events.Payload) error
}

// New returns the empty state a match starts from.
func New(match string) *State { return &State{Match: match} }

// Apply folds one event into s. Events must come in sequence.
func Apply(r Rules, s *State, e events.Event) error {
	p, err := Vocabulary(r).Decode(e)
	if err != nil {
		return err
	}
	return ApplyDecoded(r, s, &e, p)
}

// ApplyDecoded is Apply for an event whose payload is already decoded.
func ApplyDecoded(r Rules, s *State, e *events.Event, p events.Payload) error {
	if e.Seq != s.Seq+1 {
		return fmt.Errorf("match %s: event %d does not follow %d", s.Match, e.Seq, s.Seq)
	}
	// Which match recorded an event is the fold's caller's to check
	// (fold.Folder knows a branch's lineage); the projector only needs
	// the order, and who acted (actors.go).
	if err := CheckActor(r, s, e, p); err != nil {
		return fmt.Errorf("match %s event %d (%s): %w", e.Match, e.Seq, e.Type, err)
	}
	if _, err := applyDice(s, e, p); err != nil {
		return fmt.Errorf("match %s event %d (%s): %w", e.Match, e.Seq, e.Type, err)
	}
	if _, err := applyWitness(s, e, p); err != nil {
		return fmt.Errorf("match %s event %d (%s): %w", e.Match, e.Seq, e.Type, err)
	}
	noteOffer(s, e.Seq, e.Actor, p)
	if err := applyCommon(r, s, e, p); err != nil {
		return fmt.Errorf("match %s event %d (%s): %w", e.Match, e.Seq, e.Type, err)
	}
	if err := r.Evolve(s, e, p); err != nil {
		return fmt.Errorf("match %s event %d (%s): %w", e.Match, e.Seq, e.Type, err)
	}
	if a := s.Attack; a != nil && a.Turn == 0 {
		a.Turn, a.Phase = s.Turn, s.Phase
		if a.ExpectedDamage == 0 {
			a.ExpectedDamage = expectedDamage(s, a)
		}
	}
	s.Seq, s.Head = e.Seq, e.Hash
	return nil
}

func applyCommon(r Rules, s *State, e *events.Event, p events.Payload) error {
	switch p := p.(type) {
	case *events.MatchCreated:
		if e.Seq != 1 {
			return errors.New("match.created must be the first event")
		}
		id := s.Match
		if id == "" {
			id = e.Match
		}
		initState(s, id, p)
		s.Ext = newExt(r)
	case *events.TurnStarted:
		s.Turn, s.Active, s.Attack = p.Turn, p.Player, nil
		for _, u := range s.Units {
			u.Moved, u.Fired, u.Advanced = false, false, false
		}
		startPhase(s, r.Phases()[0])
	case *events.PhaseStarted:
		startPhase(s, p.Phase)
	case *events.ModelMoved:
		u := s.Unit(p.Unit)
		if u == nil || u.Model(p.Model) == nil {
			return fmt.Errorf("unknown model %s of unit %s", p.Model, p.Unit)
		}
		m := u.Model(p.Model)
		m.X, m.Y = p.X, p.Y
		u.Moved = true
		u.Advanced = u.Advanced || p.Advance
	case *events.MatchEnded:
		s.Ended, s.Winner, s.Attack = true, p.Winner, nil
	case *events.Measured:
		return applyMeasured(s, e, p) // a measure step's pending is its edition's to set
	case *events.BranchCreated:
		// The branch goes on from the parent's state at the fork, with
		// its own participants' tokens; nothing else changes.
		s.Branch = &BranchInfo{Parent: p.Parent, At: p.At, Name: p.Name}
		s.Tokens, s.Keys = p.Tokens, p.Keys
		return nil
	default:
		return nil
	}
	s.Pending = s.PendingDeclare()
	return nil
}

func initState(s *State, match string, p *events.MatchCreated) {
	*s = State{Match: match, Edition: p.Edition, Name: p.Name, Table: p.Table, First: p.FirstPlayer, Tokens: p.Tokens, Keys: p.Keys, Joins: p.Joins, Rules: p.Rules, Geometry: p.Geometry}
	for _, pl := range p.Players {
		s.Players = append(s.Players, Player{ID: pl.ID, Name: pl.Name})
		s.Tally = append(s.Tally, Tally{Player: pl.ID})
	}
	for _, us := range p.Units {
		u := &Unit{ID: us.ID, Name: us.Name, Player: us.Player, Keywords: us.Keywords, Weapons: us.Weapons}
		for _, ms := range us.Models {
			u.Models = append(u.Models, &Model{ModelSpec: ms, WoundsLeft: ms.W, StartX: ms.X, StartY: ms.Y})
		}
		s.Units = append(s.Units, u)
	}
	s.Terrain = p.Terrain
}

func startPhase(s *State, phase string) {
	s.Phase = phase
	for _, u := range s.Units {
		for _, m := range u.Models {
			m.StartX, m.StartY = m.X, m.Y
		}
	}
}

// Decide checks a command against the state and the edition and returns
// the payloads to record, or a *Refusal saying why not. It never changes s.
func Decide(r Rules, s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	return DecideWith(r, s, actor, c, nil)
}

// History reads the payload of an earlier event of the match (a ruling
// that amends an event needs to know what it amends).
type History func(seq uint64) (events.Payload, bool)

// DecideWith is Decide with access to the match's earlier events.
func DecideWith(r Rules, s *State, actor events.Actor, c Command, h History) ([]events.Payload, error) {
	out, err := decide(r, s, actor, c, h)
	if err == nil {
		err = unmeasured(c, out)
	}
	if err != nil {
		return nil, withSuggestion(s, c, err)
	}
	return out, nil
}

func decide(r Rules, s *State, actor events.Actor, c Command, h History) ([]events.Payload, error) {
	if c.Type == CmdCreate {
		return decideCreate(r, s, actor, c)
	}
	if s.Seq == 0 {
		return nil, Refuse(CodeBadCommand, "match %s does not exist", s.Match)
	}
	if err := checkCommandLimits(c); err != nil {
		return nil, err
	}
	if h == nil {
		h = func(uint64) (events.Payload, bool) { return nil, false }
	}
	if err := notStarted(s, c); err != nil {
		return nil, err
	}
	if c.Type == CmdJoin {
		return decideJoin(s, actor, c)
	}
	if err := requestGate(s, c); err != nil {
		return nil, err
	}
	if out, handled, err := decideDice(s, actor, c); handled {
		return out, err
	}
	if out, handled, err := decideWitness(s, actor, c, h); handled {
		return out, err
	}
	if s.Ended {
		return nil, Refuse(CodeMatchEnded, "the match is over")
	}
	switch {
	case c.Type == CmdContribute || c.Type == CmdSubstitute:
		return decideContribution(s, actor, c)
	case c.Type == CmdRoll && c.Digital && c.Source != events.SourceDigital && s.v3():
		return decideRequest(s, actor, c)
	}
	if c.Type == CmdEnd || c.Type == CmdConcede {
		return decideEnd(s, actor, c) // the same in every edition, whatever step is pending
	}
	if c.Type == CmdMeasure && s.Pending.Kind == WaitMeasure {
		return decideMeasure(s, actor, c)
	}
	if s.Pending.Kind == WaitMeasure {
		return nil, Refuse(CodeWrongStep, "measure first (measure): the match waits for: %s", s.Pending.Text)
	}
	out, err := r.Decide(s, actor, c)
	if !errors.Is(err, ErrNotHandled) {
		return out, err
	}
	return decideCommon(r, s, actor, c)
}

// unmeasured refuses a command that carries facts its rules did not read
// (a declaration that reads them records them first, as a measurement):
// a fact nothing asked for is never silently dropped.
func unmeasured(c Command, out []events.Payload) error {
	if len(c.Facts) == 0 {
		return nil
	}
	for _, p := range out {
		switch p := p.(type) {
		case *events.Measured:
			return nil
		case *events.RulingMade:
			if p.Facts != nil {
				return nil
			}
		}
	}
	return Refuse(CodeFactNotAsked, "%s takes no measured facts; %s was given", c.Type, FactName(c.Facts[0]))
}

func decideCommon(r Rules, s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	switch c.Type {
	case CmdMeasure:
		return decideMeasure(s, actor, c) // nothing asks for it: refused, saying what the match waits for
	case CmdNextTurn:
		return decideNextTurn(s, actor)
	case CmdPhase:
		return decidePhase(r, s, actor, c)
	case CmdMove:
		return decideMove(r, s, actor, c)
	case "":
		return nil, Refuse(CodeBadCommand, "command has no type")
	}
	types := CommandTypes(r)
	guess := ""
	if best := Suggest(c.Type, types); best != "" {
		guess = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return nil, Refuse(CodeUnknownCommand, "unknown command %q%s; %s takes: %s", c.Type, guess, r.Edition(), strings.Join(types, ", "))
}

// RequireActive refuses unless actor is the player whose turn it is and no
// attack is in progress.
func RequireActive(s *State, actor events.Actor) error {
	if s.Active == "" {
		return Refuse(CodeWrongPlayer, "no turn has started yet: %s starts turn 1 (next-turn)", s.PlayerName(s.First))
	}
	if actor.Kind != events.ActorPlayer || actor.ID != s.Active {
		return Refuse(CodeWrongPlayer, "it is %s's turn, not %s's", s.PlayerName(s.Active), actorName(s, actor))
	}
	if s.Attack != nil {
		return Refuse(CodeWrongStep, "an attack is in progress: %s", s.Pending.Text)
	}
	return nil
}

func actorName(s *State, a events.Actor) string {
	if a.Kind == events.ActorPlayer {
		return s.PlayerName(a.ID)
	}
	return a.String()
}

func decideNextTurn(s *State, actor events.Actor) ([]events.Payload, error) {
	if s.Active == "" {
		if actor.Kind != events.ActorPlayer || actor.ID != s.First {
			return nil, Refuse(CodeWrongPlayer, "%s plays first and starts turn 1", s.PlayerName(s.First))
		}
		return []events.Payload{&events.TurnStarted{Turn: 1, Player: s.First}}, nil
	}
	if err := RequireActive(s, actor); err != nil {
		return nil, err
	}
	next := s.Opponent(s.Active)
	turn := s.Turn
	if next == s.First {
		turn++
	}
	return []events.Payload{&events.TurnStarted{Turn: turn, Player: next}}, nil
}

func decidePhase(r Rules, s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	if err := RequireActive(s, actor); err != nil {
		return nil, err
	}
	phases := r.Phases()
	cur, want := -1, -1
	for i, p := range phases {
		if p == s.Phase {
			cur = i
		}
		if p == c.Phase {
			want = i
		}
	}
	if want < 0 {
		return nil, Refuse(CodeBadCommand, "%s has no phase %q (phases: %v)", r.Edition(), c.Phase, phases)
	}
	if want <= cur {
		return nil, Refuse(CodeWrongPhase, "cannot go back from the %s phase to the %s phase", s.Phase, c.Phase)
	}
	return []events.Payload{&events.PhaseStarted{Phase: c.Phase}}, nil
}

func decideMove(r Rules, s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	if err := RequireActive(s, actor); err != nil {
		return nil, err
	}
	if s.Phase != PhaseMovement {
		return nil, Refuse(CodeWrongPhase, "models move in the movement phase, not the %s phase", s.Phase)
	}
	u := s.Unit(c.Unit)
	if u == nil {
		return nil, Refuse(CodeUnknownUnit, "unknown unit %q", c.Unit)
	}
	if u.Player != actor.ID {
		return nil, Refuse(CodeWrongPlayer, "unit %s belongs to %s", u.DisplayName(), s.PlayerName(u.Player))
	}
	if s.Measured() {
		return decideMeasuredMove(r, s, u, c)
	}
	m := u.Model(c.Model)
	if m == nil || !m.Alive() {
		return nil, Refuse(CodeUnknownModel, "unit %s has no model %q on the table", u.DisplayName(), c.Model)
	}
	if c.X == nil || c.Y == nil {
		return nil, Refuse(CodeBadCommand, "move needs x and y")
	}
	x, y := *c.X, *c.Y
	if math.IsNaN(x) || math.IsNaN(y) || x < 0 || y < 0 || (s.Table.W > 0 && x > s.Table.W) || (s.Table.H > 0 && y > s.Table.H) {
		return nil, Refuse(CodeOffTable, "(%.1f, %.1f) is off the %gx%g table", x, y, s.Table.W, s.Table.H)
	}
	allow := m.Move
	if allow == 0 {
		allow = r.DefaultMove()
	}
	if d := math.Hypot(x-m.StartX, y-m.StartY); d > allow+1e-9 {
		return nil, Refuse(CodeMoveTooFar, "model %s may move %g\" this phase; (%.1f, %.1f) is %.1f\" from where it started", m.ID, allow, x, y, d)
	}
	return []events.Payload{&events.ModelMoved{Unit: u.ID, Model: m.ID, X: x, Y: y, Advance: c.Advance}}, nil
}

// OwnUnit finds unit id of the acting player that still has models on the
// table, or refuses: unknown unit, someone else's, or destroyed.
func OwnUnit(s *State, actor events.Actor, id string) (*Unit, error) {
	u := s.Unit(id)
	if u == nil {
		return nil, Refuse(CodeUnknownUnit, "unknown unit %q", id)
	}
	if u.Player != actor.ID {
		return nil, Refuse(CodeWrongPlayer, "unit %s belongs to %s", u.DisplayName(), s.PlayerName(u.Player))
	}
	if u.Destroyed() {
		return nil, Refuse(CodeUnknownUnit, "unit %s has no models left on the table", u.DisplayName())
	}
	return u, nil
}
