package ed11e

import (
	"testing"

	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/projector/projtest"
)

// Every 11e refusal's words, one table: the command, the code and the
// exact message a player reads, with units named singular ("Squad S") and
// plural ("Hormagaunts", "Cadian Guardsmen"), so the verbs must agree.
func TestRefusalWording(t *testing.T) {
	names := map[string]bool{"Squad S": false, "Hormagaunts": true, "Cadian Guardsmen": true}
	fresh := func(t *testing.T) *projtest.Game {
		s := squad("squad", "alice", 2, 10, gun("rifle", 3, 4, "RE-ROLL HIT ROLLS OF 1"))
		s.Name = "Squad S"
		c := squad("cadians", "alice", 2, 10, gun("lasgun", 4, 3))
		c.Name = "Cadian Guardsmen"
		for i := range c.Models {
			c.Models[i].Y += 20
		}
		h := squad("gaunts", "bob", 3, 20, gun("fleshborer", 4, 4))
		h.Name = "Hormagaunts"
		h.Models[0].W = 2
		return newGame(t, s, c, h)
	}
	shooting := func(g *projtest.Game) { toShooting(g) }
	moving := func(g *projtest.Game) { g.Do(projtest.Alice, projector.Command{Type: projector.CmdNextTurn}) }
	cmd := func(typ string) projector.Command { return projector.Command{Type: typ} }
	alice, bob := projtest.Alice, projtest.Bob
	projtest.CheckRefusals(t, fresh, names, []projtest.Refusal{
		{Name: "no shooting type", Before: shooting, As: alice, Cmd: projtest.Shoot("squad", "gaunts"), Code: projector.CodeBadCommand, Reason: "name the shooting type (kind): Squad S is eligible for normal"},
		{Name: "an unknown shooting type", Before: shooting, As: alice, Cmd: projtest.Shoot("squad", "gaunts", "rapid"), Code: projector.CodeNotEligible, Reason: "\"rapid\" is not a shooting type (normal, assault, close-quarters, indirect) (eligible: normal)"},
		{Name: "assault shooting without an advance", Before: shooting, As: alice, Cmd: projtest.Shoot("cadians", "gaunts", Assault), Code: projector.CodeNotEligible, Reason: "Cadian Guardsmen are not eligible for assault shooting (10.05): they made no advance move this turn, they have no [ASSAULT] weapon (eligible: normal)"},
		{Name: "a second advance", Before: func(g *projtest.Game) {
			moving(g)
			g.Do(alice, projector.Command{Type: CmdAdvance, Unit: "cadians"})
			g.Roll(3)
		}, As: alice,
			Cmd: projector.Command{Type: CmdAdvance, Unit: "cadians"}, Code: projector.CodeNotEligible, Reason: "Cadian Guardsmen have already declared an advance this turn"},
		{Name: "an advance after moving", Before: func(g *projtest.Game) { moving(g); g.Do(alice, projtest.Move("cadians", "cadians-1", 11, 30)) }, As: alice,
			Cmd: projector.Command{Type: CmdAdvance, Unit: "cadians"}, Code: projector.CodeNotEligible, Reason: "Cadian Guardsmen have already moved: an advance is declared before the unit moves"},
		{Name: "a re-roll not offered", Before: shooting, As: alice, Cmd: cmd(projector.CmdReroll), Code: projector.CodeWrongStep, Reason: "no re-roll is offered; the match waits for: Alice declares in the shooting phase of turn 1 (step: start)"},
		{Name: "the defender's re-roll", Before: func(g *projtest.Game) {
			toShooting(g)
			g.Do(alice, projtest.Shoot("squad", "gaunts", Normal))
			g.Roll(1, 6)
		}, As: bob,
			Cmd: cmd(projector.CmdReroll), Code: projector.CodeWrongPlayer, Reason: "Alice decides this re-roll"},
		{Name: "a die the rule does not re-roll", Before: func(g *projtest.Game) {
			toShooting(g)
			g.Do(alice, projtest.Shoot("squad", "gaunts", Normal))
			g.Roll(1, 6)
		}, As: alice,
			Cmd: projector.Command{Type: projector.CmdReroll, Indices: []int{1}}, Code: projector.CodeBadDice, Reason: "die 1 shows 6: re-roll hit rolls of 1 does not re-roll it (it may re-roll #0 (1))"},
		{Name: "shoot twice", Before: func(g *projtest.Game) {
			toShooting(g)
			g.Do(alice, projtest.Shoot("cadians", "gaunts", Normal))
			g.Roll(1, 1)
		}, As: alice, Cmd: projtest.Shoot("cadians", "gaunts", Normal), Code: projector.CodeAlreadyFired, Reason: "Cadian Guardsmen have already been selected to shoot this phase"},
		{Name: "an allocation the rules make (the one wounded model)", Before: func(g *projtest.Game) {
			g.Both(func(s *projector.State) { s.Unit("gaunts").Model("gaunts-1").WoundsLeft = 1 })
			toShooting(g)
			g.Do(alice, projtest.Shoot("squad", "gaunts", Normal))
			g.Roll(6, 6)
			g.Roll(6, 6)
		}, As: bob, Cmd: allocate("gaunts-2"), Code: projector.CodeWrongStep, Reason: "no allocation is pending; the match waits for: Bob rolls 1 D6 to save (gaunts-1, Sv4+ AP0), needing 4+"},
		{Name: "damage dice for a fixed damage", Before: func(g *projtest.Game) {
			toShooting(g)
			g.Do(alice, projtest.Shoot("cadians", "gaunts", Normal))
			g.Roll(6, 6)
			g.Roll(6, 6)
		}, As: alice, Cmd: projector.Command{Type: projector.CmdRoll, Purpose: PurposeDamage, Values: []int{3}},
			Code: projector.CodeWrongStep, Reason: "lasgun deals fixed damage (D 1): no damage dice are rolled; the match waits for: Bob allocates attack 1 of 2 (lasgun, AP0, D 1) to a model of Hormagaunts"},
	})
}
