package projector

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
	"strconv"
)

// DecideRoll checks a roll command against the pending step: a roll must be
// pending, made by the player it waits for, with exactly the dice asked
// for, each showing 1 to 6. Every edition uses it for every roll.
func DecideRoll(s *State, actor events.Actor, c Command) ([]events.Payload, error) {
	if s.Pending.Kind != WaitRoll {
		return nil, Refuse(CodeWrongStep, "no roll is pending; the match waits for: %s", s.Pending.Text)
	}
	if actor.Kind != events.ActorPlayer || actor.ID != s.Pending.Player {
		return nil, Refuse(CodeWrongPlayer, "%s must roll, not %s", s.PlayerName(s.Pending.Player), actorName(s, actor))
	}
	if c.Purpose != "" && c.Purpose != s.Pending.Purpose {
		return nil, Refuse(CodeWrongStep, "these dice are for %s, but the match waits for: %s", c.Purpose, s.Pending.Text)
	}
	if len(c.Values) != s.Pending.Dice {
		return nil, Refuse(CodeDiceCount, "%s: expected %s, got %s", s.Pending.Text, countOf(s.Pending.Dice, "die", "dice"), countOf(len(c.Values), "value", "values"))
	}
	if err := dice.CheckValues(c.Values, s.Pending.Dice); err != nil {
		return nil, Refuse(CodeBadDice, "%v", err)
	}
	src := c.Source
	if src == "" {
		src = events.SourceManual
	}
	if src == events.SourceDigital && s.Dice.Current() != nil {
		// Dice from the recorder's seeds: only once the epoch is ready.
		// (Simulated dice labelled digital, on a state with no epoch, are
		// the simulator's own.)
		if err := s.DigitalReady(); err != nil {
			return nil, err
		}
	}
	r := &events.DiceRolled{
		Roller: actor.ID, Purpose: s.Pending.Purpose, Need: s.Pending.Need,
		Count: len(c.Values), Values: append([]int(nil), c.Values...), Source: src,
	}
	if src == events.SourceManual {
		r.Entered = actor.String()
	}
	if rr := s.Pending.Reroll; rr != nil {
		r.Reroll = &events.Reroll{Seq: rr.Seq, Indices: append([]int(nil), rr.Indices...), Source: rr.Source}
	}
	return []events.Payload{r}, nil
}

// NoteRoll records a roll in the viewers' fields: the last roll and the
// roller's dice count. Editions call it from Evolve.
func NoteRoll(s *State, seq uint64, p *events.DiceRolled) {
	s.LastRoll = &Roll{Seq: seq, Roller: p.Roller, Purpose: p.Purpose, Need: p.Need,
		Values: p.Values, Successes: CountAtLeast(p.Values, p.Need), Source: p.Source}
	s.AddTally(p.Roller, func(t *Tally) { t.Dice += p.Count })
}

// countOf is n things: "1 die", "4 dice".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
