// Package sim plays the pending steps of a match with simulated dice
// through the edition's own Decide and Evolve: the engine's pipeline, not a
// formula. Rules tests check the engine against the worked numbers of
// docs/rules/ (docs/rules/3e.md#worked-numbers,
// docs/rules/6e.md#worked-numbers, docs/rules/11e.md#worked-numbers) with
// it; what-if analysis replays an attack thousands of times with it.
package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Dice gives simulated D6 values.
type Dice interface{ D6() int }

// RandDice rolls with a seeded PRNG: simulations are repeatable.
type RandDice struct{ R *rand.Rand }

// D6 returns 1..6.
func (d RandDice) D6() int { return d.R.IntN(6) + 1 }

// NewDice returns seeded dice.
func NewDice(seed uint64) RandDice {
	return RandDice{R: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Chooser makes a player's choices (distribution, casualties, ...) when
// the match waits for one. Default picks the first legal answer.
type Chooser func(s *projector.State) (projector.Command, error)

// Step plays what the match waits for once: a roll with simulated dice, or
// a choice through choose (FirstChoice when nil). It applies the resulting
// payloads to s without encoding them (no hashing: simulations are not
// recorded).
func Step(r projector.Rules, s *projector.State, d Dice, choose Chooser) error {
	p := s.Pending
	var c projector.Command
	switch p.Kind {
	case projector.WaitRoll:
		c = projector.Command{Type: projector.CmdRoll, Values: make([]int, p.Dice), Source: events.SourceDigital}
		for i := range c.Values {
			c.Values[i] = d.D6()
		}
	default:
		if choose == nil {
			choose = DefaultChooser(r)
		}
		var err error
		if c, err = choose(s); err != nil {
			// A step the chooser does not know is an optional one (Look Out
			// Sir, Overwatch, a re-roll): the simulation declines it.
			c = projector.Command{Type: projector.CmdDecline}
		}
	}
	return Apply(r, s, events.Actor{Kind: events.ActorPlayer, ID: p.Player}, c)
}

// Apply decides c for actor and folds the payloads into s.
func Apply(r projector.Rules, s *projector.State, actor events.Actor, c projector.Command) error {
	ps, err := projector.Decide(r, s, actor, c)
	if err != nil {
		return err
	}
	for _, p := range ps {
		e := events.Event{Match: s.Match, Seq: s.Seq + 1, Type: p.EventType(), Version: p.SchemaVersion(), Actor: actor}
		if err := projector.ApplyDecoded(r, s, &e, p); err != nil {
			return err
		}
	}
	return nil
}

// DefaultChooser is the edition's own Chooser when it has one, then
// FirstChoice for the common choices.
func DefaultChooser(r projector.Rules) Chooser {
	ch, ok := r.(projector.Chooser)
	if !ok {
		return FirstChoice
	}
	return func(s *projector.State) (projector.Command, error) {
		if c, err := ch.Choose(s); err == nil {
			return c, nil
		}
		return FirstChoice(s)
	}
}

// FinishAttack plays the attack in progress to its end (s.LastAttack),
// and no further: an attack that opens another when it ends (6e's blast
// hits on other units) leaves that one in progress.
func FinishAttack(r projector.Rules, s *projector.State, d Dice, choose Chooser) error {
	if s.Attack == nil {
		return nil
	}
	seq := s.Attack.Seq
	for guard := 0; s.Attack != nil && s.Attack.Seq == seq; guard++ {
		if guard > 10000 {
			return fmt.Errorf("attack does not finish: waiting for %s", s.Pending.Text)
		}
		if s.Pending.Kind == projector.WaitMeasure {
			return fmt.Errorf("the attack waits for a measurement at the table (%s): a simulation has no table to measure", s.Pending.Text)
		}
		if err := Step(r, s, d, choose); err != nil {
			return err
		}
	}
	return nil
}

// FirstChoice answers a distribution or casualty choice with the first
// legal models in unit order: hits in rotation over the eligible models,
// casualties filling each model's wounds in turn, the models with the
// fewest wounds left first (so they remove whole models where possible,
// as 3e asks).
func FirstChoice(s *projector.State) (projector.Command, error) {
	a := s.Attack
	p := s.Pending
	if a == nil {
		return projector.Command{}, fmt.Errorf("no attack waits for a choice (%s)", p.Text)
	}
	t := s.Unit(a.Target)
	var alive []*projector.Model
	for _, id := range a.Eligible {
		if m := t.Model(id); m != nil && m.Alive() {
			alive = append(alive, m)
		}
	}
	if len(alive) == 0 {
		return projector.Command{}, fmt.Errorf("no eligible model for %s", p.Text)
	}
	var ids []string
	switch p.Kind {
	case projector.WaitDistribute:
		for i := 0; i < p.Count; i++ {
			ids = append(ids, alive[i%len(alive)].ID)
		}
		return projector.Command{Type: projector.CmdDistribute, Models: ids}, nil
	case projector.WaitCasualties:
		slices.SortStableFunc(alive, func(x, y *projector.Model) int { return x.WoundsLeft - y.WoundsLeft })
		for _, m := range alive {
			for w := 0; w < m.WoundsLeft && len(ids) < p.Count; w++ {
				ids = append(ids, m.ID)
			}
		}
		return projector.Command{Type: projector.CmdCasualties, Models: ids}, nil
	}
	return projector.Command{}, fmt.Errorf("sim cannot answer %q (%s)", p.Kind, p.Text)
}
