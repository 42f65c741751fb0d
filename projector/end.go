package projector

import (
	"fmt"

	"github.com/matchrec/matchrec/events"
)

// Ending a match takes the judge, or both players: a player's end command
// offers an ending (match.end_proposed), and the other player's end
// command with the same winner and reason accepts it; a player who names
// the other as the winner concedes, which ends the match at once.

// EndOffer is a player's open offer to end the match. It lapses as soon
// as anything is played after it.
type EndOffer struct {
	By     string `json:"by"`
	Winner string `json:"winner,omitempty"`
	Reason string `json:"reason,omitempty"`
	Seq    uint64 `json:"seq"`
}

func decideEnd(s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	isPlayer := actor.Kind == events.ActorPlayer && s.Player(actor.ID) != nil
	if actor.Kind != events.ActorJudge && !isPlayer {
		return nil, Refuse(CodeWrongPlayer, "only a player of the match or the judge may end it")
	}
	if c.Type == CmdConcede {
		if !isPlayer {
			return nil, Refuse(CodeWrongPlayer, "only a player concedes")
		}
		c.Winner = s.Opponent(actor.ID)
	}
	if c.Winner != "" && s.Player(c.Winner) == nil {
		return nil, Refuse(CodeBadCommand, "winner %q is not a player of this match", c.Winner)
	}
	if actor.Kind == events.ActorJudge {
		return []events.Payload{&events.MatchEnded{Winner: c.Winner, Reason: c.Reason}}, nil
	}
	if c.Winner != "" && c.Winner != actor.ID {
		reason := c.Reason
		if reason == "" {
			reason = s.PlayerName(actor.ID) + " concedes"
		}
		return []events.Payload{&events.MatchEnded{Winner: c.Winner, Reason: reason}}, nil
	}
	if o := s.EndOffer; o != nil && o.By != actor.ID && o.Winner == c.Winner && (c.Reason == "" || c.Reason == o.Reason) {
		return []events.Payload{&events.MatchEnded{Winner: o.Winner, Reason: o.Reason}}, nil
	}
	if o := s.EndOffer; o != nil && o.By == actor.ID {
		// One offer at a time: a proposal stands until the other player
		// answers it or anything is played, so a second one adds nothing
		// but events (a script once recorded thousands).
		return nil, Refuse(CodeEndPending, "%s proposed to end the match at event %d and the offer still stands: wait for the other player's answer, or play on",
			s.PlayerName(actor.ID), o.Seq)
	}
	return []events.Payload{&events.EndProposed{Winner: c.Winner, Reason: c.Reason}}, nil
}

// endAllowed checks a match.ended against who may end the match: the
// judge, a player conceding, a player accepting the other's open offer
// (envelope v1: any player, as the rules then were).
func endAllowed(s *State, e *events.Event, p *events.MatchEnded) error {
	a := e.Actor
	switch {
	case a.Kind == events.ActorJudge:
		return nil
	case a.Kind != events.ActorPlayer || s.Player(a.ID) == nil:
		return fmt.Errorf("%s may not end the match", a)
	case e.Legacy:
		return nil
	case p.Winner != "" && p.Winner == s.Opponent(a.ID):
		return nil // a concession
	}
	if o := s.EndOffer; o != nil && o.By != a.ID && o.Winner == p.Winner && o.Reason == p.Reason {
		return nil
	}
	return fmt.Errorf("%s ends the match without the judge, a concession or the other player's offer", s.PlayerName(a.ID))
}

// noteOffer keeps or lapses the end offer after event p.
func noteOffer(s *State, seq uint64, actor events.Actor, p events.Payload) {
	switch p := p.(type) {
	case *events.EndProposed:
		s.EndOffer = &EndOffer{By: actor.ID, Winner: p.Winner, Reason: p.Reason, Seq: seq}
	case *events.RollConfirmed, *events.RollContested, *events.DisputeRaised, *events.RulingMade,
		*events.SeedCommitted, *events.SeedRevealed, *events.SeedExcused, *events.DiceCommitted, *events.DiceRevealed,
		*events.DiceContributed:
		// Witnesses, disputes and seeds are not play: an offer stands.
	default:
		s.EndOffer = nil
	}
}
