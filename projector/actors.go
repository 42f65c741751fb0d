package projector

import (
	"errors"
	"fmt"

	"github.com/matchrec/matchrec/events"
)

// ErrNotAllowed is wrapped by the fold's error for an event whose actor
// the rules did not allow at that point, or an event that may not follow
// the end of the match: a log that says someone did what they could not
// have done (docs/events.md, "Who may author each event").
var ErrNotAllowed = errors.New("not allowed")

// ActorRules is an optional ability of an edition: who may author an event
// in its own steps. known false leaves the event to the common rule, which
// allows the player the pending step names (the active player for a free
// declaration) — every edition's Decide already asks exactly that player,
// so an edition needs this only for an event someone else may make.
type ActorRules interface {
	MayAuthor(s *State, actor events.Actor, p events.Payload) (allowed, known bool)
}

// CheckActor reports whether e's actor may have recorded p in state s (the
// state before e), and whether e may come at all after the end. The fold
// runs it on every event (ApplyDecoded); errors wrap ErrNotAllowed.
func CheckActor(r Rules, s *State, e *events.Event, p events.Payload) error {
	if err := checkActor(r, s, e, p); err != nil {
		return fmt.Errorf("%w: %v", ErrNotAllowed, err)
	}
	return nil
}

func checkActor(r Rules, s *State, e *events.Event, p events.Payload) error {
	a := e.Actor
	isPlayer := a.Kind == events.ActorPlayer && s.Player(a.ID) != nil
	system := func() error {
		if a.Kind != events.ActorSystem || a.ID != "" {
			return fmt.Errorf("%s is the recorder's to record, not %s's", e.Type, a)
		}
		return nil
	}
	judge := func() error {
		if a.Kind != events.ActorJudge {
			return fmt.Errorf("only the judge records %s, not %s", e.Type, a)
		}
		return nil
	}
	player := func(id string) error {
		if !isPlayer || (id != "" && a.ID != id) {
			want := "a player of the match"
			if id != "" {
				want = s.PlayerName(id)
			}
			return fmt.Errorf("%s is %s's to record, not %s's", e.Type, want, a)
		}
		return nil
	}
	switch {
	case a.Kind == events.ActorPlayer && !isPlayer,
		a.Kind == events.ActorJudge && a.ID != events.RoleJudge,
		a.Kind == events.ActorSystem && a.ID != "",
		a.Kind != events.ActorPlayer && a.Kind != events.ActorJudge && a.Kind != events.ActorSystem:
		return fmt.Errorf("%s is no participant of the match: a player of it, [judge, judge] or the recorder [system, \"\"]", a)
	}
	if s.Ended {
		switch p.(type) {
		case *events.DiceRevealed, *events.RollConfirmed, *events.RollContested, *events.DisputeRaised, *events.RulingMade:
		default:
			return fmt.Errorf("%s after the end of the match: only the recorder's reveals, witnesses, disputes and rulings may follow it", e.Type)
		}
	}
	switch p := p.(type) {
	case *events.MatchCreated, *events.BranchCreated:
		return system()
	case *events.DiceCommitted, *events.DiceRevealed:
		if e.Legacy {
			return nil // v1 recorded the recorder's follow-ups as the participant whose command caused them
		}
		return system()
	case *events.RulingMade, *events.SeedExcused, *events.RevealRequested:
		return judge()
	case *events.DisputeRaised, *events.EndProposed:
		return player("")
	case *events.SeedContributed:
		if !e.Legacy {
			return fmt.Errorf("free dice seeds are scheme 1's, recorded in envelope v1 only")
		}
		return player("")
	case *events.SeedCommitted:
		return player(p.Player)
	case *events.MatchJoined:
		if ra, ok := events.ActorOf(p.Role); !ok || ra != a {
			return fmt.Errorf("%s joins as %s", a, p.Role)
		}
		return nil
	case *events.DiceRequested:
		if err := player(p.Roller); err != nil {
			return err
		}
		if s.Pending.Kind != WaitRoll || s.Pending.Player != p.Roller {
			return fmt.Errorf("%s asks for dice, but the match waits for: %s", s.PlayerName(p.Roller), s.Pending.Text)
		}
		return nil
	case *events.DiceContributed:
		switch {
		case p.Role == events.RoleRecorder:
			return system()
		case p.By != "":
			return judge()
		}
		if ra, ok := events.ActorOf(p.Role); !ok || ra != a {
			return fmt.Errorf("%s contributes for %s", a, p.Role)
		}
		return nil
	case *events.SeedRevealed:
		return player(p.Player)
	case *events.RollConfirmed:
		if err := player(""); err != nil {
			return err
		}
		if m, ok := s.witnessable(p.Roll); p.Upto == 0 && ok && m.owner == a.ID {
			return fmt.Errorf("%s confirms their own %s %d", s.PlayerName(a.ID), m.what, p.Roll)
		}
		return nil
	case *events.RollContested:
		if err := player(""); err != nil {
			return err
		}
		if m, ok := s.witnessable(p.Roll); ok && m.owner == a.ID {
			return fmt.Errorf("%s contests their own %s %d", s.PlayerName(a.ID), m.what, p.Roll)
		}
		return nil
	case *events.MatchEnded:
		return endAllowed(s, e, p)
	case *events.DiceRolled:
		if s.Pending.Kind != WaitRoll || p.Roller != a.ID {
			return fmt.Errorf("%s rolls, but the match waits for: %s", a, s.Pending.Text)
		}
	}
	if ar, ok := r.(ActorRules); ok {
		if allowed, known := ar.MayAuthor(s, a, p); known {
			if !allowed {
				return fmt.Errorf("%s may not record %s now (the match waits for: %s)", a, e.Type, s.Pending.Text)
			}
			return nil
		}
	}
	if !isPlayer || a.ID != s.Pending.Player {
		return fmt.Errorf("%s records %s, but the match waits for: %s", a, e.Type, s.Pending.Text)
	}
	return nil
}
