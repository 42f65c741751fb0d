package ed3e

import (
	"testing"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// Every 3e refusal's words, one table: the command, the code and the exact
// message a player reads, with units named singular ("Squad S",
// "Devastator Squad") and plural ("Ork Boyz", "Gretchin"), so the verbs
// must agree.
func TestRefusalWording(t *testing.T) {
	heavy := events.WeaponSpec{ID: "hb", Name: "heavy bolter", Range: 36, Type: Heavy, Shots: 3, S: 5}
	fresh := func(t *testing.T) *projtest.Game {
		squad := marines("squad", 2, 10, boltgun())
		squad.Name = "Squad S"
		dev := marines("dev", 1, 10, heavy)
		dev.Name, dev.Models[0].Y = "Devastator Squad", 14
		grots := boyz("grots", 2, 60)
		grots.Models[0].Y, grots.Models[1].Y = 40, 41.2
		grots.Name = "Gretchin"
		nobz := boyz("boyz", 3, 20)
		nobz.Models[0].W = 2
		nobz.Models[1].T = 5 // mixed Toughness: hits are distributed
		return newGame(t, squad, dev, nobz, grots)
	}
	shooting := func(g *projtest.Game) { toShooting(g) }
	shotAt := func(g *projtest.Game) { // 4 hits on the Boyz (mixed T)
		toShooting(g)
		g.Do(alice, shoot("squad", "boyz"))
		g.Roll(6, 6, 6, 6)
	}
	names := map[string]bool{"Squad S": false, "Devastator Squad": false, "Ork Boyz": true, "Gretchin": true}
	cmd := func(typ string) projector.Command { return projector.Command{Type: typ} }
	projtest.CheckRefusals(t, fresh, names, []projtest.Refusal{
		{Name: "shoot in the movement phase", Before: func(g *projtest.Game) { g.Do(alice, cmd(projector.CmdNextTurn)) }, As: alice, Cmd: shoot("squad", "boyz"),
			Code: projector.CodeWrongPhase, Reason: "units shoot in the shooting phase, not the movement phase"},
		{Name: "shoot in the other player's turn", Before: shooting, As: bob, Cmd: shoot("boyz", "squad"), Code: projector.CodeWrongPlayer, Reason: "it is Alice's turn, not Bob's"},
		{Name: "shoot with the enemy's unit", Before: shooting, As: alice, Cmd: shoot("boyz", "squad"), Code: projector.CodeWrongPlayer, Reason: "unit Ork Boyz belongs to Bob"},
		{Name: "shoot at an own unit", Before: shooting, As: alice, Cmd: shoot("squad", "dev"), Code: projector.CodeBadCommand, Reason: "Squad S cannot shoot at its own side's unit Devastator Squad"},
		{Name: "an unknown target", Before: shooting, As: alice, Cmd: shoot("squad", "boys"), Code: projector.CodeUnknownUnit, Reason: "unknown target unit \"boys\" (did you mean unit \"boyz\"?)"},
		{Name: "out of range", Before: shooting, As: alice, Cmd: shoot("squad", "grots"), Code: projector.CodeOutOfRange, Reason: "no model of Squad S has Gretchin within range (squad-1's boltgun reaches 24\" but grots-1 is 57.3\" away)"},
		{Name: "an unknown weapon", Before: shooting, As: alice, Cmd: projector.Command{Type: projector.CmdShoot, Unit: "squad", Target: "boyz", Weapons: map[string]string{"squad-1": "bolter"}},
			Code: projector.CodeUnknownWeapon, Reason: "model squad-1 does not carry weapon \"bolter\""},
		{Name: "fire twice", Before: func(g *projtest.Game) {
			shotAt(g)
			g.Do(bob, projector.Command{Type: projector.CmdDistribute, Models: []string{"boyz-1", "boyz-2", "boyz-3", "boyz-1"}})
			for g.State.Attack != nil {
				g.Roll(ones(g.State.Pending.Dice, 1)...)
			}
		},
			As: alice, Cmd: shoot("squad", "boyz"), Code: projector.CodeAlreadyFired, Reason: "unit Squad S has already fired this turn"},
		{Name: "too few dice", Before: func(g *projtest.Game) { toShooting(g); g.Do(alice, shoot("squad", "boyz")) }, As: alice,
			Cmd: projector.Command{Type: projector.CmdRoll, Values: []int{6}}, Code: projector.CodeDiceCount, Reason: "Alice rolls 4 D6 to hit (boltgun), needing 3+: expected 4 dice, got 1 value"},
		{Name: "a face off the die", Before: func(g *projtest.Game) { toShooting(g); g.Do(alice, shoot("squad", "boyz")) }, As: alice,
			Cmd: projector.Command{Type: projector.CmdRoll, Values: []int{6, 6, 6, 7}}, Code: projector.CodeBadDice, Reason: "die 4 is 7: a D6 shows 1 to 6"},
		{Name: "the defender rolls to hit", Before: func(g *projtest.Game) { toShooting(g); g.Do(alice, shoot("squad", "boyz")) }, As: bob,
			Cmd: projector.Command{Type: projector.CmdRoll, Values: []int{6, 6, 6, 6}}, Code: projector.CodeWrongPlayer, Reason: "Alice must roll, not Bob"},
		{Name: "an unbalanced distribution", Before: shotAt, As: bob, Cmd: projector.Command{Type: projector.CmdDistribute, Models: []string{"boyz-1", "boyz-1", "boyz-1", "boyz-2"}},
			Code: projector.CodeBadDistribute, Reason: "hits go one per model in turn: 4 hits over 3 models, so each model takes 1 or 2, and boyz-1 takes 3 (any order of such a distribution is accepted)"},
		{Name: "a distribution of too few hits", Before: shotAt, As: bob, Cmd: projector.Command{Type: projector.CmdDistribute, Models: []string{"boyz-1"}},
			Code: projector.CodeBadDistribute, Reason: "distribute exactly 4 hits (one model id per hit), got 1"},
		{Name: "casualties before the wounds", Before: shotAt, As: bob, Cmd: projector.Command{Type: projector.CmdCasualties, Models: []string{"boyz-1"}},
			Code: projector.CodeWrongStep, Reason: "the match waits for: Bob distributes 4 hits over Ork Boyz (mixed Toughness): one per model in turn"},
		{Name: "an unknown command", As: alice, Cmd: cmd("charge"), Code: projector.CodeUnknownCommand, Reason: "unknown command \"charge\"; 3e takes: shoot, distribute, casualties, next-turn, phase, move, roll, end, concede, seed-commit, seed-reveal, confirm, contest, dispute, rule, reveal, excuse, measure"},
		{Name: "a move too far", Before: func(g *projtest.Game) { g.Do(alice, cmd(projector.CmdNextTurn)) }, As: alice,
			Cmd: projtest.Move("squad", "squad-1", 20, 10), Code: projector.CodeMoveTooFar, Reason: "model squad-1 may move 6\" this phase; (20.0, 10.0) is 10.0\" from where it started"},
	})
}
