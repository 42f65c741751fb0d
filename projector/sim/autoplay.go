package sim

import (
	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
)

// Autoplay is a simple legal player for generated matches and benchmarks:
// it starts turns, makes the edition's own plays where it has them
// (projector.Planner: moves, charges, combats), goes to the shooting phase,
// fires each unit at the first enemy unit it may legally shoot, goes on
// through the phases after it when the edition plans them, answers every
// roll and choice, and ends the match after MaxTurns game turns or when a
// side has nothing left, with the winner Outcome gives.
type Autoplay struct {
	Rules    projector.Rules
	Dice     Dice
	MaxTurns int
	// Digital makes rolls {"digital": true} for a recorder to roll, instead
	// of values from Dice.
	Digital bool
	Choose  Chooser
}

// Next returns the next command and who makes it; done is true once the
// match is over.
func (a *Autoplay) Next(s *projector.State) (actor events.Actor, c projector.Command, done bool) {
	player := func(id string) events.Actor { return events.Actor{Kind: events.ActorPlayer, ID: id} }
	p := s.Pending
	switch {
	case s.Ended:
		return actor, c, true
	case p.Kind == projector.WaitRoll:
		if a.Digital {
			// The recorder's dice wait for every player's seed: commit,
			// then reveal (docs/dice.md).
			for _, pl := range s.Players {
				if c, ok := s.SeedCommand(pl.ID, SeedSecret(pl.ID)); ok {
					return player(pl.ID), c, false
				}
			}
			return player(p.Player), projector.Command{Type: projector.CmdRoll, Digital: true}, false
		}
		c = projector.Command{Type: projector.CmdRoll, Values: make([]int, p.Dice), Source: events.SourceDigital}
		for i := range c.Values {
			c.Values[i] = a.Dice.D6()
		}
		return player(p.Player), c, false
	case p.Kind != projector.WaitDeclare && p.Kind != projector.WaitSetup:
		choose := a.Choose
		if choose == nil {
			choose = DefaultChooser(a.Rules)
		}
		if c, err := choose(s); err == nil {
			return player(p.Player), c, false
		}
		return player(p.Player), projector.Command{Type: projector.CmdDecline}, false
	case s.Active == "":
		return player(s.First), projector.Command{Type: projector.CmdNextTurn}, false
	}
	me := player(s.Active)
	if a.over(s) {
		return a.end(s)
	}
	planner, plans := a.Rules.(projector.Planner)
	if plans {
		if c, ok := planner.Plan(s); ok {
			return me, c, false
		}
	}
	phases := a.Rules.Phases()
	here := phaseIndex(phases, s.Phase)
	if s.Phase != projector.PhaseShooting && here < phaseIndex(phases, projector.PhaseShooting) {
		return me, projector.Command{Type: projector.CmdPhase, Phase: projector.PhaseShooting}, false
	}
	if s.Phase == projector.PhaseShooting {
		for _, u := range s.Units {
			if u.Player != s.Active || u.Fired || u.Destroyed() {
				continue
			}
			for _, t := range s.Units {
				if t.Player == s.Active || t.Destroyed() {
					continue
				}
				kinds := []string{""}
				if sk, ok := a.Rules.(projector.ShootKinds); ok {
					kinds = sk.ShootKinds()
				}
				for _, kind := range kinds {
					c := projector.Command{Type: projector.CmdShoot, Unit: u.ID, Target: t.ID, Kind: kind}
					if _, err := projector.Decide(a.Rules, s, me, c); err == nil {
						return me, c, false
					}
				}
			}
		}
	}
	if plans && here >= 0 && here+1 < len(phases) {
		return me, projector.Command{Type: projector.CmdPhase, Phase: phases[here+1]}, false
	}
	if a.MaxTurns > 0 && s.Turn >= a.MaxTurns && s.Opponent(s.Active) == s.First {
		return a.end(s)
	}
	return me, projector.Command{Type: projector.CmdNextTurn}, false
}

// end is the judge's ending of the match, with its Outcome.
func (a *Autoplay) end(s *projector.State) (events.Actor, projector.Command, bool) {
	winner, reason := Outcome(s)
	return events.Actor{Kind: events.ActorJudge, ID: "judge"}, projector.Command{Type: projector.CmdEnd, Winner: winner, Reason: reason}, false
}

// SeedSecret is the secret a simulated player's dice seeds derive from.
// Simulated players keep no secrets; the recorder's seed keeps the dice
// unpredictable all the same.
func SeedSecret(player string) []byte { return []byte("matchrec-autoplay:" + player) }

// over: a side has no models left.
func (a *Autoplay) over(s *projector.State) bool {
	for _, pl := range s.Players {
		if !hasModels(s, pl.ID) {
			return true
		}
	}
	return false
}

func phaseIndex(phases []string, p string) int {
	for i, x := range phases {
		if x == p {
			return i
		}
	}
	return -1
}
